//! Rotary position embeddings, in the rotate-half layout, applied without slicing.
//!
//! `rope(x) = x ⊙ cos + rotate_half(x) ⊙ sin`, where dimension `i` of a head pairs with
//! `i + d/2` (Hugging Face's layout; GGUF `llama` weights are converted to it at load) and
//! turns by `position · theta^(-2k/d)` for frequency index `k = i mod d/2`.
//!
//! `rotate_half` is linear, so the model folds it into a second copy of the query and key
//! projections ([`rotate_half_columns`]); a forward pass then only multiplies and adds
//! whole contiguous tensors, with cosine and sine tables laid out like the projections'
//! outputs ([`Rope::values_at`]). Slicing and concatenating along a head's width, which costs
//! a strided copy per operation on the CPU backend, is avoided. The CPU backend itself
//! does without the twins: it reads `rotate_half` straight from the projection's output
//! on the host ([`super::host::rope`]), a pass over memory instead of a second product;
//! the twins serve the other backends, and training, whose gradients need tensor
//! operations.

use std::sync::Arc;

use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

/// Host-side cosine and sine of every position below `max_len` and every frequency.
/// Cloning is cheap (the tables are shared), as a model is cloned to attach LoRA branches.
#[derive(Clone, Debug)]
pub(crate) struct Rope {
    head_dim: usize,
    max_len: usize,
    /// `[max_len, head_dim]`, each half repeating the `d/2` frequencies.
    cos: Arc<[f32]>,
    /// `[max_len, head_dim]`.
    sin: Arc<[f32]>,
}

impl Rope {
    /// Tables for heads of width `head_dim` and positions below `max_len`.
    pub(crate) fn new(head_dim: usize, max_len: usize, theta: f64) -> Self {
        let half = head_dim / 2;
        let mut cos = Vec::with_capacity(max_len * head_dim);
        let mut sin = Vec::with_capacity(max_len * head_dim);
        for pos in 0..max_len {
            for i in 0..head_dim {
                let k = (i % half) as f64;
                let angle = pos as f64 * theta.powf(-2.0 * k / head_dim as f64);
                cos.push(angle.cos() as f32);
                sin.push(angle.sin() as f32);
            }
        }
        Self {
            head_dim,
            max_len,
            cos: cos.into(),
            sin: sin.into(),
        }
    }

    /// Longest sequence the tables cover.
    pub(crate) fn max_len(&self) -> usize {
        self.max_len
    }

    /// Width of one head.
    pub(crate) fn head_dim(&self) -> usize {
        self.head_dim
    }

    /// Cosines and sines for one row per entry of `positions`, each repeated over `heads`
    /// heads and multiplied by `scale`: laid out like a projection's output.
    ///
    /// # Shapes
    ///
    /// Both `[positions.len(), heads * head_dim]`, row-major.
    ///
    /// # Panics
    ///
    /// When a position is not below [`Rope::max_len`]; callers check the context length.
    pub(crate) fn values_at(
        &self,
        positions: &[usize],
        heads: usize,
        scale: f32,
    ) -> (Vec<f32>, Vec<f32>) {
        let d = self.head_dim;
        let build = |table: &[f32]| {
            let mut out = Vec::with_capacity(positions.len() * heads * d);
            for &p in positions {
                let row = &table[p * d..(p + 1) * d];
                for _ in 0..heads {
                    out.extend(row.iter().map(|&x| x * scale));
                }
            }
            out
        };
        (build(&self.cos), build(&self.sin))
    }
}

/// The columns of a projection `[in, heads * d]` (row-major, output heads side by side)
/// with `rotate_half` applied to each head's outputs: column `i < d/2` of a head becomes
/// minus column `i + d/2`, column `i ≥ d/2` becomes column `i - d/2`.
pub(crate) fn rotate_half_columns(w: &[f32], heads: usize, d: usize) -> Vec<f32> {
    let width = heads * d;
    let half = d / 2;
    let mut out = vec![0.0; w.len()];
    for (src, dst) in w.chunks_exact(width).zip(out.chunks_exact_mut(width)) {
        for h in 0..heads {
            let (s, o) = (&src[h * d..(h + 1) * d], &mut dst[h * d..(h + 1) * d]);
            for i in 0..half {
                o[i] = -s[i + half];
                o[i + half] = s[i];
            }
        }
    }
    out
}

/// [`rotate_half_columns`] on the tensor of a projection's output rows (say a LoRA `B`,
/// `[heads * d, cols]`): row `i < d/2` of a head becomes minus row `i + d/2`, row
/// `i ≥ d/2` becomes row `i - d/2`. Built from tensor operations, so that gradients
/// flow through it.
///
/// # Shapes
///
/// `t`: `[heads * d, cols]` → same.
pub(crate) fn rotate_half_rows<B: Backend>(t: Tensor<B, 2>, heads: usize) -> Tensor<B, 2> {
    let [rows, cols] = t.dims();
    let half = rows / heads / 2;
    let halves = t.reshape([heads, 2, half, cols]);
    let first = halves.clone().narrow(1, 0, 1);
    let second = halves.narrow(1, 1, 1);
    Tensor::cat(vec![second.neg(), first], 1).reshape([rows, cols])
}

/// Applies the rotation given the projection `x`, its rotate-half twin `x_rot` and the
/// tables of [`Rope::values_at`] as tensors.
///
/// # Shapes
///
/// All `[rows, heads * head_dim]` → same.
pub(crate) fn apply<B: Backend>(
    x: Tensor<B, 2>,
    x_rot: Tensor<B, 2>,
    cos: &Tensor<B, 2>,
    sin: &Tensor<B, 2>,
) -> Tensor<B, 2> {
    x * cos.clone() + x_rot * sin.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};
    use burn::tensor::TensorData;

    #[test]
    fn rotates_pairs_by_position() {
        let dev = Default::default();
        let theta = 100.0;
        let rope = Rope::new(4, 8, theta);
        // One head; positions 3 and 4; x = (1, 2, 3, 4): pairs (1,3) and (2,4).
        let x = [1.0f32, 2.0, 3.0, 4.0];
        let rows = [x, x].concat();
        let x_rot = rotate_half_columns(&rows, 1, 4);
        assert_eq!(&x_rot[..4], &[-3.0, -4.0, 1.0, 2.0]);
        let (cos, sin) = rope.values_at(&[3, 4], 1, 1.0);
        let t = |v: Vec<f32>| Tensor::<TestBackend, 2>::from_data(TensorData::new(v, [2, 4]), &dev);
        let y = apply(t(rows.clone()), t(x_rot), &t(cos.clone()), &t(sin.clone()));
        // The CPU's host rotation reads rotate_half from the rows themselves.
        let on_host = super::super::host::rope(t(rows), &cos, &sin, 4);
        let mut expected = Vec::new();
        for pos in [3.0f64, 4.0] {
            let a0 = pos;
            let a1 = pos * theta.powf(-0.5);
            let (c0, s0, c1, s1) = (a0.cos(), a0.sin(), a1.cos(), a1.sin());
            expected.extend([
                1.0 * c0 - 3.0 * s0,
                2.0 * c1 - 4.0 * s1,
                3.0 * c0 + 1.0 * s0,
                4.0 * c1 + 2.0 * s1,
            ]);
        }
        let expected = TensorData::new(
            expected.into_iter().map(|v| v as f32).collect::<Vec<_>>(),
            [2, 4],
        );
        assert_close(y.into_data(), expected.clone(), 1e-5);
        assert_close(on_host.into_data(), expected, 1e-5);
    }

    #[test]
    fn rows_rotate_as_columns_do() {
        let (heads, d, cols) = (2, 4, 3);
        let w: Vec<f32> = (0..cols * heads * d).map(|x| x as f32).collect();
        // `w` is `[cols, heads * d]`; its transpose's rows are `w`'s columns.
        let rows = crate::weights::transpose(&w, cols, heads * d);
        let t = Tensor::<TestBackend, 2>::from_data(
            TensorData::new(rows, [heads * d, cols]),
            &Default::default(),
        );
        let by_rows = rotate_half_rows(t, heads).into_data();
        let by_columns =
            crate::weights::transpose(&rotate_half_columns(&w, heads, d), cols, heads * d);
        assert_close(by_rows, TensorData::new(by_columns, [heads * d, cols]), 0.0);
    }

    #[test]
    fn tables_repeat_over_heads_and_rows() {
        let rope = Rope::new(2, 4, 10000.0);
        let (cos, sin) = rope.values_at(&[1, 2, 1], 3, 0.5);
        assert_eq!((cos.len(), sin.len()), (18, 18));
        let (c1, c2, s1) = (0.5 * 1f32.cos(), 0.5 * 2f32.cos(), 0.5 * 1f32.sin());
        assert!((cos[0] - c1).abs() < 1e-6 && (cos[5] - c1).abs() < 1e-6);
        assert!((cos[6] - c2).abs() < 1e-6 && (cos[12] - c1).abs() < 1e-6);
        assert!((sin[1] - s1).abs() < 1e-6);
    }
}
