//! Rotary position embeddings, in the rotate-half layout.

use burn::module::Module;
use burn::tensor::backend::Backend;
use burn::tensor::{Tensor, TensorData};

/// Precomputed cosines and sines for positions `0..max_len`.
///
/// Dimension `i` of a head is paired with dimension `i + d/2` (Hugging Face's layout; GGUF
/// `llama` weights are converted to it at load), and the pair at frequency index `k`
/// turns by `position * theta^(-2k/d)`.
#[derive(Module, Debug)]
pub(crate) struct Rope<B: Backend> {
    /// `[max_len, head_dim]`, each half repeating the `d/2` frequencies.
    cos: Tensor<B, 2>,
    /// `[max_len, head_dim]`.
    sin: Tensor<B, 2>,
}

impl<B: Backend> Rope<B> {
    /// Tables for heads of width `head_dim` and positions below `max_len`.
    pub(crate) fn new(head_dim: usize, max_len: usize, theta: f64, device: &B::Device) -> Self {
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
            cos: Tensor::from_data(TensorData::new(cos, [max_len, head_dim]), device),
            sin: Tensor::from_data(TensorData::new(sin, [max_len, head_dim]), device),
        }
    }

    /// Longest sequence the tables cover.
    pub(crate) fn max_len(&self) -> usize {
        self.cos.dims()[0]
    }

    /// Rotates `x`, whose sequence starts at position `offset`.
    ///
    /// # Shapes
    ///
    /// `x`: `[batch, heads, seq, head_dim]` → same.
    ///
    /// # Panics
    ///
    /// When `offset + seq` exceeds [`Rope::max_len`]; callers check the context length.
    pub(crate) fn apply(&self, x: Tensor<B, 4>, offset: usize) -> Tensor<B, 4> {
        let [_, _, seq, d] = x.dims();
        let half = d / 2;
        let cos = self
            .cos
            .clone()
            .narrow(0, offset, seq)
            .reshape([1, 1, seq, d]);
        let sin = self
            .sin
            .clone()
            .narrow(0, offset, seq)
            .reshape([1, 1, seq, d]);
        let lo = x.clone().narrow(3, 0, half);
        let hi = x.clone().narrow(3, half, half);
        let rotated = Tensor::cat(vec![hi.neg(), lo], 3);
        x * cos + rotated * sin
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};

    #[test]
    fn rotates_pairs_by_position() {
        let dev = Default::default();
        let theta = 100.0;
        let rope = Rope::<TestBackend>::new(4, 8, theta, &dev);
        // One head, positions 3 and 4 (offset 3), x = (1, 2, 3, 4): pairs (1,3) and (2,4).
        let x = Tensor::<TestBackend, 4>::from_data([[[[1.0, 2.0, 3.0, 4.0]; 2]]], &dev);
        let y = rope.apply(x, 3);
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
        let expected: Vec<f32> = expected.into_iter().map(|v| v as f32).collect();
        assert_close(y.into_data(), TensorData::new(expected, [1, 1, 2, 4]), 1e-5);
    }

    #[test]
    fn position_zero_is_identity() {
        let dev = Default::default();
        let rope = Rope::<TestBackend>::new(6, 2, 10000.0, &dev);
        let x = Tensor::<TestBackend, 4>::from_data([[[[1.0, -2.0, 3.0, 0.5, 0.0, 7.0]]]], &dev);
        assert_close(rope.apply(x.clone(), 0).into_data(), x.into_data(), 1e-7);
    }
}
