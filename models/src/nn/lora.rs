//! A LoRA branch: the low-rank update a linear layer adds beside its frozen weight.

use burn::module::{Module, Param, ParamId};
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use super::rope::rotate_half_rows;

/// `scale · (x Aᵀ) Bᵀ`, the update of PEFT's LoRA, kept apart from the weight it adapts
/// (merged, it would be `W + scale · B · A`) so that `A` and `B` can be trained or swapped.
///
/// The factors keep whatever gradient tracking they were given: leaves that require
/// gradients while training, plain tensors otherwise.
#[derive(Module, Debug)]
pub(crate) struct LoraBranch<B: Backend> {
    /// `A`, `[rank, in]` (PEFT's layout).
    a: Param<Tensor<B, 2>>,
    /// `B`, `[out, rank]`.
    b: Param<Tensor<B, 2>>,
    scale: f32,
}

impl<B: Backend> LoraBranch<B> {
    /// A branch from `A` (`[rank, in]`), `B` (`[out, rank]`) and the update's scale.
    pub(crate) fn new(a: Tensor<B, 2>, b: Tensor<B, 2>, scale: f32) -> Self {
        Self {
            a: Param::initialized(ParamId::new(), a),
            b: Param::initialized(ParamId::new(), b),
            scale,
        }
    }

    /// The input projected down to the rank, scaled: `scale · x Aᵀ`.
    ///
    /// # Shapes
    ///
    /// `x`: `[rows, in]` → `[rows, rank]`.
    pub(crate) fn down(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        x.matmul(self.a.val().transpose()).mul_scalar(self.scale)
    }

    /// The update from the projection of [`LoraBranch::down`]: `low Bᵀ`.
    ///
    /// # Shapes
    ///
    /// `low`: `[rows, rank]` → `[rows, out]`.
    pub(crate) fn up(&self, low: Tensor<B, 2>) -> Tensor<B, 2> {
        low.matmul(self.b.val().transpose())
    }

    /// The update with `rotate_half` applied to each of `heads` heads of its output: what
    /// the branch adds to a projection's rotate-half twin ([`super::rope`]).
    ///
    /// # Shapes
    ///
    /// `low`: `[rows, rank]` → `[rows, out]`.
    pub(crate) fn up_rotated(&self, low: Tensor<B, 2>, heads: usize) -> Tensor<B, 2> {
        low.matmul(rotate_half_rows(self.b.val(), heads).transpose())
    }
}
