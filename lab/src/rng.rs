//! A small deterministic random number generator.
//!
//! bip's own, so that a seed gives the same episodes and bootstrap intervals on every
//! platform and in every future version, whatever a dependency might change.

/// SplitMix64 (Steele, Lea and Flood, 2014): 64-bit state, full period, good enough
/// statistical quality for sampling worlds and bootstrap resamples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// An independent generator for item `index` of a stream seeded with `seed`: items can
    /// be made in any order, or in parallel, with identical results.
    pub fn for_item(seed: u64, index: u64) -> Self {
        let mut mixer = Self::new(seed ^ 0x6a09_e667_f3bc_c908);
        let base = mixer.next_u64();
        Self::new(base.wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        // Multiply-shift: unbiased enough for n far below 2^32, and branch-free.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform integer in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A uniformly chosen element, or `None` for an empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// An index drawn with probability proportional to `exp(log_weights[i])`.
    pub fn sample_log_weights(&mut self, log_weights: &[f64]) -> usize {
        let max = log_weights
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = log_weights.iter().map(|w| (w - max).exp()).collect();
        let total: f64 = weights.iter().sum();
        let mut target = self.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if target < *w {
                return i;
            }
            target -= w;
        }
        log_weights.len().saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.iter().all(|x| *x == a[0]));
        let mut r = Rng::new(7);
        let mut s = Rng::new(8);
        assert_ne!(r.next_u64(), s.next_u64());
        assert_ne!(
            Rng::for_item(1, 0).next_u64(),
            Rng::for_item(1, 1).next_u64()
        );
        assert_eq!(Rng::for_item(1, 5), Rng::for_item(1, 5));
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [0usize; 5];
        for _ in 0..5000 {
            seen[r.below(5)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
    }

    #[test]
    fn sampling_follows_log_weights() {
        let mut r = Rng::new(3);
        let weights = [0.0, 3f64.ln(), f64::NEG_INFINITY];
        let mut counts = [0usize; 3];
        for _ in 0..4000 {
            counts[r.sample_log_weights(&weights)] += 1;
        }
        assert_eq!(counts[2], 0);
        let ratio = counts[1] as f64 / counts[0] as f64;
        assert!((ratio - 3.0).abs() < 0.4, "{counts:?}");
    }
}
