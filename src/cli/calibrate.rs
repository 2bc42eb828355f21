//! `bip calibrate`: fit the planner's β (or, with `--policy hybrid`, the hybrid's LM
//! weight) on held-out episodes, or the trust of nested-belief inference on stories, and
//! save it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::engine::calibrate::{fit_beta, fit_lm_weight, CalibrationFile, LM_WEIGHT_RANGE};
use bip::engine::nested::fit_trust;
use bip::engine::BatchOptions;
use bip::episodes::Episode;
use bip::io::OutputSet;
use bip::policy::PolicyKind;

use super::nested::read_documents;
use super::output::Output;
use super::policy::PolicyArgs;

/// Arguments of `bip calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Held-out files with expected answers (`.jsonl` or `.json`): single-agent episodes
    /// (β is fitted; with --policy hybrid, the LM weight) or stories (the trust is
    /// fitted), not both.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to save the calibration (JSON), for `--calibration FILE` of infer and eval.
    #[arg(long, short)]
    out: PathBuf,
    /// `--policy hybrid` and its flags fit the hybrid's LM weight (the planner weighing 1,
    /// at the β given); the default fits the planner's β.
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Runs `bip calibrate`.
pub fn run(args: &CalibrateArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = OutputSet::new();
    let slot = outputs.add("--out", &args.out)?;
    let (episodes, stories) = read_documents(&args.files)?;
    let (fit, what) = if !stories.is_empty() {
        if args.policy.kind() != PolicyKind::Planner {
            bail!("stories fit the trust of nested-belief inference; --policy does not apply");
        }
        let fit = fit_trust(&stories).context("calibration failed")?;
        let what = format!("trust = {:.3}", fit.trust.unwrap_or_default());
        (fit, what)
    } else {
        match args.policy.kind() {
            PolicyKind::Planner => {
                let fit = fit_beta(&episodes).context("calibration failed")?;
                let what = format!("β = {:.3}", fit.beta.unwrap_or_default());
                (fit, what)
            }
            PolicyKind::Hybrid => fit_hybrid(&episodes, &args.policy)?,
            other => {
                bail!("--policy {other}: calibrate fits the planner's β or the hybrid's LM weight")
            }
        }
    };
    let text = serde_json::to_string_pretty(&fit).context("serialising the calibration")? + "\n";
    outputs.put(slot, text);
    out.write(&outputs.commit()?)?;
    note!(
        "bip: {what} (mean log-likelihood of the correct options {:.4} over {} questions), saved to {}",
        fit.mean_log_likelihood,
        fit.questions,
        args.out.display()
    );
    for line in args.policy.cache_report() {
        note!("bip: {line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Fits the hybrid's LM weight, with the policy's pruning.
fn fit_hybrid(
    episodes: &[Episode],
    policy: &PolicyArgs,
) -> anyhow::Result<(CalibrationFile, String)> {
    let (hybrid, built) = policy.build_hybrid()?;
    let beta = built.beta;
    let options = BatchOptions {
        pruning: built.pruning(),
        ..BatchOptions::default()
    };
    let fit = fit_lm_weight(episodes, &hybrid, beta, &options, built.lm_settings())
        .context("calibration failed")?;
    let weight = fit.lm_weight.unwrap_or_default();
    let (low, high) = LM_WEIGHT_RANGE;
    let mut what = format!("LM weight = {weight:.3} (planner weight 1, β = {beta:.3})");
    // At an end of the range the held-out questions would have the weight go further.
    if weight >= high * 0.99 {
        what += &format!(", the range's top ({high}): these questions favour the LM alone");
    } else if weight <= low * 1.01 {
        what += &format!(", the range's bottom ({low}): these questions favour the planner alone");
    }
    Ok((fit, what))
}
