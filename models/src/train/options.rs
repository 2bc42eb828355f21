//! The hyper-parameters of a LoRA run.

use crate::error::{ModelError, Result};
use crate::lora::LoraModule;

/// Hyper-parameters of a LoRA run.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// Rank of every update.
    pub rank: usize,
    /// `lora_alpha`: the update is scaled by `alpha / rank`.
    pub alpha: f64,
    /// The modules adapted in every layer.
    pub targets: Vec<LoraModule>,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Passes over the training examples.
    pub epochs: usize,
    /// Examples per optimiser step (their action tokens averaged).
    pub batch_size: usize,
    /// Share of the steps spent warming the learning rate up, in [0, 1).
    pub warmup: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f64,
    /// Gradients are scaled down to this global L2 norm (0: no clipping).
    pub max_grad_norm: f64,
    /// Seed of the initial `A` factors and of the example order.
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        Self {
            rank: 8,
            alpha: 16.0,
            targets: LoraModule::ALL.to_vec(),
            learning_rate: 2e-4,
            epochs: 1,
            batch_size: 8,
            warmup: 0.1,
            weight_decay: 0.01,
            max_grad_norm: 1.0,
            seed: 0,
        }
    }
}

impl TrainOptions {
    /// Checks that the options make a run.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] naming the option at fault.
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |what: String| Err(ModelError::Config(what));
        if self.rank == 0 {
            return bad("LoRA rank 0".into());
        }
        if self.epochs == 0 || self.batch_size == 0 {
            return bad("training needs at least one epoch and one example per batch".into());
        }
        if self.targets.is_empty() {
            return bad("no LoRA target modules".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad(format!(
                "learning rate {} is not a positive number",
                self.learning_rate
            ));
        }
        if !self.alpha.is_finite() || !(0.0..1.0).contains(&self.warmup) {
            return bad(format!(
                "alpha {} must be finite and warm-up share {} in [0, 1)",
                self.alpha, self.warmup
            ));
        }
        Ok(())
    }
}
