//! Weights held as 8-bit integers in blocks of 32 inputs, each block with its own f32
//! scale, multiplied with integer dot products: a quarter of the memory of f32 weights,
//! and on CPUs with AVX-512 VNNI several times the f32 product's rate. CPUs with AVX2
//! (and FMA) but not AVX-512 VNNI run a 256-bit kernel; others the portable path.
//!
//! The activations are quantized the same way on the fly (each row's blocks of 32 to
//! 8 bits with a scale), so that a block's dot product is exact integer arithmetic and
//! only its two scales are floats: `y[t][o] = Σ_b xs[t][b] · ws[o][b] · Σ_i xq[t][i] wq[o][i]`
//! over the inputs `i` of block `b`. Rounding both sides to 8 bits moves a product by a
//! few parts in a thousand of its terms' size, far less than a 4- or 5-bit file's own
//! quantization (docs/policies-and-models.md, "Weight storage").
//!
//! Layout: output rows in groups of [`LANES`], each group stored block by block and, in a
//! block, four inputs of every row of the group side by side (`[group][block][step][row][4]`),
//! so that one 512-bit multiply-add takes four inputs of one activation row, broadcast,
//! against sixteen output rows. The AVX2 kernel and the portable path compute the same
//! integers and apply the same float operations in the same order, so all three give the
//! same bits.

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};
use rayon::prelude::*;

use super::host_matrix::gather_rows;

/// Inputs per quantization block.
const BLOCK: usize = 32;
/// Output rows one vector of the kernel holds.
const LANES: usize = 16;
/// Inputs one multiply-add step takes per row.
const STEP: usize = 4;
/// Activation rows one pass of the kernel takes together.
const TILE: usize = 4;
/// Row groups one parallel task computes.
const GROUPS_PER_TASK: usize = 4;
/// The version of this storage's rounding (of weights and of activations). A score
/// cache keys int8 scores by it ([`crate::WeightStorage::cache_tag`]), so a change to
/// how either side is rounded must bump it: otherwise scores cached under the old rounding
/// would be read as the new one's. The test `the_rounding_is_version_1` fails when the
/// rounding changes.
pub(crate) const ROUNDING_VERSION: u32 = 1;
/// Activations are stored offset by this much as unsigned bytes, the multiply-add's
/// unsigned operand; the offset's contribution is taken out with the weights' block sums.
const OFFSET: i32 = 128;

/// A matrix `M` of `rows × cols`, the weight of `x ↦ x Mᵀ` (each row one output's weights
/// over every input, as GGUF stores them), in 8-bit blocks.
pub(crate) struct Int8Matrix {
    rows: usize,
    cols: usize,
    /// Blocks per row (`cols` rounded up to [`BLOCK`]; the padding is zeros).
    blocks: usize,
    /// `[group][block][step][lane][STEP]`.
    values: Vec<i8>,
    /// `[group][block][lane]`: each block's scale.
    scales: Vec<f32>,
    /// `[group][block][lane]`: `−OFFSET ×` the block's integer sum, where each block's
    /// integer accumulator starts.
    offsets: Vec<i32>,
}

impl std::fmt::Debug for Int8Matrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Int8Matrix [{}, {}]", self.rows, self.cols)
    }
}

/// One block of values quantized symmetrically to ±127: the scale and the integers. A
/// block holding a NaN or an infinity gets a NaN scale, so that whatever it multiplies
/// comes out NaN rather than silently finite.
///
/// Written without early exits or library calls so that the compiler vectorizes it: it
/// runs over every weight at load and every activation in each product.
fn quantize_block(values: &[f32; BLOCK], out: &mut [i8; BLOCK]) -> f32 {
    // The magnitude's bits order like the magnitude, and an integer maximum vectorizes
    // where a float one must keep its order; NaN and the infinities sort above every
    // finite value.
    let largest_bits = values
        .iter()
        .map(|v| v.to_bits() & 0x7fff_ffff)
        .fold(0, u32::max);
    if largest_bits >= f32::INFINITY.to_bits() {
        out.fill(0);
        return f32::NAN;
    }
    if largest_bits == 0 {
        out.fill(0);
        return 0.0;
    }
    let largest = f32::from_bits(largest_bits);
    let inverse = 127.0 / largest;
    for (q, &v) in out.iter_mut().zip(values) {
        *q = round_small(v * inverse).clamp(-127, 127) as i8;
    }
    largest / 127.0
}

/// `x` rounded to the nearest integer, halves to even, for `|x| < 2²²`: adding 1.5 · 2²³
/// leaves the sum no fraction bits, so the addition itself rounds, and the integer is
/// read off the low bits. `f32::round` is a library call the compiler cannot vectorize,
/// and took a tenth of a 1.5B model's load. (Halves away from zero instead moved the
/// Qwen parity with llama.cpp by a thousandth of a nat, `tests/qwen.rs`.)
fn round_small(x: f32) -> i32 {
    const SHIFT: f32 = 12_582_912.0;
    (x + SHIFT).to_bits() as i32 - SHIFT.to_bits() as i32
}

impl Int8Matrix {
    /// `values`, `rows × cols` row-major, quantized.
    ///
    /// # Panics
    ///
    /// When `values` does not hold `rows × cols` numbers (a builder's bug, not input).
    pub(crate) fn from_f32(values: &[f32], rows: usize, cols: usize) -> Self {
        assert_eq!(values.len(), rows * cols, "a [{rows}, {cols}] matrix");
        let blocks = cols.div_ceil(BLOCK);
        let groups = rows.div_ceil(LANES);
        let group_values = blocks * BLOCK * LANES;
        let mut packed = vec![0i8; groups * group_values];
        let mut scales = vec![0.0f32; groups * blocks * LANES];
        let mut offsets = vec![0i32; groups * blocks * LANES];
        packed
            .par_chunks_mut(group_values)
            .zip(scales.par_chunks_mut(blocks * LANES))
            .zip(offsets.par_chunks_mut(blocks * LANES))
            .enumerate()
            .for_each(|(g, ((packed, scales), offsets))| {
                let mut padded = [0.0f32; BLOCK];
                let mut q = [0i8; BLOCK];
                for lane in 0..LANES {
                    let row = g * LANES + lane;
                    if row >= rows {
                        break;
                    }
                    let row_values = &values[row * cols..(row + 1) * cols];
                    for b in 0..blocks {
                        let part = &row_values[b * BLOCK..cols.min((b + 1) * BLOCK)];
                        padded.fill(0.0);
                        padded[..part.len()].copy_from_slice(part);
                        scales[b * LANES + lane] = quantize_block(&padded, &mut q);
                        let sum: i32 = q.iter().map(|&v| i32::from(v)).sum();
                        offsets[b * LANES + lane] = -OFFSET * sum;
                        for (step, four) in q.chunks_exact(STEP).enumerate() {
                            let at = ((b * (BLOCK / STEP) + step) * LANES + lane) * STEP;
                            packed[at..at + STEP].copy_from_slice(four);
                        }
                    }
                }
            });
        Self {
            rows,
            cols,
            blocks,
            values: packed,
            scales,
            offsets,
        }
    }

    /// Number of rows (outputs of the product).
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Row `i` as the block scales and integers give it back.
    fn row_into(&self, i: usize, out: &mut [f32]) {
        let (g, lane) = (i / LANES, i % LANES);
        let group = &self.values[g * self.blocks * BLOCK * LANES..];
        for (c, value) in out.iter_mut().enumerate().take(self.cols) {
            let (b, within) = (c / BLOCK, c % BLOCK);
            let at = ((b * (BLOCK / STEP) + within / STEP) * LANES + lane) * STEP + within % STEP;
            *value = f32::from(group[at]) * self.scales[(g * self.blocks + b) * LANES + lane];
        }
    }

    /// The rows named by `ids` (token ids, checked against the vocabulary before any
    /// pass), dequantized: `[ids, cols]`.
    pub(crate) fn gather<B: Backend>(&self, ids: Tensor<B, 1, Int>) -> Tensor<B, 2> {
        gather_rows(ids, self.rows, self.cols, |i, row| self.row_into(i, row))
    }

    /// `x Mᵀ`: `[n, cols]` → `[n, rows]`.
    pub(crate) fn product<B: Backend>(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let device = x.device();
        let [n, cols] = x.dims();
        debug_assert_eq!(cols, self.cols);
        let x: Vec<f32> = x.into_data().convert::<f32>().to_vec().unwrap_or_default();
        let activations = Activations::quantize(&x, n, self.cols, self.blocks);
        let out = self.product_host(&activations);
        Tensor::from_data(TensorData::new(out, [n, self.rows]), &device)
    }

    /// The product on host memory, `[n, rows]` row-major.
    fn product_host(&self, x: &Activations) -> Vec<f32> {
        let groups = self.rows.div_ceil(LANES);
        let kernel = Kernel::detect();
        // Each task computes a few row groups for every activation row, into a buffer of
        // its own; the buffers are then laid into the output's columns.
        let parts: Vec<Vec<f32>> = (0..groups.div_ceil(GROUPS_PER_TASK))
            .into_par_iter()
            .map(|task| {
                let first = task * GROUPS_PER_TASK;
                let count = GROUPS_PER_TASK.min(groups - first);
                let mut part = vec![0.0f32; x.rows * count * LANES];
                for g in first..first + count {
                    let column = (g - first) * LANES;
                    self.group_product(g, x, kernel, &mut part, count * LANES, column);
                }
                part
            })
            .collect();
        let mut out = vec![0.0f32; x.rows * self.rows];
        for (task, part) in parts.iter().enumerate() {
            let first_row = task * GROUPS_PER_TASK * LANES;
            let width = part.len() / x.rows.max(1);
            let kept = width.min(self.rows - first_row);
            for (t, values) in part.chunks_exact(width.max(1)).enumerate() {
                let at = t * self.rows + first_row;
                out[at..at + kept].copy_from_slice(&values[..kept]);
            }
        }
        out
    }

    /// Row group `g` against every activation row: column `column + lane` of `out` (rows
    /// of `width`) receives output row `g · LANES + lane`.
    fn group_product(
        &self,
        g: usize,
        x: &Activations,
        kernel: Kernel,
        out: &mut [f32],
        width: usize,
        column: usize,
    ) {
        let per_group = self.blocks * LANES;
        let group = GroupView {
            values: &self.values[g * per_group * BLOCK..(g + 1) * per_group * BLOCK],
            scales: &self.scales[g * per_group..(g + 1) * per_group],
            offsets: &self.offsets[g * per_group..(g + 1) * per_group],
            blocks: self.blocks,
        };
        let mut t = 0;
        while t < x.rows {
            let tile = TILE.min(x.rows - t);
            let mut sums = [[0.0f32; LANES]; TILE];
            match kernel {
                // SAFETY: `Kernel::detect` found the CPU features each kernel is compiled
                // for, and rows `t..t + TILE` exist: `x` holds whole tiles, padded with
                // zeros.
                #[cfg(target_arch = "x86_64")]
                #[allow(unsafe_code)]
                Kernel::Vnni => unsafe { vnni::tile(&group, x, t, &mut sums) },
                #[cfg(target_arch = "x86_64")]
                #[allow(unsafe_code)]
                Kernel::Avx2 => unsafe { avx2::tile(&group, x, t, &mut sums) },
                Kernel::Portable => portable_tile(&group, x, t, tile, &mut sums),
            }
            for (j, lanes) in sums.iter().take(tile).enumerate() {
                let at = (t + j) * width + column;
                out[at..at + LANES].copy_from_slice(lanes);
            }
            t += tile;
        }
    }
}

/// One row group's part of an [`Int8Matrix`].
struct GroupView<'a> {
    values: &'a [i8],
    scales: &'a [f32],
    offsets: &'a [i32],
    blocks: usize,
}

/// Activation rows quantized block by block: unsigned bytes (the value plus
/// [`OFFSET`]) and a scale per block, padded with zero rows to whole tiles, so that the
/// vector kernel runs the last, partial tile too (a token scored alone is one).
struct Activations {
    /// Rows of the input; `values` and `scales` hold them rounded up to whole tiles.
    rows: usize,
    blocks: usize,
    /// `[row][block · BLOCK]`.
    values: Vec<u8>,
    /// `[row][block]`.
    scales: Vec<f32>,
}

impl Activations {
    fn quantize(x: &[f32], rows: usize, cols: usize, blocks: usize) -> Self {
        let width = blocks * BLOCK;
        let stored = rows.div_ceil(TILE) * TILE;
        let mut values = vec![OFFSET as u8; stored * width];
        let mut scales = vec![0.0f32; stored * blocks];
        values
            .par_chunks_mut(width)
            .zip(scales.par_chunks_mut(blocks))
            .zip(x.par_chunks(cols.max(1)))
            .for_each(|((values, scales), row)| {
                let mut padded = [0.0f32; BLOCK];
                let mut q = [0i8; BLOCK];
                for (b, scale) in scales.iter_mut().enumerate() {
                    let part = &row[b * BLOCK..cols.min((b + 1) * BLOCK)];
                    padded.fill(0.0);
                    padded[..part.len()].copy_from_slice(part);
                    *scale = quantize_block(&padded, &mut q);
                    for (v, &q) in values[b * BLOCK..(b + 1) * BLOCK].iter_mut().zip(&q) {
                        *v = (i32::from(q) + OFFSET) as u8;
                    }
                }
            });
        Self {
            rows,
            blocks,
            values,
            scales,
        }
    }
}

/// Rows `t..t + tile` of `x` against one row group, in plain Rust: the same integer sums
/// and the same float operations, in the same order, as the vector kernel.
fn portable_tile(
    group: &GroupView<'_>,
    x: &Activations,
    t: usize,
    tile: usize,
    sums: &mut [[f32; LANES]; TILE],
) {
    let width = x.blocks * BLOCK;
    for (j, lanes) in sums.iter_mut().enumerate().take(tile) {
        let row = &x.values[(t + j) * width..(t + j + 1) * width];
        for b in 0..group.blocks {
            let x_scale = x.scales[(t + j) * x.blocks + b];
            for (lane, sum) in lanes.iter_mut().enumerate() {
                let mut acc = group.offsets[b * LANES + lane];
                for step in 0..BLOCK / STEP {
                    let at = ((b * (BLOCK / STEP) + step) * LANES + lane) * STEP;
                    let w = &group.values[at..at + STEP];
                    let xs = &row[b * BLOCK + step * STEP..b * BLOCK + (step + 1) * STEP];
                    for (&w, &x) in w.iter().zip(xs) {
                        acc += i32::from(w) * i32::from(x);
                    }
                }
                let scale = group.scales[b * LANES + lane] * x_scale;
                *sum = (acc as f32).mul_add(scale, *sum);
            }
        }
    }
}

/// Which kernel multiplies: the widest this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// AVX-512 with VNNI: 16 rows' four-byte dot products in one instruction.
    #[cfg(target_arch = "x86_64")]
    Vnni,
    /// AVX2 and FMA: eight rows a vector, the dot products in 16-bit pairs then 32 bits.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// Plain Rust.
    Portable,
}

impl Kernel {
    /// The widest kernel this CPU runs.
    fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512bw") && has!("avx512vnni") {
                return Self::Vnni;
            }
            if has!("avx2") && has!("fma") {
                return Self::Avx2;
            }
        }
        Self::Portable
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod vnni {
    use std::arch::x86_64::*;

    use super::{Activations, GroupView, BLOCK, LANES, STEP, TILE};

    /// [`TILE`] activation rows from `t` against one row group: for every block, eight
    /// multiply-adds of four broadcast activation bytes against sixteen rows' four weights,
    /// then the block's integer sums scaled into the float sums.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512 F, BW and VNNI, and rows `t..t + TILE` must exist.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn tile(
        group: &GroupView<'_>,
        x: &Activations,
        t: usize,
        sums: &mut [[f32; LANES]; TILE],
    ) {
        let width = x.blocks * BLOCK;
        let rows: [&[u8]; TILE] =
            std::array::from_fn(|j| &x.values[(t + j) * width..(t + j + 1) * width]);
        let mut total = [_mm512_setzero_ps(); TILE];
        for b in 0..group.blocks {
            // SAFETY (of the loads): each reads 64 bytes at offsets within the group's
            // slices, whose lengths are whole blocks of LANES × BLOCK values.
            let start = _mm512_loadu_si512(group.offsets[b * LANES..].as_ptr().cast());
            let mut acc = [start; TILE];
            for step in 0..BLOCK / STEP {
                let at = (b * (BLOCK / STEP) + step) * LANES * STEP;
                let w = _mm512_loadu_si512(group.values[at..at + LANES * STEP].as_ptr().cast());
                let k = b * BLOCK + step * STEP;
                for (acc, row) in acc.iter_mut().zip(&rows) {
                    // SAFETY: `k + STEP ≤ width`, the row's length; an unaligned read of
                    // four bytes, broadcast to every lane in one instruction.
                    let four = unsafe { row.as_ptr().add(k).cast::<i32>().read_unaligned() };
                    *acc = _mm512_dpbusd_epi32(*acc, _mm512_set1_epi32(four), w);
                }
            }
            let w_scale = _mm512_loadu_ps(group.scales[b * LANES..].as_ptr());
            for (j, (total, acc)) in total.iter_mut().zip(&acc).enumerate() {
                let x_scale = _mm512_set1_ps(x.scales[(t + j) * x.blocks + b]);
                let scale = _mm512_mul_ps(w_scale, x_scale);
                *total = _mm512_fmadd_ps(_mm512_cvtepi32_ps(*acc), scale, *total);
            }
        }
        for (sum, total) in sums.iter_mut().zip(&total) {
            _mm512_storeu_ps(sum.as_mut_ptr(), *total);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{Activations, GroupView, BLOCK, LANES, STEP, TILE};

    /// [`TILE`] activation rows from `t` against one row group, eight rows a vector: for
    /// every block, each four-input step as 16-bit products of |w| and x carrying w's
    /// sign (at most 2 · 127², so no pair saturates), summed pairwise into 32 bits; then
    /// the block's integer sums scaled into the float sums as the other kernels do.
    ///
    /// The activations are stored offset ([`super::OFFSET`]) for the VNNI kernel; their
    /// signed values are the bytes with the top bit flipped, so the sums here are of the
    /// signed values and start at zero, where VNNI's start at the offset's correction:
    /// the same integers.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 and FMA, and rows `t..t + TILE` must exist.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile(
        group: &GroupView<'_>,
        x: &Activations,
        t: usize,
        sums: &mut [[f32; LANES]; TILE],
    ) {
        const HALF: usize = LANES / 2;
        let width = x.blocks * BLOCK;
        let rows: [&[u8]; TILE] =
            std::array::from_fn(|j| &x.values[(t + j) * width..(t + j + 1) * width]);
        let ones = _mm256_set1_epi16(1);
        let flip = _mm256_set1_epi8(i8::MIN);
        let mut total = [[_mm256_setzero_ps(); 2]; TILE];
        for b in 0..group.blocks {
            let mut acc = [[_mm256_setzero_si256(); 2]; TILE];
            for step in 0..BLOCK / STEP {
                let at = (b * (BLOCK / STEP) + step) * LANES * STEP;
                let k = b * BLOCK + step * STEP;
                for half in 0..2 {
                    let from = at + half * HALF * STEP;
                    // SAFETY (of the load): 32 bytes within the group's slice, whose
                    // length is whole blocks of LANES × BLOCK values.
                    let w =
                        _mm256_loadu_si256(group.values[from..from + HALF * STEP].as_ptr().cast());
                    let magnitude = _mm256_sign_epi8(w, w);
                    for (acc, row) in acc.iter_mut().zip(&rows) {
                        // SAFETY: `k + STEP ≤ width`, the row's length; an unaligned
                        // read of four bytes.
                        let four = unsafe { row.as_ptr().add(k).cast::<i32>().read_unaligned() };
                        let x = _mm256_xor_si256(_mm256_set1_epi32(four), flip);
                        let pairs = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(x, w));
                        let quads = _mm256_madd_epi16(pairs, ones);
                        acc[half] = _mm256_add_epi32(acc[half], quads);
                    }
                }
            }
            for half in 0..2 {
                let from = b * LANES + half * HALF;
                let w_scale = _mm256_loadu_ps(group.scales[from..from + HALF].as_ptr());
                for (j, (total, acc)) in total.iter_mut().zip(&acc).enumerate() {
                    let x_scale = _mm256_set1_ps(x.scales[(t + j) * x.blocks + b]);
                    let scale = _mm256_mul_ps(w_scale, x_scale);
                    let exact = _mm256_cvtepi32_ps(acc[half]);
                    total[half] = _mm256_fmadd_ps(exact, scale, total[half]);
                }
            }
        }
        for (sum, total) in sums.iter_mut().zip(&total) {
            _mm256_storeu_ps(sum[..HALF].as_mut_ptr(), total[0]);
            _mm256_storeu_ps(sum[HALF..].as_mut_ptr(), total[1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};

    /// [`product_fingerprint`] of `the_rounding_is_version_1`'s product under version 1.
    const FINGERPRINT_V1: u64 = 0xb021_99e3_1f36_1822;

    fn matrix(rows: usize, cols: usize, seed: usize) -> Vec<f32> {
        (0..rows * cols)
            .map(|i| (((i + seed) * 7919) % 1000) as f32 / 1000.0 - 0.5)
            .collect()
    }

    #[test]
    fn the_product_matches_f32_within_the_rounding_of_both_sides() {
        let dev = Default::default();
        // Rows not a whole number of groups or tasks, inputs not of blocks, activation
        // rows not of tiles.
        let (rows, cols, n) = (1000, 600, 7);
        let w = matrix(rows, cols, 0);
        let m = Int8Matrix::from_f32(&w, rows, cols);
        let x_values: Vec<f32> = (0..n * cols)
            .map(|i| (i % 13) as f32 / 13.0 - 0.4)
            .collect();
        let x = Tensor::<TestBackend, 2>::from_data(TensorData::new(x_values, [n, cols]), &dev);
        let full = Tensor::<TestBackend, 2>::from_data(TensorData::new(w, [rows, cols]), &dev);
        let want = x.clone().matmul(full.clone().transpose());
        let got = m.product(x);
        assert_eq!(got.dims(), [n, rows]);
        // Each weight moves by at most 0.5/254, each activation by 0.6/254; 600 terms.
        let bound = 600.0 * (0.6 * 0.5 / 254.0 + 0.5 * 0.6 / 254.0);
        assert_close(got.into_data(), want.into_data(), bound);
        let ids = Tensor::<TestBackend, 1, Int>::from_data([5, 999, 5], &dev);
        assert_close(
            m.gather(ids.clone()).into_data(),
            full.select(0, ids).into_data(),
            0.5 / 254.0,
        );
    }

    /// FNV-1a of the bits of a product: a change in any rounding changes it.
    fn product_fingerprint(values: &[f32]) -> u64 {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        crate::weights::fnv1a(&bytes)
    }

    #[test]
    fn the_rounding_is_version_1() {
        let dev = Default::default();
        let (rows, cols, n) = (40, 96, 3);
        let m = Int8Matrix::from_f32(&matrix(rows, cols, 3), rows, cols);
        let x_values: Vec<f32> = (0..n * cols).map(|i| (i % 17) as f32 / 9.0 - 0.8).collect();
        let x = Tensor::<TestBackend, 2>::from_data(TensorData::new(x_values, [n, cols]), &dev);
        let got = m.product(x).into_data().to_vec::<f32>().expect("f32");
        assert_eq!(
            (ROUNDING_VERSION, product_fingerprint(&got)),
            (1, FINGERPRINT_V1),
            "the int8 rounding changed: bump ROUNDING_VERSION (cached int8 scores are keyed \
             by it) and record this product's fingerprint for the new version"
        );
    }

    #[test]
    fn the_vector_kernels_and_the_portable_one_give_the_same_bits() {
        // Seven activation rows: a whole tile and a partial one. Extreme values, so that
        // blocks hold ±127 on both sides (the largest products) and zeros.
        let (rows, cols, n) = (48, 96, 7);
        let mut w = matrix(rows, cols, 3);
        w[4..6].fill(40.0);
        w[cols + 8..cols + 10].fill(-40.0);
        w[2 * cols..2 * cols + 32].fill(0.0);
        let m = Int8Matrix::from_f32(&w, rows, cols);
        let mut xs = matrix(n, cols, 11);
        // Against the rows above: pairs of ±127 · ±127, the most a 16-bit pair holds.
        xs[4..6].fill(-9.0);
        xs[cols + 8..cols + 10].fill(-9.0);
        let x = Activations::quantize(&xs, n, cols, m.blocks);
        let run = |kernel: Kernel| {
            let mut out = vec![0.0f32; n * rows];
            for g in 0..rows / LANES {
                m.group_product(g, &x, kernel, &mut out, rows, g * LANES);
            }
            out
        };
        let portable = run(Kernel::Portable);
        let same = |vector: Vec<f32>| {
            vector
                .iter()
                .zip(&portable)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        };
        #[cfg(target_arch = "x86_64")]
        {
            let detected = Kernel::detect();
            assert!(
                detected != Kernel::Portable,
                "this test compares the vector kernels with the portable one: run it on an \
                 x86-64 CPU with AVX2 and FMA (and AVX-512 VNNI for that kernel)"
            );
            assert!(same(run(Kernel::Avx2)), "AVX2");
            if detected == Kernel::Vnni {
                assert!(same(run(Kernel::Vnni)), "AVX-512 VNNI");
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert!(same(run(Kernel::Portable)));
    }

    #[test]
    fn small_values_round_to_the_nearest_integer_halves_to_even() {
        for x in [
            0.4,
            0.5,
            0.499_999_97,
            0.6,
            2.5,
            -126.7,
            -0.5,
            -0.4,
            126.49,
            127.0,
        ] {
            assert_eq!(round_small(x) as f32, x.round_ties_even(), "{x}");
        }
    }

    #[test]
    fn a_non_finite_activation_makes_its_outputs_nan() {
        let (rows, cols) = (16, 64);
        let m = Int8Matrix::from_f32(&matrix(rows, cols, 1), rows, cols);
        let mut x = matrix(2, cols, 5);
        x[cols + 40] = f32::INFINITY;
        let out = m.product_host(&Activations::quantize(&x, 2, cols, m.blocks));
        assert!(out[..rows].iter().all(|v| v.is_finite()));
        assert!(out[rows..].iter().all(|v| v.is_nan()));
    }
}
