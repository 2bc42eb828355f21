//! Element-wise work fused into one pass on the host, for the CPU backend.
//!
//! The CPU backend runs each tensor operation as its own pass over memory, with a scalar
//! `expf` per element; an attention softmax written as tensor operations (subtract the
//! maximum, exponentiate, sum, divide) is five such passes and four fresh buffers. On the
//! CPU a tensor's buffer is already host memory, and a contiguous tensor that nobody else
//! holds turns into its data and back without a copy, so these kernels take the buffer,
//! do the whole thing in one pass with the vectorised exponential of [`crate::softmax`],
//! and hand it back. On any other backend (CUDA, or autodiff while training) the
//! callers keep their tensor operations: there a round trip through host memory would
//! cost a transfer, or lose the gradient.

use std::any::TypeId;

use burn::tensor::backend::Backend;
use burn::tensor::{DType, Tensor, TensorData};
use rayon::prelude::*;

use crate::backend::Cpu;
use crate::softmax::exp_nonpositive;

/// Whether these kernels may take over `tensors`: they are the CPU backend's and hold
/// `f32`. Whoever takes them should hold no other handle on them (no clone), or their
/// buffers are copied rather than taken.
pub(crate) fn on_host<B: Backend, const D: usize>(tensors: &[&Tensor<B, D>]) -> bool {
    backend_on_host::<B>() && tensors.iter().all(|t| t.dtype() == DType::F32)
}

/// Whether `B` is the CPU backend, whose tensors these kernels may take over.
pub(crate) fn backend_on_host<B: Backend>() -> bool {
    TypeId::of::<B>() == TypeId::of::<Cpu>()
}

/// A tensor's values, taken without a copy where nothing else holds them. After
/// [`on_host`] this cannot fail; were it to, NaN values stand in, which scoring refuses
/// as a model computing NaN rather than reading a wrong number.
fn take_values<B: Backend, const D: usize>(tensor: Tensor<B, D>) -> Vec<f32> {
    let n = tensor.shape().num_elements();
    tensor
        .into_data()
        .into_vec::<f32>()
        .unwrap_or_else(|_| vec![f32::NAN; n])
}

/// Values per pass of the exponential: one AVX-512 register of `f32`.
const LANES: usize = 16;

/// Rows worth a rayon task of their own (a row is a few hundred values).
const ROWS_PER_TASK: usize = 16;

/// `exp(x)` for `x ≤ 0`, exactly 0 below −87 (a masked `-inf` score included), where
/// [`exp_nonpositive`] stops at `exp(−87)`.
#[inline(always)]
fn exp_or_zero(x: f32) -> f32 {
    let e = exp_nonpositive(x);
    if x < -87.0 {
        0.0
    } else {
        e
    }
}

/// The softmax of each row, where row `r` is row `r` of `left` (`left_width` wide)
/// followed by row `r` of `right` (`right_width` wide), written in place: attention
/// over two sets of keys normalised together. Both widths must be at least 1.
fn softmax_split_rows(left: &mut [f32], left_width: usize, right: &mut [f32], right_width: usize) {
    left.par_chunks_mut(left_width * ROWS_PER_TASK)
        .zip(right.par_chunks_mut(right_width * ROWS_PER_TASK))
        .for_each(|(l, r)| {
            pulp::Arch::new().dispatch(
                #[inline(always)]
                || {
                    let rows = l.chunks_mut(left_width).zip(r.chunks_mut(right_width));
                    for (lrow, rrow) in rows {
                        softmax_pair(lrow, rrow);
                    }
                },
            )
        });
}

/// [`softmax_split_rows`] of one row. Each part runs through plain loops over [`LANES`]
/// values at a time, which the compiler turns into vector instructions.
#[inline(always)]
fn softmax_pair(left: &mut [f32], right: &mut [f32]) {
    let max = lanes_max(left);
    let max = max.max(lanes_max(right));
    let sum = exp_in_place(left, max) + exp_in_place(right, max);
    let scale = 1.0 / sum;
    for x in left.iter_mut() {
        *x *= scale;
    }
    for x in right.iter_mut() {
        *x *= scale;
    }
}

/// The largest of `values` (`-inf` for none).
#[inline(always)]
fn lanes_max(values: &[f32]) -> f32 {
    let mut top = [f32::NEG_INFINITY; LANES];
    let chunks = values.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (m, &x) in top.iter_mut().zip(chunk) {
            *m = if x > *m { x } else { *m };
        }
    }
    top.iter()
        .chain(tail)
        .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m })
}

/// Replaces each value by `exp(value − max)` and returns their sum.
#[inline(always)]
fn exp_in_place(values: &mut [f32], max: f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let mut chunks = values.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        for (a, x) in acc.iter_mut().zip(chunk.iter_mut()) {
            *x = exp_or_zero(*x - max);
            *a += *x;
        }
    }
    let mut sum = 0.0f32;
    for x in chunks.into_remainder() {
        *x = exp_or_zero(*x - max);
        sum += *x;
    }
    sum + acc.iter().sum::<f32>()
}

/// `silu(gate) * up` element by element, written into `gate`.
fn silu_mul_in_place(gate: &mut [f32], up: &[f32]) {
    gate.par_chunks_mut(LANES * 256)
        .zip(up.par_chunks(LANES * 256))
        .for_each(|(g, u)| {
            pulp::Arch::new().dispatch(
                #[inline(always)]
                || {
                    for (x, &y) in g.iter_mut().zip(u) {
                        // sigmoid(x) from exp(−|x|), which never overflows.
                        let e = exp_nonpositive(-x.abs());
                        let sigmoid = if *x >= 0.0 {
                            1.0 / (1.0 + e)
                        } else {
                            e / (1.0 + e)
                        };
                        *x = *x * sigmoid * y;
                    }
                },
            )
        });
}

/// Softmax over the keys of `left` and `right` together, row by row (see
/// [`softmax_split_rows`]), on the host. Call only where [`on_host`] holds and both
/// widths are at least 1.
///
/// # Shapes
///
/// `left`: `[rows, a]`, `right`: `[rows, b]` → the same.
pub(crate) fn softmax_split<B: Backend>(
    left: Tensor<B, 2>,
    right: Tensor<B, 2>,
) -> (Tensor<B, 2>, Tensor<B, 2>) {
    let device = left.device();
    let (ls, rs) = (left.dims(), right.dims());
    let (mut l, mut r) = (take_values(left), take_values(right));
    softmax_split_rows(&mut l, ls[1], &mut r, rs[1]);
    let back =
        |v: Vec<f32>, shape: [usize; 2]| Tensor::from_data(TensorData::new(v, shape), &device);
    (back(l, ls), back(r, rs))
}

/// `silu(gate) * up` on the host. Call only where [`on_host`] holds.
pub(crate) fn silu_mul<B: Backend>(gate: Tensor<B, 2>, up: Tensor<B, 2>) -> Tensor<B, 2> {
    let device = gate.device();
    let shape = gate.dims();
    let mut g = take_values(gate);
    silu_mul_in_place(&mut g, &take_values(up));
    Tensor::from_data(TensorData::new(g, shape), &device)
}

/// Cosine and sine tables of a pass as host values, for [`rope`]: laid out like the
/// query and key projections' outputs (see `Rotary`).
pub(crate) struct HostRope {
    /// `[rows, heads * head_dim]`, the attention scale folded in.
    pub(crate) cos_q: Vec<f32>,
    /// See `cos_q`.
    pub(crate) sin_q: Vec<f32>,
    /// `[rows, kv_heads * head_dim]`.
    pub(crate) cos_k: Vec<f32>,
    /// See `cos_k`.
    pub(crate) sin_k: Vec<f32>,
}

/// The rotary embedding of a projection's output rows, `x ⊙ cos + rotate_half(x) ⊙ sin`
/// per head of width `head_dim`, on the host: `rotate_half` read straight from `x`, where
/// other backends multiply by a second, rotated copy of the projection. Call only where
/// [`on_host`] holds; `cos` and `sin` are laid out like `x`.
pub(crate) fn rope<B: Backend>(
    x: Tensor<B, 2>,
    cos: &[f32],
    sin: &[f32],
    head_dim: usize,
) -> Tensor<B, 2> {
    let device = x.device();
    let shape = x.dims();
    let mut v = take_values(x);
    let half = head_dim / 2;
    pulp::Arch::new().dispatch(
        #[inline(always)]
        || {
            let heads = v
                .chunks_exact_mut(head_dim)
                .zip(cos.chunks_exact(head_dim).zip(sin.chunks_exact(head_dim)));
            for (head, (c, s)) in heads {
                let (lo, hi) = head.split_at_mut(half);
                let (c_lo, c_hi) = c.split_at(half);
                let (s_lo, s_hi) = s.split_at(half);
                for i in 0..half {
                    let (a, b) = (lo[i], hi[i]);
                    lo[i] = a * c_lo[i] - b * s_lo[i];
                    hi[i] = b * c_hi[i] + a * s_hi[i];
                }
            }
        },
    );
    Tensor::from_data(TensorData::new(v, shape), &device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};
    use burn::tensor::activation::{silu, softmax};

    fn values(n: usize, seed: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (((i + seed) * 7919 % 1000) as f32 - 500.0) * 0.02)
            .collect()
    }

    #[test]
    fn the_cpu_backend_is_on_the_host_and_autodiff_is_not() {
        let dev = Default::default();
        let t = Tensor::<TestBackend, 1>::from_data([1.0f32], &dev);
        assert!(on_host(&[&t]));
        let a = Tensor::<burn_autodiff::Autodiff<TestBackend>, 1>::from_data([1.0f32], &dev);
        assert!(!on_host(&[&a]));
    }

    #[test]
    fn a_split_softmax_is_the_softmax_of_the_joined_rows() {
        let dev = Default::default();
        // Widths around the lane count, a masked key, a row masked but for one key.
        for (rows, a, b) in [(1, 1, 1), (3, 15, 17), (40, 16, 33), (5, 300, 2)] {
            let mut right = values(rows * b, 1);
            right[0] = f32::NEG_INFINITY;
            let left = values(rows * a, 2);
            let l = Tensor::<TestBackend, 2>::from_data(TensorData::new(left, [rows, a]), &dev);
            let r = Tensor::<TestBackend, 2>::from_data(TensorData::new(right, [rows, b]), &dev);
            let joined = softmax(Tensor::cat(vec![l.clone(), r.clone()], 1), 1);
            let (pl, pr) = softmax_split(l, r);
            assert_close(
                Tensor::cat(vec![pl, pr], 1).into_data(),
                joined.into_data(),
                1e-6,
            );
        }
    }

    #[test]
    fn masked_keys_get_exactly_nothing() {
        let dev = Default::default();
        let l = Tensor::<TestBackend, 2>::from_data([[f32::NEG_INFINITY, 0.0]], &dev);
        let r = Tensor::<TestBackend, 2>::from_data([[f32::NEG_INFINITY]], &dev);
        let (pl, pr) = softmax_split(l, r);
        assert_eq!(pl.into_data().to_vec::<f32>().unwrap(), vec![0.0, 1.0]);
        assert_eq!(pr.into_data().to_vec::<f32>().unwrap(), vec![0.0]);
    }

    #[test]
    fn silu_times_up_matches_the_tensor_operations() {
        let dev = Default::default();
        let n = 3 * 1537;
        let mut gate = values(n, 3);
        gate[0] = 100.0;
        gate[1] = -100.0;
        let g = Tensor::<TestBackend, 2>::from_data(TensorData::new(gate, [3, 1537]), &dev);
        let u = Tensor::<TestBackend, 2>::from_data(TensorData::new(values(n, 4), [3, 1537]), &dev);
        let expected = silu(g.clone()) * u.clone();
        let got = silu_mul(g, u);
        assert_close(got.into_data(), expected.into_data(), 2e-4);
    }
}
