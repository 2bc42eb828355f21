//! `bip calibrate`: fit the planner's β on held-out episodes and save it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::engine::calibrate::fit_beta;
use bip::io::{read_episodes, OutputSet};

use super::output::Output;

/// Arguments of `bip calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Held-out episode files with expected answers (`.jsonl` or `.json`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to save the calibration (JSON), for `--calibration FILE` of infer and eval.
    #[arg(long, short)]
    out: PathBuf,
}

/// Runs `bip calibrate`.
pub fn run(args: &CalibrateArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = OutputSet::new();
    let slot = outputs.add("--out", &args.out)?;
    let mut episodes = Vec::new();
    for path in &args.files {
        episodes.extend(read_episodes(path)?);
    }
    let fit = fit_beta(&episodes).context("calibration failed")?;
    let text = serde_json::to_string_pretty(&fit).context("serialising the calibration")? + "\n";
    outputs.put(slot, text);
    out.write(&outputs.commit()?)?;
    eprintln!(
        "bip: β = {:.3} (mean log-likelihood of the correct options {:.4} over {} questions), saved to {}",
        fit.beta,
        fit.mean_log_likelihood,
        fit.questions,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
