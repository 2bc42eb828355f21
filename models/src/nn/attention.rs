//! Causal grouped-query self-attention with a key/value cache.

use burn::module::Module;
use burn::tensor::backend::Backend;
use burn::tensor::module::attention;
use burn::tensor::ops::AttentionModuleOptions;
use burn::tensor::{Bool, Tensor, TensorData};

use super::host::{self, HostRope};
use super::linear::Linear;
use super::rope::{self, Rope};
use crate::cache::LayerKv;
use crate::lora::LoraModule;

/// Self-attention: query/key/value projections (each with a rotate-half twin for the
/// rotary embedding, see [`super::rope`]), causal softmax attention over the cached and
/// new keys, output projection.
#[derive(Module, Debug)]
pub(crate) struct Attention<B: Backend> {
    /// `[hidden, heads * head_dim]`.
    q: Linear<B>,
    /// `q` with `rotate_half` folded in; only on backends that rotate through products
    /// ([`Rotary::Twins`]).
    q_rot: Option<Linear<B>>,
    /// `[hidden, kv_heads * head_dim]`.
    k: Linear<B>,
    /// `k` with `rotate_half` folded in, as `q_rot`.
    k_rot: Option<Linear<B>>,
    /// `[hidden, kv_heads * head_dim]`.
    v: Linear<B>,
    /// `[heads * head_dim, hidden]`.
    out: Linear<B>,
    num_heads: usize,
    num_kv_heads: usize,
    head_dim: usize,
}

/// What every layer's attention shares in one forward pass.
pub(crate) struct Step<B: Backend> {
    /// Sequences side by side.
    pub(crate) batch: usize,
    /// New positions per sequence.
    pub(crate) seq: usize,
    /// The rows' rotary tables.
    pub(crate) rotary: Rotary<B>,
    /// How the rows' own keys are masked.
    pub(crate) own_mask: OwnMask<B>,
}

/// The rotary tables of a pass's rows, laid out like the query and key projections'
/// outputs: the queries' `[rows, heads * head_dim]`, scaled by `1/sqrt(head_dim)` (the
/// attention scale, folded in), the keys' `[rows, kv_heads * head_dim]`.
pub(crate) enum Rotary<B: Backend> {
    /// On the CPU backend, host values: it rotates on the host ([`host::rope`]) rather
    /// than through the rotate-half twin projections.
    Host(HostRope),
    /// On other backends, tensors for the twin products ([`rope::apply`]).
    Twins {
        /// Queries' cosines.
        cos_q: Tensor<B, 2>,
        /// Queries' sines.
        sin_q: Tensor<B, 2>,
        /// Keys' cosines.
        cos_k: Tensor<B, 2>,
        /// Keys' sines.
        sin_k: Tensor<B, 2>,
    },
}

impl<B: Backend> Rotary<B> {
    /// The tables of rows at `positions`, for `heads` query and `kv_heads` key heads.
    ///
    /// # Panics
    ///
    /// When a position is not below the tables' length; callers check the context.
    pub(crate) fn at(
        rope: &Rope,
        positions: &[usize],
        (heads, kv_heads): (usize, usize),
        device: &B::Device,
    ) -> Self {
        let d = rope.head_dim();
        let (cos_q, sin_q) = rope.values_at(positions, heads, 1.0 / (d as f32).sqrt());
        let (cos_k, sin_k) = rope.values_at(positions, kv_heads, 1.0);
        if host::backend_on_host::<B>() {
            return Self::Host(HostRope {
                cos_q,
                sin_q,
                cos_k,
                sin_k,
            });
        }
        let tensor = |values: Vec<f32>, heads: usize| {
            Tensor::from_data(
                TensorData::new(values, [positions.len(), heads * d]),
                device,
            )
        };
        Self::Twins {
            cos_q: tensor(cos_q, heads),
            sin_q: tensor(sin_q, heads),
            cos_k: tensor(cos_k, kv_heads),
            sin_k: tensor(sin_k, kv_heads),
        }
    }
}

/// Causality among the rows' own positions (shared positions are always visible).
pub(crate) enum OwnMask<B: Backend> {
    /// For the fused kernel: an optional boolean mask over stacked query rows
    /// ([`group_mask`]) and whether the kernel's own causal mask applies.
    Fused(Option<Tensor<B, 4, Bool>>, bool),
    /// For attention over shared and own keys: an additive bias (`0` or `-inf`),
    /// `[batch, groups * seq, own_len]` ([`own_bias`]).
    Bias(Tensor<B, 3>),
}

/// The projections of one attention layer, each `[in, out]`.
pub(crate) struct AttentionWeights<B: Backend> {
    pub(crate) q: Linear<B>,
    pub(crate) q_rot: Option<Linear<B>>,
    pub(crate) k: Linear<B>,
    pub(crate) k_rot: Option<Linear<B>>,
    pub(crate) v: Linear<B>,
    pub(crate) out: Linear<B>,
}

impl<B: Backend> Attention<B> {
    /// A layer from its projections.
    pub(crate) fn new(
        w: AttentionWeights<B>,
        num_heads: usize,
        num_kv_heads: usize,
        head_dim: usize,
    ) -> Self {
        Self {
            q: w.q,
            q_rot: w.q_rot,
            k: w.k,
            k_rot: w.k_rot,
            v: w.v,
            out: w.out,
            num_heads,
            num_kv_heads,
            head_dim,
        }
    }

    /// The projection a LoRA adapter's `module` updates; `None` for a feed-forward module.
    /// (A branch on the query or key projection reaches its rotate-half twin too.)
    pub(crate) fn linear_mut(&mut self, module: LoraModule) -> Option<&mut Linear<B>> {
        match module {
            LoraModule::Q => Some(&mut self.q),
            LoraModule::K => Some(&mut self.k),
            LoraModule::V => Some(&mut self.v),
            LoraModule::O => Some(&mut self.out),
            LoraModule::Gate | LoraModule::Up | LoraModule::Down => None,
        }
    }

    /// Attends from the new positions to every cached position and to themselves,
    /// causally, and appends their keys and values to `kv`.
    ///
    /// The `heads / kv_heads` query heads that share a key/value head are stacked along
    /// the query axis, so keys and values are never repeated per head.
    ///
    /// # Shapes
    ///
    /// `x`: `[batch * seq, hidden]` → `[batch * seq, hidden]`.
    pub(crate) fn forward(
        &self,
        x: Tensor<B, 2>,
        step: &Step<B>,
        kv: &mut LayerKv<B>,
    ) -> Tensor<B, 2> {
        let (n, s) = (step.batch, step.seq);
        let (h, kvh, d) = (self.num_heads, self.num_kv_heads, self.head_dim);
        let g = h / kvh;
        let (q, k) = match &step.rotary {
            Rotary::Host(r) => (
                host::rope(self.q.forward(x.clone()), &r.cos_q, &r.sin_q, d),
                host::rope(self.k.forward(x.clone()), &r.cos_k, &r.sin_k, d),
            ),
            Rotary::Twins {
                cos_q,
                sin_q,
                cos_k,
                sin_k,
            } => {
                // Built on every backend that takes this arm (see `Rotary::at`).
                fn twin<B: Backend>(t: &Option<Linear<B>>) -> &Linear<B> {
                    t.as_ref()
                        .expect("rotate-half twins are built off the host")
                }
                let (q, q_rot) = self.q.forward_with_twin(twin(&self.q_rot), h, x.clone());
                let (k, k_rot) = self.k.forward_with_twin(twin(&self.k_rot), kvh, x.clone());
                (
                    rope::apply(q, q_rot, cos_q, sin_q),
                    rope::apply(k, k_rot, cos_k, sin_k),
                )
            }
        };
        let v = self.v.forward(x);
        // Query heads that share a key/value head are stacked along the query axis:
        // [kv_heads, batch, groups, seq, d].
        let q = q.reshape([n, s, kvh, g, d]).permute([2, 0, 3, 1, 4]);
        let k = k.reshape([n, s, kvh, d]).permute([2, 0, 1, 3]);
        let v = v.reshape([n, s, kvh, d]).permute([2, 0, 1, 3]);
        let (k, v) = kv.append(k, v);
        let ctx = match (&kv.shared, &step.own_mask) {
            (Some((ks, vs)), OwnMask::Bias(bias)) => {
                let q = q.reshape([kvh, n, g * s, d]);
                cascade(q, ks, vs, k, v, bias)
            }
            (_, OwnMask::Fused(mask, causal)) => {
                let q = q.reshape([kvh, n, g * s, d]).swap_dims(0, 1);
                let options = AttentionModuleOptions {
                    scale: Some(1.0),
                    softcap: None,
                    is_causal: *causal,
                };
                attention(
                    q,
                    k.swap_dims(0, 1),
                    v.swap_dims(0, 1),
                    mask.clone(),
                    None,
                    options,
                )
                .swap_dims(0, 1)
            }
            (None, OwnMask::Bias(_)) => unreachable!("a bias is built only for shared positions"),
        };
        let ctx = ctx
            .reshape([kvh, n, g, s, d])
            .permute([1, 3, 0, 2, 4])
            .reshape([n * s, h * d]);
        self.out.forward(ctx)
    }
}

/// Softmax attention over shared keys (seen by every row) and each row's own keys,
/// without copying the shared ones per row: one product per key/value head against the
/// shared keys for all rows at once, a small batched product against the own keys, and
/// the two softmax parts merged through a common maximum (on the CPU, normalised together
/// in one pass on the host: [`host::softmax_split`]).
///
/// # Shapes
///
/// `q`: `[kv_heads, batch, rows, d]` (queries pre-scaled); `ks`, `vs`:
/// `[kv_heads, shared, d]`; `ko`, `vo`: `[kv_heads, batch, own, d]`; `bias`:
/// `[batch, rows, own]`. Returns `[kv_heads, batch, rows, d]`.
fn cascade<B: Backend>(
    q: Tensor<B, 4>,
    ks: &Tensor<B, 3>,
    vs: &Tensor<B, 3>,
    ko: Tensor<B, 4>,
    vo: Tensor<B, 4>,
    bias: &Tensor<B, 3>,
) -> Tensor<B, 4> {
    let [kvh, n, rows, d] = q.dims();
    let shared = ks.dims()[1];
    let own = ko.dims()[2];
    let heads = (0..kvh)
        .map(|i| {
            let qi = q.clone().narrow(0, i, 1);
            let q2 = qi.clone().reshape([n * rows, d]);
            let ksi = ks.clone().narrow(0, i, 1).reshape([shared, d]);
            let vsi = vs.clone().narrow(0, i, 1).reshape([shared, d]);
            let koi = ko.clone().narrow(0, i, 1).reshape([n, own, d]);
            let voi = vo.clone().narrow(0, i, 1).reshape([n, own, d]);
            let s_shared = q2.matmul(ksi.transpose());
            let s_own = qi.reshape([n, rows, d]).matmul(koi.swap_dims(1, 2)) + bias.clone();
            if host::on_host(&[&s_shared]) {
                // Normalised in one pass on the host, so the values need no division.
                let own_rows = s_own.reshape([n * rows, own]);
                let (p_shared, p_own) = host::softmax_split(s_shared, own_rows);
                let p_own = p_own.reshape([n, rows, own]);
                let out = p_shared.matmul(vsi) + p_own.matmul(voi).reshape([n * rows, d]);
                return out.reshape([1, n, rows, d]);
            }
            let m = s_shared
                .clone()
                .max_dim(1)
                .max_pair(s_own.clone().max_dim(2).reshape([n * rows, 1]));
            let e_shared = (s_shared - m.clone()).exp();
            let e_own = (s_own - m.reshape([n, rows, 1])).exp();
            let denom =
                e_shared.clone().sum_dim(1) + e_own.clone().sum_dim(2).reshape([n * rows, 1]);
            let out = e_shared.matmul(vsi) + e_own.matmul(voi).reshape([n * rows, d]);
            (out / denom).reshape([1, n, rows, d])
        })
        .collect();
    Tensor::cat(heads, 0)
}

/// How causality is enforced when `seq` new positions follow `offset` cached ones and
/// `groups` query heads share each key/value head: `(mask, kernel_causal)`.
///
/// One new position sees everything; without grouping the kernel's bottom-right causal
/// mask is right; otherwise query row `r` is position `offset + r mod seq`, and the mask
/// (`true` = hidden) hides every key after it.
///
/// # Shapes
///
/// The mask is `[1, 1, groups * seq, offset + seq]`, broadcast over batch and heads.
pub(crate) fn group_mask<B: Backend>(
    groups: usize,
    seq: usize,
    offset: usize,
    device: &B::Device,
) -> (Option<Tensor<B, 4, Bool>>, bool) {
    if seq <= 1 {
        return (None, false);
    }
    if groups == 1 {
        return (None, true);
    }
    let t = offset + seq;
    let mut m = Vec::with_capacity(groups * seq * t);
    for r in 0..groups * seq {
        let pos = offset + r % seq;
        m.extend((0..t).map(|c| c > pos));
    }
    let mask = Tensor::from_data(TensorData::new(m, [1, 1, groups * seq, t]), device);
    (Some(mask), false)
}

/// The additive causal bias among `seq` new positions of each of `batch` rows that
/// follow `own_offset` positions of their own, with `groups` query heads stacked per
/// key/value head: row `r` is position `own_offset + r mod seq`.
///
/// # Shapes
///
/// `[batch, groups * seq, own_offset + seq]`.
pub(crate) fn own_bias<B: Backend>(
    batch: usize,
    groups: usize,
    seq: usize,
    own_offset: usize,
    device: &B::Device,
) -> Tensor<B, 3> {
    let t = own_offset + seq;
    let mut row_block = Vec::with_capacity(groups * seq * t);
    for r in 0..groups * seq {
        let pos = own_offset + r % seq;
        row_block.extend((0..t).map(|c| if c > pos { f32::NEG_INFINITY } else { 0.0 }));
    }
    let data = row_block.repeat(batch);
    Tensor::from_data(TensorData::new(data, [batch, groups * seq, t]), device)
}

/// The boolean mask (`true` = hidden) of a token tree whose `nodes × nodes` visibility
/// is `visible` ([`crate::tree::TokenTree::visibility`]), with `groups` query heads
/// stacked per key/value head: row `r` is node `r mod nodes`.
///
/// # Shapes
///
/// `[1, 1, groups * nodes, nodes]`.
pub(crate) fn tree_mask<B: Backend>(
    groups: usize,
    visible: &[bool],
    nodes: usize,
    device: &B::Device,
) -> Tensor<B, 4, Bool> {
    let hidden: Vec<bool> = visible.iter().map(|&v| !v).collect();
    let data = hidden.repeat(groups);
    Tensor::from_data(TensorData::new(data, [1, 1, groups * nodes, nodes]), device)
}

/// The additive bias (`0` or `-inf`) of a token tree, as [`tree_mask`] for attention
/// over shared and own keys.
///
/// # Shapes
///
/// `[1, groups * nodes, nodes]`.
pub(crate) fn tree_bias<B: Backend>(
    groups: usize,
    visible: &[bool],
    nodes: usize,
    device: &B::Device,
) -> Tensor<B, 3> {
    let block: Vec<f32> = visible
        .iter()
        .map(|&v| if v { 0.0 } else { f32::NEG_INFINITY })
        .collect();
    let data = block.repeat(groups);
    Tensor::from_data(TensorData::new(data, [1, groups * nodes, nodes]), device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::TestBackend;

    /// `cascade` on backend `B` over fixed inputs, as host values.
    fn cascade_on<B: Backend>(bias_hides: usize) -> Vec<f32> {
        let dev = Default::default();
        let (kvh, n, rows, d, shared, own) = (2, 2, 3, 4, 5, 3);
        let t = |shape: Vec<usize>, seed: usize| {
            let len: usize = shape.iter().product();
            let v: Vec<f32> = (0..len)
                .map(|i| (((i + seed) * 7919 % 1000) as f32 - 500.0) * 0.004)
                .collect();
            TensorData::new(v, shape)
        };
        let q = Tensor::<B, 4>::from_data(t(vec![kvh, n, rows, d], 1), &dev);
        let ks = Tensor::<B, 3>::from_data(t(vec![kvh, shared, d], 2), &dev);
        let vs = Tensor::<B, 3>::from_data(t(vec![kvh, shared, d], 3), &dev);
        let ko = Tensor::<B, 4>::from_data(t(vec![kvh, n, own, d], 4), &dev);
        let vo = Tensor::<B, 4>::from_data(t(vec![kvh, n, own, d], 5), &dev);
        // Each row hides its last `bias_hides` own keys.
        let bias: Vec<f32> = (0..n * rows * own)
            .map(|i| match i % own >= own - bias_hides {
                true => f32::NEG_INFINITY,
                false => 0.0,
            })
            .collect();
        let bias = Tensor::<B, 3>::from_data(TensorData::new(bias, [n, rows, own]), &dev);
        let out = cascade(q, &ks, &vs, ko, vo, &bias);
        out.into_data().convert::<f32>().to_vec().unwrap()
    }

    #[test]
    fn cascade_on_the_host_equals_the_tensor_operations() {
        // Autodiff over the CPU backend keeps the tensor operations.
        for hides in [0, 2] {
            let host = cascade_on::<TestBackend>(hides);
            let tensor = cascade_on::<burn_autodiff::Autodiff<TestBackend>>(hides);
            assert_eq!(host.len(), tensor.len());
            for (a, b) in host.iter().zip(&tensor) {
                assert!((a - b).abs() < 1e-6, "{a} vs {b}");
            }
        }
    }

    #[test]
    fn group_mask_hides_the_future_of_each_stacked_row() {
        let dev = Default::default();
        let (mask, causal) = group_mask::<TestBackend>(2, 2, 1, &dev);
        assert!(!causal);
        let v: Vec<bool> = mask.unwrap().into_data().to_vec().unwrap();
        // Rows: (group 0, pos 1), (group 0, pos 2), (group 1, pos 1), (group 1, pos 2).
        let row = |hidden: [bool; 3]| hidden.to_vec();
        let expected = [
            row([false, false, true]),
            row([false, false, false]),
            row([false, false, true]),
            row([false, false, false]),
        ]
        .concat();
        assert_eq!(v, expected);
        assert!(matches!(
            group_mask::<TestBackend>(3, 1, 5, &dev),
            (None, false)
        ));
        assert!(matches!(
            group_mask::<TestBackend>(1, 4, 5, &dev),
            (None, true)
        ));
    }
}
