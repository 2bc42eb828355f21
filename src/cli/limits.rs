//! The limits on what an input may make bip read, allocate and compute: global flags,
//! each with a documented default.

use anyhow::bail;
use clap::Args;

use bip::engine::{
    BatchOptions, EngineError, HypothesisConfig, DEFAULT_MAX_BELIEF_VALUES, DEFAULT_MAX_HYPOTHESES,
};
use bip::episodes::limits::{
    set_max_places, set_max_readings, DEFAULT_MAX_PLACES, DEFAULT_MAX_READINGS,
};
use bip::io::set_max_input_bytes;

use crate::cli::policy::PolicyArgs;

/// Limits of every command (global flags).
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Read at most this much of one input file: bytes, or with a suffix K, M or G
    /// (powers of 1024).
    #[arg(long, global = true, value_name = "SIZE", default_value = "256M")]
    max_input_size: String,
    /// Refuse episodes with more places (rooms and furniture) than this: starting beliefs
    /// grow with them, and each belief's work with them again.
    #[arg(long, global = true, value_name = "N", default_value_t = DEFAULT_MAX_PLACES)]
    max_places: usize,
    /// Refuse episodes with more readings of their world (the world as written and its
    /// `alternatives`) than this: each is one more inference.
    #[arg(long, global = true, value_name = "N", default_value_t = DEFAULT_MAX_READINGS)]
    max_readings: usize,
    /// Refuse inference over more hypotheses (goals or object classes × starting
    /// beliefs) than this.
    #[arg(long, global = true, value_name = "N", default_value_t = DEFAULT_MAX_HYPOTHESES)]
    max_hypotheses: usize,
    /// Refuse inference whose starting beliefs hold more values (object classes ×
    /// starting beliefs × places) than this: memory and time per step grow with it.
    #[arg(long, global = true, value_name = "N", default_value_t = DEFAULT_MAX_BELIEF_VALUES)]
    max_belief_values: usize,
}

/// The limits, applied: those of the readers are set for the process, the rest kept
/// for the commands that pass them on.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    max_hypotheses: usize,
    max_belief_values: usize,
}

impl LimitArgs {
    /// Checks the flags and sets the readers' limits.
    pub fn apply(&self) -> anyhow::Result<Limits> {
        set_max_input_bytes(size(&self.max_input_size)?);
        let limits = [
            self.max_places,
            self.max_readings,
            self.max_hypotheses,
            self.max_belief_values,
        ];
        if limits.contains(&0) {
            bail!("--max-places, --max-readings, --max-hypotheses and --max-belief-values must be at least 1");
        }
        set_max_places(self.max_places);
        set_max_readings(self.max_readings);
        Ok(Limits {
            max_hypotheses: self.max_hypotheses,
            max_belief_values: self.max_belief_values,
        })
    }
}

impl Limits {
    /// Batch options within the limits, for `policy`: its pruning, and the hypothesis
    /// space its --calibration describes (else the engine's defaults).
    pub fn batch(&self, policy: &PolicyArgs) -> anyhow::Result<BatchOptions> {
        let hypotheses = policy.hypotheses(HypothesisConfig {
            max_hypotheses: self.max_hypotheses,
            max_belief_values: self.max_belief_values,
            ..HypothesisConfig::default()
        })?;
        Ok(BatchOptions {
            hypotheses,
            pruning: policy.pruning()?,
            ..BatchOptions::default()
        })
    }

    /// [`batch`](Self::batch), running the episodes of a language-model policy side by
    /// side ([`BatchOptions::side_by_side`]): for commands that run a file of episodes
    /// through one policy and nothing after it.
    pub fn batch_side_by_side(&self, policy: &PolicyArgs) -> anyhow::Result<BatchOptions> {
        Ok(BatchOptions {
            side_by_side: true,
            ..self.batch(policy)?
        })
    }
}

/// `256M`, `1G`, `4096`: a size in bytes.
fn size(text: &str) -> anyhow::Result<u64> {
    let text = text.trim();
    let (digits, shift) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 10),
        Some((i, 'M' | 'm')) => (&text[..i], 20),
        Some((i, 'G' | 'g')) => (&text[..i], 30),
        _ => (text, 0),
    };
    let value: Option<u64> = digits.parse().ok();
    match value.and_then(|v| v.checked_mul(1 << shift)) {
        Some(bytes) if bytes > 0 => Ok(bytes),
        _ => bail!(
            "--max-input-size: \"{}\" is not a size (bytes ≥ 1, or with K, M or G)",
            bip::episodes::limits::quoted(text)
        ),
    }
}

/// `error`, told which flag raises the limit it hit when it is one of the engine's limits
/// (the engine's errors name no flags: its embedders have none).
pub fn with_flag_hint(error: anyhow::Error) -> anyhow::Error {
    let flag = error
        .chain()
        .find_map(|cause| match cause.downcast_ref::<EngineError>() {
            Some(EngineError::TooManyHypotheses { .. }) => Some("--max-hypotheses"),
            Some(EngineError::TooManyBeliefValues { .. }) => Some("--max-belief-values"),
            _ => None,
        });
    match flag {
        // Printed as the chain is (`{:#}`), the hint last.
        Some(flag) => anyhow::anyhow!("{error:#} (raise it with {flag})"),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_suffixes_and_refuse_the_rest() {
        assert_eq!(size("4096").ok(), Some(4096));
        assert_eq!(size("256M").ok(), Some(256 << 20));
        assert_eq!(size("2g").ok(), Some(2 << 30));
        for bad in ["", "0", "-1", "1.5G", "M", "99999999999999999999G", "12T"] {
            assert!(size(bad).is_err(), "{bad}");
        }
    }
}
