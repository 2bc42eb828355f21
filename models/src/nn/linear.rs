//! A linear layer whose weight is stored `[in, out]`, contiguous.

use burn::module::{Module, Param};
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

/// `y = x W + b` over the last dimension.
#[derive(Module, Debug)]
pub(crate) struct Linear<B: Backend> {
    /// `[in, out]`.
    weight: Param<Tensor<B, 2>>,
    /// `[out]`.
    bias: Option<Param<Tensor<B, 1>>>,
}

impl<B: Backend> Linear<B> {
    /// A layer from its weight (`[in, out]`) and optional bias (`[out]`).
    pub(crate) fn new(weight: Tensor<B, 2>, bias: Option<Tensor<B, 1>>) -> Self {
        Self {
            weight: Param::from_tensor(weight),
            bias: bias.map(Param::from_tensor),
        }
    }

    /// Output width.
    pub(crate) fn d_output(&self) -> usize {
        self.weight.dims()[1]
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
        let y = x.reshape([rows, d_in]).matmul(self.weight.val());
        let y = match &self.bias {
            Some(b) => y + b.val().unsqueeze::<2>(),
            None => y,
        };
        let mut out = dims;
        out[D - 1] = self.d_output();
        y.reshape(out)
    }
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
}
