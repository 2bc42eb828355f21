//! A linear layer whose weight is stored `[in, out]`, contiguous (or compactly on the
//! host, [`HostMatrix`]), with an optional LoRA branch.

use std::sync::Arc;

use burn::module::{Module, Param, ParamId};
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor};

use super::host_matrix::HostMatrix;
use super::lora::LoraBranch;

/// `y = x W + b`, plus `scale · (x Aᵀ) Bᵀ` when a LoRA branch is attached.
///
/// The weight and bias are frozen (they never require gradients): only a branch trains.
/// Without a branch the forward pass is the plain product.
#[derive(Module, Debug)]
pub(crate) struct Linear<B: Backend> {
    /// `[in, out]`; `None` when the weight is held on the host (`host`).
    weight: Option<Param<Tensor<B, 2>>>,
    /// The weight in f16 or 8-bit blocks, on the CPU backend when asked for
    /// ([`crate::WeightStorage`]); shared by the copies an adapter's branches make.
    #[module(skip)]
    host: Option<Arc<HostMatrix>>,
    /// `[out]`.
    bias: Option<Param<Tensor<B, 1>>>,
    lora: Option<LoraBranch<B>>,
}

impl<B: Backend> Linear<B> {
    /// A layer from its weight (`[in, out]`) and optional bias (`[out]`), without a branch.
    pub(crate) fn new(weight: Tensor<B, 2>, bias: Option<Tensor<B, 1>>) -> Self {
        Self {
            weight: Some(frozen(weight)),
            host: None,
            bias: bias.map(frozen),
            lora: None,
        }
    }

    /// A layer whose weight is `host` (the `[out, in]` matrix), multiplied on the host.
    pub(crate) fn on_host(host: HostMatrix, bias: Option<Tensor<B, 1>>) -> Self {
        Self {
            weight: None,
            host: Some(Arc::new(host)),
            bias: bias.map(frozen),
            lora: None,
        }
    }

    /// Attaches `branch` (replacing any), or detaches the branch with `None`.
    pub(crate) fn set_lora(&mut self, branch: Option<LoraBranch<B>>) {
        self.lora = branch;
    }

    /// How the weight is held.
    pub(crate) fn storage(&self) -> crate::WeightStorage {
        self.host
            .as_ref()
            .map_or(crate::WeightStorage::F32, |h| h.storage())
    }

    /// Output width.
    pub(crate) fn d_output(&self) -> usize {
        match (&self.weight, &self.host) {
            (Some(w), _) => w.dims()[1],
            (None, Some(h)) => h.rows(),
            (None, None) => 0,
        }
    }

    /// Applies the layer to the last dimension of `x`.
    ///
    /// # Shapes
    ///
    /// `x`: `[..., in]` → `[..., out]`. The leading dimensions are flattened into one
    /// matrix product.
    pub(crate) fn forward<const D: usize>(&self, x: Tensor<B, D>) -> Tensor<B, D> {
        let dims = x.dims();
        let d_in = dims[D - 1];
        let rows = dims[..D - 1].iter().product::<usize>();
        let x = x.reshape([rows, d_in]);
        let y = match &self.lora {
            None => self.frozen_forward(x),
            Some(lora) => self.frozen_forward(x.clone()) + lora.up(lora.down(x)),
        };
        let mut out = dims;
        out[D - 1] = self.d_output();
        y.reshape(out)
    }

    /// This layer and its rotate-half twin `twin` (the same projection with `rotate_half`
    /// folded into its columns, see [`super::rope`]) applied to `x`; a branch attached to
    /// this layer reaches the twin rotated, so the pair stays a projection and its twin.
    ///
    /// # Shapes
    ///
    /// `x`: `[rows, in]` → both `[rows, heads * head_dim]`.
    pub(crate) fn forward_with_twin(
        &self,
        twin: &Self,
        heads: usize,
        x: Tensor<B, 2>,
    ) -> (Tensor<B, 2>, Tensor<B, 2>) {
        match &self.lora {
            None => (self.forward(x.clone()), twin.forward(x)),
            Some(lora) => {
                let low = lora.down(x.clone());
                (
                    self.frozen_forward(x.clone()) + lora.up(low.clone()),
                    twin.forward(x) + lora.up_rotated(low, heads),
                )
            }
        }
    }

    /// Rows `tokens` of the embedding this layer's weight is the transpose of (a head
    /// tied to the embedding): `[tokens, in]`.
    pub(crate) fn embedding_rows(&self, tokens: Tensor<B, 1, Int>) -> Tensor<B, 2> {
        match (&self.weight, &self.host) {
            (Some(w), _) => w.val().select(1, tokens).transpose(),
            (None, Some(h)) => h.gather(tokens),
            (None, None) => unreachable!("a linear layer without a weight"),
        }
    }

    /// `x W + b`.
    fn frozen_forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let y = match (&self.weight, &self.host) {
            (Some(w), _) => x.matmul(w.val()),
            (None, Some(h)) => h.product(x),
            // Every constructor sets one of the two.
            (None, None) => unreachable!("a linear layer without a weight"),
        };
        match &self.bias {
            Some(b) => y + b.val().unsqueeze::<2>(),
            None => y,
        }
    }
}

/// A parameter that never requires gradients (on an autodiff backend: a constant).
pub(crate) fn frozen<B: Backend, const D: usize>(value: Tensor<B, D>) -> Param<Tensor<B, D>> {
    Param::initialized(ParamId::new(), value.set_require_grad(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};
    use burn::tensor::TensorData;

    #[test]
    fn matches_hand_product_with_bias() {
        let dev = Default::default();
        let w = Tensor::<TestBackend, 2>::from_data([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]], &dev);
        let b = Tensor::<TestBackend, 1>::from_data([0.0, 1.0, -1.0], &dev);
        let lin = Linear::new(w, Some(b));
        let x = Tensor::<TestBackend, 3>::from_data([[[2.0, 4.0]], [[1.0, -1.0]]], &dev);
        let y = lin.forward(x);
        assert_eq!(y.dims(), [2, 1, 3]);
        let expected = TensorData::from([[[4.0, -3.0, 3.0]], [[0.5, 2.0, 1.0]]]);
        assert_close(y.into_data(), expected, 1e-6);
    }

    #[test]
    fn a_branch_adds_its_update_and_reaches_the_twin_rotated() {
        use crate::nn::lora::LoraBranch;
        use crate::nn::rope::rotate_half_columns;
        let dev = Default::default();
        let t = |v: Vec<f32>, shape: [usize; 2]| {
            Tensor::<TestBackend, 2>::from_data(TensorData::new(v, shape), &dev)
        };
        // One head of width 4 over inputs of width 3; A is [2, 3], B is [4, 2], scale 0.5.
        let w: Vec<f32> = (0..12).map(|i| i as f32 / 10.0).collect();
        let (a, b) = (
            vec![1.0, 0.0, -1.0, 0.5, 2.0, 0.0],
            vec![1.0, 2.0, 0.0, -1.0, 3.0, 0.5, -2.0, 1.0],
        );
        // The merged weight, [in, out]: W + 0.5 · Aᵀ Bᵀ.
        let mut merged = w.clone();
        for i in 0..3 {
            for o in 0..4 {
                merged[i * 4 + o] += 0.5 * (0..2).map(|k| a[k * 3 + i] * b[o * 2 + k]).sum::<f32>();
            }
        }
        let twin = |w: &[f32]| Linear::new(t(rotate_half_columns(w, 1, 4), [3, 4]), None);
        let mut lin = Linear::new(t(w.clone(), [3, 4]), None);
        lin.set_lora(Some(LoraBranch::new(t(a, [2, 3]), t(b, [4, 2]), 0.5)));
        let x = t(vec![1.0, -2.0, 0.5, 0.0, 1.0, 3.0], [2, 3]);
        let (y, y_rot) = lin.forward_with_twin(&twin(&w), 1, x.clone());
        let (want, want_rot) = (Linear::new(t(merged.clone(), [3, 4]), None), twin(&merged));
        assert_close(y.into_data(), want.forward(x.clone()).into_data(), 1e-5);
        assert_close(
            y_rot.into_data(),
            want_rot.forward(x.clone()).into_data(),
            1e-5,
        );
        assert_close(
            lin.forward(x.clone()).into_data(),
            want.forward(x).into_data(),
            1e-5,
        );
    }
}
