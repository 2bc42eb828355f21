//! Root-mean-square layer normalisation.

use burn::module::{Module, Param};
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use super::linear::frozen;

/// `y = x / sqrt(mean(x²) + eps) * w` over the last dimension.
#[derive(Module, Debug)]
pub(crate) struct RmsNorm<B: Backend> {
    /// `[width]`.
    weight: Param<Tensor<B, 1>>,
    eps: f64,
}

impl<B: Backend> RmsNorm<B> {
    /// A norm with gain `weight` (`[width]`).
    pub(crate) fn new(weight: Tensor<B, 1>, eps: f64) -> Self {
        Self {
            weight: frozen(weight),
            eps,
        }
    }

    /// Width of the vectors it normalises.
    pub(crate) fn width(&self) -> usize {
        self.weight.dims()[0]
    }

    /// The device its gain lives on.
    pub(crate) fn device(&self) -> B::Device {
        self.weight.val().device()
    }

    /// Normalises the last dimension of `x`.
    ///
    /// # Shapes
    ///
    /// `x`: `[..., width]` → `[..., width]`.
    /// A row whose squares overflow `f32` becomes NaN, not zeros: normalised to nothing,
    /// it would score every token alike (−ln V) and look like an answer, where NaN is
    /// refused as the model computing no number.
    pub(crate) fn forward<const D: usize>(&self, x: Tensor<B, D>) -> Tensor<B, D> {
        let mean_sq = (x.clone() * x.clone()).mean_dim(D - 1);
        let overflowed = mean_sq.clone().is_inf();
        let inv = mean_sq
            .add_scalar(self.eps)
            .sqrt()
            .recip()
            .mask_fill(overflowed, f32::NAN);
        x * inv * self.weight.val().unsqueeze::<D>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};
    use burn::tensor::TensorData;

    #[test]
    fn normalises_rows() {
        let dev = Default::default();
        let w = Tensor::<TestBackend, 1>::from_data([1.0, 2.0], &dev);
        let norm = RmsNorm::new(w, 0.0);
        let x = Tensor::<TestBackend, 2>::from_data([[3.0, 4.0], [-1.0, 1.0]], &dev);
        // rms of (3, 4) is sqrt(12.5); of (-1, 1) is 1.
        let r = 12.5f32.sqrt();
        let expected = TensorData::from([[3.0 / r, 8.0 / r], [-1.0, 2.0]]);
        assert_close(norm.forward(x).into_data(), expected, 1e-6);
    }

    #[test]
    fn a_row_whose_squares_overflow_is_nan_not_zero() {
        let dev = Default::default();
        let norm = RmsNorm::new(Tensor::<TestBackend, 1>::from_data([1.0, 1.0], &dev), 1e-6);
        let x = Tensor::<TestBackend, 2>::from_data([[3e38, 3e38], [1.0, 1.0]], &dev);
        let y: Vec<f32> = norm.forward(x).into_data().to_vec().expect("f32");
        assert!(y[0].is_nan() && y[1].is_nan(), "{y:?}");
        assert!(
            (y[2] - 1.0).abs() < 1e-5 && (y[3] - 1.0).abs() < 1e-5,
            "{y:?}"
        );
    }
}
