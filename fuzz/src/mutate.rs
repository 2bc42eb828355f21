//! Mutations of byte strings: bit flips, interesting integers at any offset, insertions,
//! deletions, duplications, dictionary words and splices of two inputs.
use bip_lab::rng::Rng;

/// Integers that sit on the edges sizes are checked at.
const INTERESTING: [u64; 22] = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    16,
    31,
    32,
    33,
    255,
    256,
    65_535,
    65_536,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    1 << 32,
    1 << 60,
    1 << 63,
    u64::MAX,
];

/// Inputs never grow beyond this many bytes.
pub const MAX_INPUT: usize = 1 << 16;

/// A deterministic source of mutations (the lab's SplitMix64 underneath).
#[derive(Clone, Debug)]
pub struct Mutator {
    rng: Rng,
    /// Offsets below this are chosen half the time: where headers are.
    hot: usize,
}

impl Mutator {
    /// A mutator drawing from `seed`, favouring the first `hot` bytes of an input.
    pub fn new(seed: u64, hot: usize) -> Self {
        Self {
            rng: Rng::new(seed ^ 0x6a09_e667_f3bc_c908),
            hot: hot.max(1),
        }
    }

    /// The next pseudo-random number.
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// An offset into an input of `len` bytes (`len` itself for an empty input).
    fn offset(&mut self, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        if self.next_u64() & 1 == 0 {
            self.below(len.min(self.hot))
        } else {
            self.below(len)
        }
    }

    /// A mutation of `input`: one to four edits, using `dictionary` words and `other` (an
    /// input to splice with).
    pub fn mutate(&mut self, input: &[u8], dictionary: &[&[u8]], other: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        for _ in 0..1 + self.below(4) {
            self.edit(&mut out, dictionary, other);
        }
        out.truncate(MAX_INPUT);
        out
    }

    /// One edit of `data`.
    fn edit(&mut self, data: &mut Vec<u8>, dictionary: &[&[u8]], other: &[u8]) {
        let at = self.offset(data.len());
        match self.below(10) {
            0 if !data.is_empty() => {
                let bit = self.below(8);
                let last = data.len() - 1;
                data[at.min(last)] ^= 1 << bit;
            }
            1 | 2 => self.put_integer(data, at),
            3 => self.add_delta(data, at),
            4 if !data.is_empty() => {
                let n = 1 + self.below(16.min(data.len() - at.min(data.len() - 1)));
                let at = at.min(data.len() - 1);
                data.drain(at..(at + n).min(data.len()));
            }
            5 => {
                let n = 1 + self.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| self.next_u64() as u8).collect();
                data.splice(at..at, bytes);
            }
            6 if !data.is_empty() => {
                let from = self.below(data.len());
                let n = 1 + self.below(64.min(data.len() - from));
                let chunk = data[from..from + n].to_vec();
                data.splice(at..at, chunk);
            }
            7 if !dictionary.is_empty() => {
                let word = dictionary[self.below(dictionary.len())];
                let end = (at + word.len()).min(data.len());
                if self.next_u64() & 1 == 0 {
                    data.splice(at..end, word.iter().copied());
                } else {
                    data.splice(at..at, word.iter().copied());
                }
            }
            8 if !other.is_empty() => {
                let from = self.below(other.len());
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            _ => {
                let keep = at.max(1).min(data.len());
                data.truncate(keep);
            }
        }
    }

    /// Writes an interesting integer (or one near the input's length) at `at`, 1, 2, 4
    /// or 8 bytes wide, little-endian.
    fn put_integer(&mut self, data: &mut [u8], at: usize) {
        let value = match self.below(4) {
            0 => (data.len() as u64)
                .wrapping_add(self.below(5) as u64)
                .wrapping_sub(2),
            _ => INTERESTING[self.below(INTERESTING.len())],
        };
        let width = [1, 2, 4, 8][self.below(4)];
        let bytes = value.to_le_bytes();
        for (i, b) in bytes.iter().take(width).enumerate() {
            if let Some(slot) = data.get_mut(at + i) {
                *slot = *b;
            }
        }
    }

    /// Adds a small signed delta to the 4- or 8-byte little-endian integer at `at`.
    fn add_delta(&mut self, data: &mut [u8], at: usize) {
        let width = if self.next_u64() & 1 == 0 { 4 } else { 8 };
        let Some(slot) = data.get_mut(at..at + width) else {
            return;
        };
        let mut bytes = [0u8; 8];
        bytes[..width].copy_from_slice(slot);
        let delta = self.below(33) as i64 - 16;
        let value = u64::from_le_bytes(bytes).wrapping_add_signed(delta);
        slot.copy_from_slice(&value.to_le_bytes()[..width]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_bounded() {
        let input = vec![7u8; 100];
        let mut a = Mutator::new(3, 16);
        let mut b = Mutator::new(3, 16);
        for _ in 0..1000 {
            let x = a.mutate(&input, &[b"word"], b"other");
            assert_eq!(x, b.mutate(&input, &[b"word"], b"other"));
            assert!(x.len() <= MAX_INPUT);
        }
        let mut m = Mutator::new(1, 4);
        for _ in 0..1000 {
            m.mutate(&[], &[], &[]);
        }
    }
}
