//! Causal grouped-query self-attention with a key/value cache.

use burn::module::Module;
use burn::tensor::backend::Backend;
use burn::tensor::module::attention;
use burn::tensor::ops::AttentionModuleOptions;
use burn::tensor::Tensor;

use super::linear::Linear;
use super::rope::Rope;
use crate::cache::LayerKv;

/// Self-attention: fused query/key/value projection, rotary embeddings, causal softmax
/// attention over the cached and new keys, output projection.
#[derive(Module, Debug)]
pub(crate) struct Attention<B: Backend> {
    /// `[hidden, (heads + 2 * kv_heads) * head_dim]`: query, key, then value columns.
    qkv: Linear<B>,
    /// `[heads * head_dim, hidden]`.
    out: Linear<B>,
    num_heads: usize,
    num_kv_heads: usize,
    head_dim: usize,
}

impl<B: Backend> Attention<B> {
    /// A layer from its fused and output projections.
    pub(crate) fn new(
        qkv: Linear<B>,
        out: Linear<B>,
        num_heads: usize,
        num_kv_heads: usize,
        head_dim: usize,
    ) -> Self {
        Self {
            qkv,
            out,
            num_heads,
            num_kv_heads,
            head_dim,
        }
    }

    /// Attends from the `seq` new positions (starting at `offset`) to every cached
    /// position and to themselves, causally, and appends their keys and values to `kv`.
    ///
    /// # Shapes
    ///
    /// `x`: `[batch, seq, hidden]` → `[batch, seq, hidden]`.
    pub(crate) fn forward(
        &self,
        x: Tensor<B, 3>,
        rope: &Rope<B>,
        kv: &mut LayerKv<B>,
        offset: usize,
    ) -> Tensor<B, 3> {
        let [batch, seq, _] = x.dims();
        let (h, kvh, d) = (self.num_heads, self.num_kv_heads, self.head_dim);
        let qkv = self.qkv.forward(x);
        let heads = |t: Tensor<B, 3>, n: usize| t.reshape([batch, seq, n, d]).swap_dims(1, 2);
        let q = heads(qkv.clone().narrow(2, 0, h * d), h);
        let k = heads(qkv.clone().narrow(2, h * d, kvh * d), kvh);
        let v = heads(qkv.narrow(2, (h + kvh) * d, kvh * d), kvh);
        let q = rope.apply(q, offset);
        let k = rope.apply(k, offset);
        let (k, v) = kv.append(k, v);
        let (k, v) = (repeat_kv(k, h / kvh), repeat_kv(v, h / kvh));
        let options = AttentionModuleOptions {
            scale: None,
            softcap: None,
            // Bottom-right aligned: new position i sees every cached one and new ones ≤ i.
            is_causal: true,
        };
        let ctx = attention(q, k, v, None, None, options);
        self.out
            .forward(ctx.swap_dims(1, 2).reshape([batch, seq, h * d]))
    }
}

/// Repeats each key/value head `groups` times, so that query head `i` meets KV head
/// `i / groups`.
///
/// # Shapes
///
/// `[batch, kv_heads, len, d]` → `[batch, kv_heads * groups, len, d]`.
fn repeat_kv<B: Backend>(x: Tensor<B, 4>, groups: usize) -> Tensor<B, 4> {
    if groups == 1 {
        return x;
    }
    let [b, kvh, n, d] = x.dims();
    x.unsqueeze_dim::<5>(2)
        .expand([b, kvh, groups, n, d])
        .reshape([b, kvh * groups, n, d])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};

    #[test]
    fn repeat_kv_groups_heads_in_order() {
        let dev = Default::default();
        let x = Tensor::<TestBackend, 4>::from_data([[[[1.0]], [[2.0]]]], &dev);
        let y = repeat_kv(x, 3);
        assert_eq!(y.dims(), [1, 6, 1, 1]);
        let v: Vec<f32> = y.into_data().to_vec().unwrap();
        assert_eq!(v, vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
    }

    #[test]
    fn cached_steps_equal_one_pass() {
        // Identity projections, one head of width 2, three positions.
        let dev = Default::default();
        let eye = |n: usize| {
            let mut v = vec![0.0f32; n * n];
            for i in 0..n {
                v[i * n + i] = 1.0;
            }
            Tensor::<TestBackend, 2>::from_data(burn::tensor::TensorData::new(v, [n, n]), &dev)
        };
        let qkv = Tensor::cat(vec![eye(2), eye(2), eye(2)], 1);
        let att = Attention::new(Linear::new(qkv, None), Linear::new(eye(2), None), 1, 1, 2);
        let rope = Rope::new(2, 8, 10000.0, &dev);
        let x = Tensor::<TestBackend, 3>::from_data([[[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]], &dev);
        let mut kv = LayerKv { kv: None };
        let full = att.forward(x.clone(), &rope, &mut kv, 0);
        let mut kv = LayerKv { kv: None };
        let a = att.forward(x.clone().narrow(1, 0, 2), &rope, &mut kv, 0);
        let b = att.forward(x.narrow(1, 2, 1), &rope, &mut kv, 2);
        let stepped = Tensor::cat(vec![a, b], 1);
        assert_close(stepped.into_data(), full.clone().into_data(), 1e-6);
        // The first position attends only to itself: its output is its own value.
        let first: Vec<f32> = full.narrow(1, 0, 1).into_data().to_vec().unwrap();
        assert!(
            (first[0] - 1.0).abs() < 1e-6 && first[1].abs() < 1e-6,
            "{first:?}"
        );
    }
}
