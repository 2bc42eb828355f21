//! The SwiGLU feed-forward layer.

use burn::module::Module;
use burn::tensor::activation::silu;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use super::linear::Linear;

/// `down(silu(gate(x)) * up(x))`, with `gate` and `up` fused into one product.
#[derive(Module, Debug)]
pub(crate) struct Mlp<B: Backend> {
    /// `[hidden, 2 * ffn]`: the gate's columns, then the up projection's.
    gate_up: Linear<B>,
    /// `[ffn, hidden]`.
    down: Linear<B>,
}

impl<B: Backend> Mlp<B> {
    /// A layer from the fused gate/up projection and the down projection.
    pub(crate) fn new(gate_up: Linear<B>, down: Linear<B>) -> Self {
        Self { gate_up, down }
    }

    /// # Shapes
    ///
    /// `x`: `[batch, seq, hidden]` → same.
    pub(crate) fn forward(&self, x: Tensor<B, 3>) -> Tensor<B, 3> {
        let gu = self.gate_up.forward(x);
        let ffn = gu.dims()[2] / 2;
        let gate = gu.clone().narrow(2, 0, ffn);
        let up = gu.narrow(2, ffn, ffn);
        self.down.forward(silu(gate) * up)
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
        let gate_up = Tensor::<TestBackend, 2>::from_data([[1.0, -1.0, 2.0, 3.0]], &dev);
        let down = Tensor::<TestBackend, 2>::from_data([[1.0], [1.0]], &dev);
        let mlp = Mlp::new(Linear::new(gate_up, None), Linear::new(down, None));
        let x = 1.5f32;
        let silu = |v: f32| v / (1.0 + (-v).exp());
        let expected = silu(x) * 2.0 * x + silu(-x) * 3.0 * x;
        let y = mlp.forward(Tensor::from_data([[[x]]], &dev));
        assert_close(y.into_data(), TensorData::from([[[expected]]]), 1e-6);
    }
}
