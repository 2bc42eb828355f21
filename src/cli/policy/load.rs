//! How a loaded model runs: the flags `bip lm` and every LM policy share.

use anyhow::bail;
use clap::Args;

use bip::models::{LoadOptions, WeightStorage, DEFAULT_MAX_CONTEXT, MAX_CONTEXT_LIMIT};

use crate::cli::policy::scoring::ScoringArgs;

/// Model loading, score cache and served-model flags.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Longest sequence (prompt plus continuation) a model runs on: its own context when
    /// shorter. Rotary tables are built for this many positions (at most 1048576).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONTEXT)]
    pub max_context: usize,
    /// How a loaded model holds its weights: `f32`; `f16` (on the CPU, half the memory,
    /// each weight rounded once, the arithmetic f32); `int8` (on the CPU, a quarter of the
    /// memory, weights and activations in 8-bit blocks, integer dot products).
    #[arg(long, value_name = "STORAGE", default_value_t = WeightStorage::F32)]
    pub lm_weights: WeightStorage,
    #[command(flatten)]
    pub scoring: ScoringArgs,
}

impl LoadArgs {
    /// The load options of `--max-context` and `--lm-weights`, checked.
    pub fn load_options(&self) -> anyhow::Result<LoadOptions> {
        Ok(max_context(self.max_context)?.with_weights(self.lm_weights))
    }
}

/// `--max-context N` as load options, refused outside 1..=[`MAX_CONTEXT_LIMIT`] (shared
/// by every command that loads a model).
pub fn max_context(n: usize) -> anyhow::Result<LoadOptions> {
    if !(1..=MAX_CONTEXT_LIMIT).contains(&n) {
        bail!("--max-context: {n} is not in 1..={MAX_CONTEXT_LIMIT}");
    }
    Ok(LoadOptions::default().with_max_context(n))
}
