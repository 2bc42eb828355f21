//! GGML tensor types and their dequantization to `f32`.
//!
//! Each quantized type stores fixed-size blocks of weights along a row; the layouts and
//! formulas follow ggml's reference `dequantize_row_*` functions.

use half::{bf16, f16};
use rayon::prelude::*;

/// A GGML tensor element type, as numbered in GGUF tensor infos.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    Bf16,
    /// 4-bit, blocks of 32 with one scale.
    Q4_0,
    /// 4-bit, blocks of 32 with a scale and a minimum.
    Q4_1,
    /// 5-bit, blocks of 32 with one scale.
    Q5_0,
    /// 5-bit, blocks of 32 with a scale and a minimum.
    Q5_1,
    /// 8-bit, blocks of 32 with one scale.
    Q8_0,
    /// 4-bit k-quant, super-blocks of 256 with 6-bit sub-block scales and minimums.
    Q4K,
    /// 5-bit k-quant, super-blocks of 256.
    Q5K,
    /// 6-bit k-quant, super-blocks of 256 with 8-bit sub-block scales.
    Q6K,
    /// 8-bit k-quant, super-blocks of 256 (intermediate format).
    Q8K,
    /// A type this crate can name but not dequantize, with its GGML number.
    Other(u32),
}

impl GgmlType {
    /// The type numbered `id` in the GGML enum.
    pub fn from_id(id: u32) -> Self {
        match id {
            0 => Self::F32,
            1 => Self::F16,
            2 => Self::Q4_0,
            3 => Self::Q4_1,
            6 => Self::Q5_0,
            7 => Self::Q5_1,
            8 => Self::Q8_0,
            12 => Self::Q4K,
            13 => Self::Q5K,
            14 => Self::Q6K,
            15 => Self::Q8K,
            30 => Self::Bf16,
            other => Self::Other(other),
        }
    }

    /// The GGML number of this type.
    pub fn id(self) -> u32 {
        match self {
            Self::F32 => 0,
            Self::F16 => 1,
            Self::Q4_0 => 2,
            Self::Q4_1 => 3,
            Self::Q5_0 => 6,
            Self::Q5_1 => 7,
            Self::Q8_0 => 8,
            Self::Q4K => 12,
            Self::Q5K => 13,
            Self::Q6K => 14,
            Self::Q8K => 15,
            Self::Bf16 => 30,
            Self::Other(id) => id,
        }
    }

    /// Elements per block and bytes per block, or `None` for an unsupported type.
    pub fn block_layout(self) -> Option<(usize, usize)> {
        Some(match self {
            Self::F32 => (1, 4),
            Self::F16 | Self::Bf16 => (1, 2),
            Self::Q4_0 => (32, 18),
            Self::Q4_1 => (32, 20),
            Self::Q5_0 => (32, 22),
            Self::Q5_1 => (32, 24),
            Self::Q8_0 => (32, 34),
            Self::Q4K => (256, 144),
            Self::Q5K => (256, 176),
            Self::Q6K => (256, 210),
            Self::Q8K => (256, 292),
            Self::Other(_) => return None,
        })
    }

    /// The name llama.cpp gives this type (`Q4_K`, `BF16`, ...).
    pub fn name(self) -> String {
        match self {
            Self::F32 => "F32".into(),
            Self::F16 => "F16".into(),
            Self::Bf16 => "BF16".into(),
            Self::Q4_0 => "Q4_0".into(),
            Self::Q4_1 => "Q4_1".into(),
            Self::Q5_0 => "Q5_0".into(),
            Self::Q5_1 => "Q5_1".into(),
            Self::Q8_0 => "Q8_0".into(),
            Self::Q4K => "Q4_K".into(),
            Self::Q5K => "Q5_K".into(),
            Self::Q6K => "Q6_K".into(),
            Self::Q8K => "Q8_K".into(),
            Self::Other(id) => format!("GGML type {id}"),
        }
    }

    /// Bytes taken by `elements` elements, or `None` when the type is unsupported or the
    /// count is not a whole number of blocks.
    pub fn byte_size(self, elements: usize) -> Option<usize> {
        let (block, bytes) = self.block_layout()?;
        if !elements.is_multiple_of(block) {
            return None;
        }
        (elements / block).checked_mul(bytes)
    }
}

impl std::fmt::Display for GgmlType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Blocks dequantized per parallel task.
const BLOCKS_PER_TASK: usize = 256;

/// Dequantizes `data` (whole blocks of `ty`) to `f32`.
///
/// Returns `None` when the type is unsupported or `data` is not a whole number of blocks.
/// The work is split over rayon threads by fixed chunks of blocks, so the result does not
/// depend on the number of threads.
pub fn dequantize(ty: GgmlType, data: &[u8]) -> Option<Vec<f32>> {
    let mut out = Vec::new();
    dequantize_into(ty, data, &mut out).then_some(out)
}

/// [`dequantize`] into `out`, replacing what it held and resized to the tensor (a buffer
/// reused across tensors keeps the pages it already has, where a fresh one would fault
/// every page in again); `false` where [`dequantize`] gives `None`.
pub(crate) fn dequantize_into(ty: GgmlType, data: &[u8], out: &mut Vec<f32>) -> bool {
    let Some((block, bytes)) = ty.block_layout() else {
        return false;
    };
    if !data.len().is_multiple_of(bytes) {
        return false;
    }
    let n_blocks = data.len() / bytes;
    let kernel: fn(&[u8], &mut [f32]) = match ty {
        GgmlType::F32 => |b, y| y[0] = f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        GgmlType::F16 => |b, y| y[0] = f16::from_le_bytes([b[0], b[1]]).to_f32(),
        GgmlType::Bf16 => |b, y| y[0] = bf16::from_le_bytes([b[0], b[1]]).to_f32(),
        GgmlType::Q4_0 => q4_0,
        GgmlType::Q4_1 => q4_1,
        GgmlType::Q5_0 => q5_0,
        GgmlType::Q5_1 => q5_1,
        GgmlType::Q8_0 => q8_0,
        GgmlType::Q4K => q4_k,
        GgmlType::Q5K => q5_k,
        GgmlType::Q6K => q6_k,
        GgmlType::Q8K => q8_k,
        GgmlType::Other(_) => return false,
    };
    // Every element is written below: only a buffer that grows is filled first.
    out.resize(n_blocks * block, 0.0);
    let per_task = BLOCKS_PER_TASK * block;
    out.par_chunks_mut(per_task)
        .zip(data.par_chunks(BLOCKS_PER_TASK * bytes))
        .for_each(|(y, b)| {
            for (yb, bb) in y.chunks_exact_mut(block).zip(b.chunks_exact(bytes)) {
                kernel(bb, yb);
            }
        });
    true
}

fn half_at(b: &[u8], at: usize) -> f32 {
    f16::from_le_bytes([b[at], b[at + 1]]).to_f32()
}

/// `{f16 d; u8 qs[16]}`: y = (nibble - 8) * d, low nibbles first.
fn q4_0(b: &[u8], y: &mut [f32]) {
    let d = half_at(b, 0);
    let qs = &b[2..18];
    for j in 0..16 {
        y[j] = ((qs[j] & 0x0F) as i32 - 8) as f32 * d;
        y[j + 16] = ((qs[j] >> 4) as i32 - 8) as f32 * d;
    }
}

/// `{f16 d; f16 m; u8 qs[16]}`: y = nibble * d + m.
fn q4_1(b: &[u8], y: &mut [f32]) {
    let (d, m) = (half_at(b, 0), half_at(b, 2));
    let qs = &b[4..20];
    for j in 0..16 {
        y[j] = (qs[j] & 0x0F) as f32 * d + m;
        y[j + 16] = (qs[j] >> 4) as f32 * d + m;
    }
}

/// `{f16 d; u8 qh[4]; u8 qs[16]}`: five-bit values (high bits in `qh`) minus 16, times d.
fn q5_0(b: &[u8], y: &mut [f32]) {
    let d = half_at(b, 0);
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    let qs = &b[6..22];
    for j in 0..16 {
        let h0 = ((qh >> j) << 4) & 0x10;
        let h1 = (qh >> (j + 12)) & 0x10;
        y[j] = (((qs[j] & 0x0F) as u32 | h0) as i32 - 16) as f32 * d;
        y[j + 16] = (((qs[j] >> 4) as u32 | h1) as i32 - 16) as f32 * d;
    }
}

/// `{f16 d; f16 m; u8 qh[4]; u8 qs[16]}`: five-bit values times d, plus m.
fn q5_1(b: &[u8], y: &mut [f32]) {
    let (d, m) = (half_at(b, 0), half_at(b, 2));
    let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let qs = &b[8..24];
    for j in 0..16 {
        let h0 = ((qh >> j) << 4) & 0x10;
        let h1 = (qh >> (j + 12)) & 0x10;
        y[j] = ((qs[j] & 0x0F) as u32 | h0) as f32 * d + m;
        y[j + 16] = ((qs[j] >> 4) as u32 | h1) as f32 * d + m;
    }
}

/// `{f16 d; i8 qs[32]}`: y = q * d.
fn q8_0(b: &[u8], y: &mut [f32]) {
    let d = half_at(b, 0);
    for (yj, &q) in y.iter_mut().zip(&b[2..34]) {
        *yj = q as i8 as f32 * d;
    }
}

/// The `j`-th 6-bit scale and minimum of a Q4_K/Q5_K super-block's packed `scales[12]`.
fn scale_min_k4(j: usize, q: &[u8]) -> (f32, f32) {
    if j < 4 {
        ((q[j] & 63) as f32, (q[j + 4] & 63) as f32)
    } else {
        let d = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
        let m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
        (d as f32, m as f32)
    }
}

/// The scales and minimums of sub-blocks `2 chunk` and `2 chunk + 1` of a Q4_K or Q5_K
/// block whose super-block scales are `d` and `dmin`: `(d1, m1, d2, m2)`.
fn k_chunk_scales(chunk: usize, d: f32, dmin: f32, scales: &[u8]) -> (f32, f32, f32, f32) {
    let (sc1, m1) = scale_min_k4(2 * chunk, scales);
    let (sc2, m2) = scale_min_k4(2 * chunk + 1, scales);
    (d * sc1, dmin * m1, d * sc2, dmin * m2)
}

/// `{f16 d; f16 dmin; u8 scales[12]; u8 qs[128]}`: eight sub-blocks of 32.
fn q4_k(b: &[u8], y: &mut [f32]) {
    let (d, dmin) = (half_at(b, 0), half_at(b, 2));
    let scales = &b[4..16];
    let qs = &b[16..144];
    for (chunk, (ys, q)) in y.chunks_exact_mut(64).zip(qs.chunks_exact(32)).enumerate() {
        let (d1, m1, d2, m2) = k_chunk_scales(chunk, d, dmin, scales);
        for l in 0..32 {
            ys[l] = d1 * (q[l] & 0x0F) as f32 - m1;
            ys[l + 32] = d2 * (q[l] >> 4) as f32 - m2;
        }
    }
}

/// `{f16 d; f16 dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]}`: Q4_K plus a fifth bit.
fn q5_k(b: &[u8], y: &mut [f32]) {
    let (d, dmin) = (half_at(b, 0), half_at(b, 2));
    let scales = &b[4..16];
    let qh = &b[16..48];
    let qs = &b[48..176];
    for (chunk, (ys, q)) in y.chunks_exact_mut(64).zip(qs.chunks_exact(32)).enumerate() {
        let (d1, m1, d2, m2) = k_chunk_scales(chunk, d, dmin, scales);
        let (u1, u2) = (1u8 << (2 * chunk), 2u8 << (2 * chunk));
        for l in 0..32 {
            let h1 = if qh[l] & u1 != 0 { 16.0 } else { 0.0 };
            let h2 = if qh[l] & u2 != 0 { 16.0 } else { 0.0 };
            ys[l] = d1 * ((q[l] & 0x0F) as f32 + h1) - m1;
            ys[l + 32] = d2 * ((q[l] >> 4) as f32 + h2) - m2;
        }
    }
}

/// `{u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}`: six-bit values minus 32.
fn q6_k(b: &[u8], y: &mut [f32]) {
    let d = half_at(b, 208);
    for half in 0..2 {
        let ql = &b[64 * half..64 * half + 64];
        let qh = &b[128 + 32 * half..128 + 32 * half + 32];
        let sc = &b[192 + 8 * half..192 + 8 * half + 8];
        let ys = &mut y[128 * half..128 * half + 128];
        for l in 0..32 {
            let is = l / 16;
            let q1 = ((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) as i32 - 32;
            let q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) as i32 - 32;
            let q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i32 - 32;
            let q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i32 - 32;
            let s = |k: usize| d * (sc[is + k] as i8) as f32;
            ys[l] = s(0) * q1 as f32;
            ys[l + 32] = s(2) * q2 as f32;
            ys[l + 64] = s(4) * q3 as f32;
            ys[l + 96] = s(6) * q4 as f32;
        }
    }
}

/// `{f32 d; i8 qs[256]; i16 bsums[16]}`: y = q * d.
fn q8_k(b: &[u8], y: &mut [f32]) {
    let d = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    for (yj, &q) in y.iter_mut().zip(&b[4..260]) {
        *yj = q as i8 as f32 * d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for id in 0..40 {
            assert_eq!(GgmlType::from_id(id).id(), id);
        }
    }

    #[test]
    fn byte_sizes_need_whole_blocks() {
        assert_eq!(GgmlType::Q4_1.byte_size(64), Some(40));
        assert_eq!(GgmlType::Q4_1.byte_size(65), None);
        assert_eq!(GgmlType::Q6K.byte_size(512), Some(420));
        assert_eq!(GgmlType::Other(20).byte_size(32), None);
    }

    #[test]
    fn q4_0_hand_block() {
        // d = 0.5; byte j = (hi << 4) | lo with lo = j, hi = 15 - j.
        let mut b = f16::from_f32(0.5).to_le_bytes().to_vec();
        b.extend((0..16u8).map(|j| ((15 - j) << 4) | j));
        let y = dequantize(GgmlType::Q4_0, &b).unwrap();
        for j in 0..16 {
            assert_eq!(y[j], (j as f32 - 8.0) * 0.5);
            assert_eq!(y[j + 16], (7.0 - j as f32) * 0.5);
        }
    }

    #[test]
    fn q4_1_hand_block() {
        let mut b = f16::from_f32(0.25).to_le_bytes().to_vec();
        b.extend(f16::from_f32(-1.0).to_le_bytes());
        b.extend((0..16u8).map(|j| (j << 4) | (15 - j)));
        let y = dequantize(GgmlType::Q4_1, &b).unwrap();
        assert_eq!(y[0], 15.0 * 0.25 - 1.0);
        assert_eq!(y[16], -1.0);
        assert_eq!(y[31], 15.0 * 0.25 - 1.0);
    }

    #[test]
    fn q8_0_and_floats() {
        let mut b = f16::from_f32(2.0).to_le_bytes().to_vec();
        b.extend((0..32).map(|j| (j as i8 - 16) as u8));
        let y = dequantize(GgmlType::Q8_0, &b).unwrap();
        assert_eq!(y[0], -32.0);
        assert_eq!(y[31], 30.0);
        let f = dequantize(GgmlType::F32, &1.5f32.to_le_bytes()).unwrap();
        assert_eq!(f, vec![1.5]);
        let h = dequantize(GgmlType::Bf16, &bf16::from_f32(-3.0).to_le_bytes()).unwrap();
        assert_eq!(h, vec![-3.0]);
    }

    #[test]
    fn partial_blocks_are_refused() {
        assert!(dequantize(GgmlType::Q4_0, &[0; 17]).is_none());
        assert!(dequantize(GgmlType::Other(20), &[0; 32]).is_none());
    }
}
