//! `bip calibrate`: fit the planner's β on held-out episodes, or the trust of nested-belief
//! inference on stories, and save it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::engine::calibrate::fit_beta;
use bip::engine::nested::fit_trust;
use bip::io::OutputSet;

use super::nested::read_documents;
use super::output::Output;

/// Arguments of `bip calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Held-out files with expected answers (`.jsonl` or `.json`): single-agent episodes
    /// (β is fitted) or stories (the trust is fitted), not both.
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
    let (episodes, stories) = read_documents(&args.files)?;
    let (fit, what) = if stories.is_empty() {
        let fit = fit_beta(&episodes).context("calibration failed")?;
        let what = format!("β = {:.3}", fit.beta.unwrap_or_default());
        (fit, what)
    } else {
        let fit = fit_trust(&stories).context("calibration failed")?;
        let what = format!("trust = {:.3}", fit.trust.unwrap_or_default());
        (fit, what)
    };
    let text = serde_json::to_string_pretty(&fit).context("serialising the calibration")? + "\n";
    outputs.put(slot, text);
    out.write(&outputs.commit()?)?;
    eprintln!(
        "bip: {what} (mean log-likelihood of the correct options {:.4} over {} questions), saved to {}",
        fit.mean_log_likelihood,
        fit.questions,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
