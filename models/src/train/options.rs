//! The hyper-parameters of a LoRA run.

use crate::config::LlamaConfig;
use crate::error::{number, ModelError, Result};
use crate::lora::{LoraModule, MAX_LORA_SCALE};

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

/// Most passes over the training examples a run accepts.
pub const MAX_EPOCHS: usize = 1_000_000;

impl TrainOptions {
    /// Checks that the options make a run: each finite and in its range (named in the
    /// error with its value).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] naming the option at fault: a rank or batch of 0, epochs
    /// outside 1..=[`MAX_EPOCHS`], no target module, a learning rate outside (0, 1], an
    /// `alpha` whose scale `alpha / rank` exceeds [`MAX_LORA_SCALE`], a warm-up share
    /// outside [0, 1), a weight decay outside [0, 1] or a negative or non-finite gradient
    /// norm.
    pub fn check(&self) -> Result<()> {
        let bad = |what: String| Err(ModelError::Config(what));
        if self.rank == 0 {
            return bad("LoRA rank 0".into());
        }
        if !(1..=MAX_EPOCHS).contains(&self.epochs) || self.batch_size == 0 {
            return bad(format!(
                "training needs 1 to {MAX_EPOCHS} epochs (not {}) and at least one example per batch (not {})",
                self.epochs, self.batch_size
            ));
        }
        if self.targets.is_empty() {
            return bad("no LoRA target modules".into());
        }
        if !(self.learning_rate.is_finite()
            && self.learning_rate > 0.0
            && self.learning_rate <= 1.0)
        {
            return bad(format!(
                "learning rate {} is not in (0, 1]",
                number(self.learning_rate)
            ));
        }
        let scale = self.alpha / self.rank as f64;
        if !(scale.is_finite() && scale.abs() <= MAX_LORA_SCALE) {
            return bad(format!(
                "alpha {} over rank {} scales updates by {}, beyond ±{MAX_LORA_SCALE}",
                number(self.alpha),
                self.rank,
                number(scale)
            ));
        }
        for (name, value, range, within) in [
            (
                "warm-up share",
                self.warmup,
                "[0, 1)",
                (0.0..1.0).contains(&self.warmup),
            ),
            (
                "weight decay",
                self.weight_decay,
                "[0, 1]",
                (0.0..=1.0).contains(&self.weight_decay),
            ),
            (
                "gradient norm bound",
                self.max_grad_norm,
                "[0, ∞)",
                self.max_grad_norm >= 0.0 && self.max_grad_norm.is_finite(),
            ),
        ] {
            if !within {
                return bad(format!("{name} {} is not in {range}", number(value)));
            }
        }
        Ok(())
    }

    /// Checks that the rank fits the layers adapted in a model of `model`'s sizes.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when the rank exceeds the narrowest side of a targeted
    /// weight (a larger rank adds parameters and nothing else).
    pub(crate) fn check_for(&self, model: &LlamaConfig) -> Result<()> {
        for &module in &self.targets {
            let [d_out, d_in] = module.shape(model);
            let narrow = d_out.min(d_in);
            if self.rank > narrow {
                return Err(ModelError::Config(format!(
                    "LoRA rank {} exceeds {narrow}, the narrowest side of the {module} weights ([{d_out}, {d_in}])",
                    self.rank
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_out_of_range_is_named() {
        let with = |f: fn(&mut TrainOptions)| {
            let mut o = TrainOptions::default();
            f(&mut o);
            o.check().unwrap_err().to_string()
        };
        assert!(with(|o| o.weight_decay = -5.0).contains("weight decay -5 is not in [0, 1]"));
        assert!(with(|o| o.weight_decay = f64::NAN).contains("weight decay NaN"));
        assert!(with(|o| o.learning_rate = 1e308).contains("learning rate 1e308"));
        assert!(with(|o| o.alpha = 1e308).contains("alpha 1e308 over rank 8"));
        assert!(with(|o| o.epochs = usize::MAX).contains("epochs"));
        assert!(with(|o| o.warmup = 1.0).contains("warm-up share 1"));
        assert!(with(|o| o.max_grad_norm = -1.0).contains("gradient norm bound -1"));
        TrainOptions::default().check().unwrap();
        let model = LlamaConfig::new(16, 8, 12, 1, 2, 1);
        let wide = TrainOptions {
            rank: 5,
            ..TrainOptions::default()
        };
        let err = wide.check_for(&model).unwrap_err().to_string();
        assert!(
            err.contains("LoRA rank 5 exceeds 4, the narrowest side of the k_proj"),
            "{err}"
        );
    }
}
