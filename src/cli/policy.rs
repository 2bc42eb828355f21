//! The policy options shared by `infer`, `eval` and `calibrate`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use bip::engine::calibrate::CalibrationFile;
use bip::engine::{PlannerPolicy, Policy, DEFAULT_BETA};

/// Which model of the agent scores its actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PolicyKind {
    /// Symbolic Boltzmann-rational belief-space planner (no weights).
    Planner,
}

/// Policy flags.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Model of the agent.
    #[arg(long, value_enum, default_value_t = PolicyKind::Planner)]
    policy: PolicyKind,
    /// Rationality of the planner: 0 acts at random, larger is closer to optimal
    /// (default 3, or the calibrated value).
    #[arg(long, allow_negative_numbers = true)]
    beta: Option<f64>,
    /// A calibration file written by `bip calibrate`, whose β is used.
    #[arg(long, conflicts_with = "beta")]
    calibration: Option<PathBuf>,
}

impl PolicyArgs {
    /// Builds the policy the flags describe.
    pub fn build(&self) -> anyhow::Result<Box<dyn Policy>> {
        let beta = match (&self.calibration, self.beta) {
            (Some(path), _) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
                let file = CalibrationFile::from_json(&text)
                    .map_err(anyhow::Error::msg)
                    .with_context(|| format!("{}", path.display()))?;
                if file.policy != "planner" {
                    bail!(
                        "{}: calibrated for policy \"{}\", not the planner",
                        path.display(),
                        file.policy
                    );
                }
                file.beta
            }
            (None, Some(beta)) => beta,
            (None, None) => DEFAULT_BETA,
        };
        match self.policy {
            PolicyKind::Planner => Ok(Box::new(
                PlannerPolicy::new(beta).context("invalid --beta")?,
            )),
        }
    }
}
