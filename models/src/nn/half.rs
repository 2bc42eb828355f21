//! Weights held as f16 on the host and multiplied in f32, a panel of output columns at a
//! time: half the memory of f32 weights on the CPU backend, for the cost of widening every
//! weight once a pass (on a 1.5B model, 0.5 to 0.8 times the f32 rate: docs/results.md, "Weight storage").
//!
//! A panel's weights are widened into a buffer small enough to stay in cache, and the
//! backend's f32 product runs on it, so activations and sums stay f32; only each weight
//! is rounded, once, to f16 (relative error 2⁻¹¹, far below a 4- to 8-bit quantization's).

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};
use half::f16;
use half::slice::HalfFloatSliceExt;
use rayon::prelude::*;

use super::host_matrix::gather_rows;

/// Floats in one widened panel: 2 MiB, within a core's L2 cache on current CPUs.
const PANEL_FLOATS: usize = 1 << 19;

/// A matrix `M` of `rows × cols` f16 values, the weight of `x ↦ x Mᵀ`: each row holds one
/// output's weights over every input (as GGUF and Hugging Face store them, and as an
/// embedding holds a token's vector).
///
/// Stored by panels of `panel` rows, each panel transposed (`[cols, n]`, input-major), so
/// that a widened panel is already the right-hand side of the product and needs no copy.
pub(crate) struct HalfMatrix {
    rows: usize,
    cols: usize,
    panel: usize,
    data: Vec<f16>,
}

impl std::fmt::Debug for HalfMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HalfMatrix [{}, {}]", self.rows, self.cols)
    }
}

impl HalfMatrix {
    /// `values`, `rows × cols` row-major, rounded to f16.
    ///
    /// # Panics
    ///
    /// When `values` does not hold `rows × cols` numbers (a builder's bug, not input).
    pub(crate) fn from_f32(values: &[f32], rows: usize, cols: usize) -> Self {
        assert_eq!(values.len(), rows * cols, "a [{rows}, {cols}] matrix");
        let panel = (PANEL_FLOATS / cols.max(1)).clamp(16, rows.max(16));
        let mut data = vec![f16::ZERO; values.len()];
        data.par_chunks_mut(panel * cols)
            .zip(values.par_chunks(panel * cols))
            .for_each(|(out, rows_in)| {
                let n = out.len() / cols.max(1);
                for (r, row) in rows_in.chunks_exact(cols).enumerate() {
                    for (i, &v) in row.iter().enumerate() {
                        out[i * n + r] = f16::from_f32(v);
                    }
                }
            });
        Self {
            rows,
            cols,
            panel,
            data,
        }
    }

    /// Number of rows (outputs of the product).
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Row `i` widened to f32: column `i % panel` of its panel.
    fn row_into(&self, i: usize, out: &mut [f32]) {
        let first = i - i % self.panel;
        let n = self.panel.min(self.rows - first);
        let block = &self.data[first * self.cols..(first + n) * self.cols];
        for (value, &h) in out.iter_mut().zip(block[i - first..].iter().step_by(n)) {
            *value = h.to_f32();
        }
    }

    /// The rows named by `ids` (token ids, checked against the vocabulary before any
    /// pass), widened: `[ids, cols]`.
    pub(crate) fn gather<B: Backend>(&self, ids: Tensor<B, 1, Int>) -> Tensor<B, 2> {
        gather_rows(ids, self.rows, self.cols, |i, row| self.row_into(i, row))
    }

    /// `x Mᵀ`: `[n, cols]` → `[n, rows]`, in f32.
    pub(crate) fn product<B: Backend>(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let device = x.device();
        // Panels are widened a few at a time side by side (one per thread), then multiplied
        // in turn by the product's own threads.
        let blocks: Vec<&[f16]> = self.data.chunks(self.panel * self.cols).collect();
        let mut parts = Vec::with_capacity(blocks.len());
        for group in blocks.chunks(rayon::current_num_threads().max(1)) {
            let widened: Vec<Vec<f32>> = group
                .par_iter()
                .map(|block| {
                    let mut out = vec![0.0f32; block.len()];
                    block.convert_to_f32_slice(&mut out);
                    out
                })
                .collect();
            for w in widened {
                let n = w.len() / self.cols;
                let w = Tensor::<B, 2>::from_data(TensorData::new(w, [self.cols, n]), &device);
                parts.push(x.clone().matmul(w));
            }
        }
        Tensor::cat(parts, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};

    #[test]
    fn the_product_and_gather_match_f32_within_f16_rounding() {
        let dev = Default::default();
        let (rows, cols) = (1000, 600);
        let w: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5)
            .collect();
        let m = HalfMatrix::from_f32(&w, rows, cols);
        assert!(
            m.panel < rows && rows % m.panel != 0,
            "several panels, the last short"
        );
        let x_values: Vec<f32> = (0..3 * cols)
            .map(|i| (i % 13) as f32 / 13.0 - 0.4)
            .collect();
        let x = Tensor::<TestBackend, 2>::from_data(TensorData::new(x_values, [3, cols]), &dev);
        let full = Tensor::<TestBackend, 2>::from_data(TensorData::new(w, [rows, cols]), &dev);
        let want = x.clone().matmul(full.clone().transpose());
        let got = m.product(x);
        assert_eq!(got.dims(), [3, rows]);
        // Each weight moves by at most 2⁻¹² of itself (|w| ≤ 0.5); 600 terms of |x| < 0.6.
        assert_close(
            got.into_data(),
            want.into_data(),
            600.0 * 0.6 * 0.5 / 4096.0,
        );
        let ids = Tensor::<TestBackend, 1, Int>::from_data([5, 999, 5], &dev);
        let rows_got = m.gather(ids.clone());
        assert_close(
            rows_got.into_data(),
            full.select(0, ids).into_data(),
            0.5 / 2048.0,
        );
    }
}
