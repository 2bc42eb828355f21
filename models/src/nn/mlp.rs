//! The SwiGLU feed-forward layer.

use burn::module::Module;
use burn::tensor::activation::silu;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use super::host;
use super::linear::Linear;
use crate::lora::LoraModule;

/// `down(silu(gate(x)) * up(x))`.
///
/// Gate and up stay two products (rather than one fused product split in two): the
/// halves of a split are strided views, which the CPU backend's element-wise kernels
/// handle far more slowly than contiguous tensors.
#[derive(Module, Debug)]
pub(crate) struct Mlp<B: Backend> {
    /// `[hidden, ffn]`.
    gate: Linear<B>,
    /// `[hidden, ffn]`.
    up: Linear<B>,
    /// `[ffn, hidden]`.
    down: Linear<B>,
}

impl<B: Backend> Mlp<B> {
    /// A layer from its three projections.
    pub(crate) fn new(gate: Linear<B>, up: Linear<B>, down: Linear<B>) -> Self {
        Self { gate, up, down }
    }

    /// The projection a LoRA adapter's `module` updates; `None` for an attention module.
    pub(crate) fn linear_mut(&mut self, module: LoraModule) -> Option<&mut Linear<B>> {
        match module {
            LoraModule::Gate => Some(&mut self.gate),
            LoraModule::Up => Some(&mut self.up),
            LoraModule::Down => Some(&mut self.down),
            LoraModule::Q | LoraModule::K | LoraModule::V | LoraModule::O => None,
        }
    }

    /// # Shapes
    ///
    /// `x`: `[rows, hidden]` → same.
    pub(crate) fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let gate = self.gate.forward(x.clone());
        let up = self.up.forward(x);
        let hidden = if host::on_host(&[&gate, &up]) {
            host::silu_mul(gate, up)
        } else {
            silu(gate) * up
        };
        self.down.forward(hidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};
    use burn::tensor::TensorData;

    #[test]
    fn swiglu_by_hand() {
        let dev = Default::default();
        // hidden 1, ffn 2: gate = (x, -x), up = (2x, 3x); down sums.
        let m = |v: [[f32; 2]; 1]| Linear::new(Tensor::<TestBackend, 2>::from_data(v, &dev), None);
        let down = Tensor::<TestBackend, 2>::from_data([[1.0], [1.0]], &dev);
        let mlp = Mlp::new(m([[1.0, -1.0]]), m([[2.0, 3.0]]), Linear::new(down, None));
        let x = 1.5f32;
        let silu = |v: f32| v / (1.0 + (-v).exp());
        let expected = silu(x) * 2.0 * x + silu(-x) * 3.0 * x;
        let y = mlp.forward(Tensor::from_data([[x]], &dev));
        assert_close(y.into_data(), TensorData::from([[expected]]), 1e-6);
    }
}
