//! Attaching an adapter to a model as LoRA branches beside its frozen weights, unmerged:
//! how training runs the model it trains.

use burn::tensor::backend::Backend;
use burn::tensor::{Tensor, TensorData};

use super::adapter::LoraAdapter;
use crate::error::{ModelError, Result};
use crate::nn::lora::LoraBranch;
use crate::transformer::Transformer;

impl<B: Backend> Transformer<B> {
    /// A copy of this model with `adapter`'s updates attached as LoRA branches (replacing
    /// any), and the factors attached, `A` then `B` for each update in
    /// [`LoraAdapter::pairs`] order: leaves that require gradients when `track`.
    ///
    /// The copy computes what the model with the adapter merged computes, up to rounding;
    /// with `B = 0` exactly what this model computes. The copy shares the frozen weights.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadTensor`] naming the adapter's weight when its layer is out of
    /// range. (Shapes are the caller's to check, with [`LoraAdapter::check`].)
    pub(crate) fn with_branches(
        &self,
        adapter: &LoraAdapter,
        track: bool,
    ) -> Result<(Self, Vec<Tensor<B, 2>>)> {
        let mut model = self.clone();
        let device = self.device();
        let scale = adapter.config().scale() as f32;
        let mut leaves = Vec::with_capacity(2 * adapter.pairs().count());
        for (layer, module, pair) in adapter.pairs() {
            let factor = |data: &[f32], shape: [usize; 2]| {
                let t = Tensor::<B, 2>::from_data(TensorData::new(data.to_vec(), shape), &device);
                if track {
                    t.require_grad()
                } else {
                    t
                }
            };
            let a = factor(pair.a(), [pair.rank(), pair.d_in()]);
            let b = factor(pair.b(), [pair.d_out(), pair.rank()]);
            leaves.extend([a.clone(), b.clone()]);
            let linear = model.linear_mut(layer, module).ok_or_else(|| {
                ModelError::tensor(
                    adapter.origin(),
                    module.weight_name(layer),
                    format!("layer {layer} is out of range"),
                )
            })?;
            linear.set_lora(Some(LoraBranch::new(a, b, scale)));
        }
        Ok((model, leaves))
    }
}
