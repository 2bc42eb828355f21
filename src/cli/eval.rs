//! `bip eval`: answer every question of files of episodes and score against expected answers.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use bip::engine::evaluation::{evaluate, risk_coverage_csv, EvaluateOptions};
use bip::io::{to_jsonl, OutputSet};
use bip::plot::reliability_svg;

use super::input::{read_inputs, InputFormat};
use super::limits::Limits;
use super::output::{check_margin, check_svg, Output};
use super::policy::PolicyArgs;
use super::progress::Progress;

/// The library's `DEFAULT_ABSTAIN_MARGIN` as clap wants it (a test keeps the two equal).
const DEFAULT_MARGIN_TEXT: &str = "0.02";

/// Seed of the bootstrap resamples: fixed, so that a report is reproducible.
const BOOTSTRAP_SEED: u64 = 0;

/// Arguments of `bip eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Episode files: `.jsonl` (one episode a line) or `.json`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// What the files hold.
    #[arg(long, value_enum, default_value_t = InputFormat::Episodes)]
    format: InputFormat,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Write one JSON line per question (episode, question, content hash, posterior,
    /// answer, expected) to this file.
    #[arg(long)]
    predictions: Option<PathBuf>,
    /// Abstain ("cannot tell") when the two best options are closer than this margin;
    /// the flag alone uses the default margin (0.02).
    #[arg(long, num_args = 0..=1, default_missing_value = DEFAULT_MARGIN_TEXT)]
    abstain_below: Option<f64>,
    /// Write the risk–coverage curve (one row per margin) to this CSV file.
    #[arg(long)]
    risk_coverage: Option<PathBuf>,
    /// Report calibration: ECE over 10 equal-mass bins, Brier score, mean log-likelihood.
    #[arg(long)]
    calibration_report: bool,
    /// Draw the reliability diagram to this SVG file (implies --calibration-report).
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// Runs `bip eval`.
pub fn run(args: &EvalArgs, limits: &Limits, out: &mut Output) -> anyhow::Result<ExitCode> {
    let margin = args.abstain_below.unwrap_or(0.0);
    check_margin(margin)?;
    check_svg(args.plot.as_deref())?;
    let mut outputs = OutputSet::new();
    let report_slot = outputs.add_stdout("the report")?;
    let mut slot =
        |flag, path: &Option<PathBuf>| path.as_ref().map(|p| outputs.add(flag, p)).transpose();
    let predictions_slot = slot("--predictions", &args.predictions)?;
    let curve_slot = slot("--risk-coverage", &args.risk_coverage)?;
    let plot_slot = slot("--plot", &args.plot)?;
    let policy = args.policy.build()?;
    let (episodes, unreadable) = read_inputs(&args.files, args.format)?;
    let options = EvaluateOptions {
        batch: limits.batch(args.policy.pruning()?),
        abstain_below: margin,
        calibration: args.calibration_report || args.plot.is_some(),
        seed: BOOTSTRAP_SEED,
    };
    let progress = Progress::new("inferring");
    let mut run = evaluate(&episodes, policy.as_ref(), &options, &progress)?;
    let seconds = progress.elapsed();
    run.evaluation.unreadable = unreadable;
    if let Some(slot) = predictions_slot {
        outputs.put(slot, to_jsonl(&run.predictions)?);
    }
    if let Some(slot) = curve_slot {
        outputs.put(slot, risk_coverage_csv(&run.risk_coverage()));
    }
    if let (Some(slot), Some(calibration)) = (plot_slot, &run.evaluation.calibration) {
        outputs.put(slot, reliability_svg(calibration));
    }
    let report = if args.json {
        serde_json::to_string_pretty(&run.evaluation)? + "\n"
    } else {
        super::render::evaluation(&run.evaluation)
    };
    outputs.put(report_slot, report);
    out.write(&outputs.commit()?)?;
    let questions = run.outcomes.len();
    eprintln!(
        "bip: {questions} questions from {} episodes in {seconds:.2} s ({:.1} ms per question)",
        episodes.len(),
        seconds * 1e3 / questions.max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip::engine::evaluation::DEFAULT_ABSTAIN_MARGIN;

    #[test]
    fn default_margin_text_matches_the_library() {
        assert_eq!(
            DEFAULT_MARGIN_TEXT.parse::<f64>().ok(),
            Some(DEFAULT_ABSTAIN_MARGIN)
        );
    }
}
