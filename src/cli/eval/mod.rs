//! `bip eval`: answer every question of files of episodes and score against expected answers.

pub(super) mod outputs;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use clap::Args;

use bip::episodes::Story;
use bip::io::to_jsonl;
use bip::lab::evaluation::{evaluate, risk_coverage_csv, EvaluateOptions};
use bip::lab::plot::reliability_svg;

use crate::cli::eval::outputs::EvalOutputs;
use crate::cli::input::{read_inputs, InputFormat};
use crate::cli::limits::Limits;
use crate::cli::nested::{read_documents, read_hitom, read_tomi_files, TrustArgs};
use crate::cli::output::{check_margin, check_svg, Output};
use crate::cli::policy::PolicyArgs;
use crate::cli::progress::Progress;

/// The library's `DEFAULT_ABSTAIN_MARGIN` as clap wants it (a test keeps the two equal).
const DEFAULT_MARGIN_TEXT: &str = "0.02";

/// Seed of the bootstrap resamples: fixed, so that a report is reproducible.
const BOOTSTRAP_SEED: u64 = 0;

/// Arguments of `bip eval`.
// Files, --json, the policy and trust flags are `bip infer`'s too, with help in eval's words.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Episode files: `.jsonl` (one episode a line) or `.json`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// What the files hold.
    #[arg(long, value_enum, default_value_t = EvalFormat::Episodes)]
    format: EvalFormat,
    /// With `--format tomi`: each file's trace (question and story types, for the report
    /// only), one per file, in the files' order.
    #[arg(long)]
    trace: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    trust: TrustArgs,
    /// Write one JSON line per question (episode, question, content hash, posterior,
    /// answer, expected) to this file.
    #[arg(long)]
    pub(super) predictions: Option<PathBuf>,
    /// Abstain ("cannot tell") when the two best options are closer than this margin;
    /// the flag alone uses the default margin (0.02).
    #[arg(long, num_args = 0..=1, default_missing_value = DEFAULT_MARGIN_TEXT)]
    abstain_below: Option<f64>,
    /// Write the risk–coverage curve (one row per margin) to this CSV file.
    #[arg(long)]
    pub(super) risk_coverage: Option<PathBuf>,
    /// Report calibration: ECE over 10 equal-mass bins, Brier score, mean log-likelihood.
    #[arg(long)]
    calibration_report: bool,
    /// Draw the reliability diagram to this SVG file (implies --calibration-report).
    #[arg(long)]
    pub(super) plot: Option<PathBuf>,
}

/// What the files of `bip eval` hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EvalFormat {
    /// `bip-episode/1` documents (`.jsonl` one a line, or `.json`): single-agent episodes
    /// or stories, not both.
    Episodes,
    /// MMToM-QA text questions (JSONL), read with `bip import mmtom`'s reader.
    Mmtom,
    /// Hi-ToM records (JSONL), read with `bip import hitom`'s reader into stories.
    Hitom,
    /// ToMi questions (bAbI layout), read with `bip import tomi`'s reader into stories.
    Tomi,
}

/// Runs `bip eval`.
pub fn run(args: &EvalArgs, limits: &Limits, out: &mut Output) -> anyhow::Result<ExitCode> {
    let margin = args.abstain_below.unwrap_or(0.0);
    check_margin(margin)?;
    check_svg(args.plot.as_deref())?;
    let mut outputs = EvalOutputs::check(args)?;
    outputs
        .set
        .refuse_inputs(args.files.iter().chain(&args.trace).map(PathBuf::as_path))?;
    if !args.trace.is_empty() && args.format != EvalFormat::Tomi {
        bail!("--trace is for --format tomi");
    }
    let (episodes, unreadable) = match args.format {
        EvalFormat::Mmtom => read_inputs(&args.files, InputFormat::Mmtom)?,
        EvalFormat::Episodes => match read_documents(&args.files)? {
            (_, stories) if !stories.is_empty() => {
                return stories_run(args, &stories, None, outputs, out)
            }
            (episodes, _) => (episodes, None),
        },
        EvalFormat::Hitom => {
            let (stories, unreadable) = read_hitom(&args.files)?;
            return stories_run(args, &stories, Some(unreadable), outputs, out);
        }
        EvalFormat::Tomi => {
            let (stories, unreadable) = read_tomi_files(&args.files, &args.trace)?;
            return stories_run(args, &stories, Some(unreadable), outputs, out);
        }
    };
    let policy = args.policy.build()?;
    let options = EvaluateOptions {
        batch: limits.batch_side_by_side(&args.policy)?,
        abstain_below: margin,
        calibration: args.calibration_report || args.plot.is_some(),
        seed: BOOTSTRAP_SEED,
    };
    let progress = Progress::new("inferring");
    let mut run = evaluate(&episodes, policy.as_ref(), &options, &progress)?;
    let seconds = progress.elapsed();
    run.evaluation.unreadable = unreadable;
    if let Some(slot) = outputs.predictions {
        outputs.set.put(slot, to_jsonl(&run.predictions)?);
    }
    if let Some(slot) = outputs.curve {
        outputs
            .set
            .put(slot, risk_coverage_csv(&run.risk_coverage()));
    }
    if let (Some(slot), Some(calibration)) = (outputs.plot, &run.evaluation.calibration) {
        outputs.set.put(slot, reliability_svg(calibration));
    }
    let report = if args.json {
        serde_json::to_string_pretty(&run.evaluation)? + "\n"
    } else {
        crate::cli::render::evaluation(&run.evaluation)
    };
    outputs.set.put(outputs.report, report);
    out.commit(outputs.set)?;
    let questions = run.outcomes.len();
    note!(
        "bip: {questions} questions from {} episodes in {seconds:.2} s ({:.1} ms per question)",
        episodes.len(),
        seconds * 1e3 / questions.max(1) as f64
    );
    for line in args.policy.cache_report() {
        note!("bip: {line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `bip eval` on stories: nested-belief inference with the trust of the flags.
fn stories_run(
    args: &EvalArgs,
    stories: &[Story],
    unreadable: Option<usize>,
    mut outputs: EvalOutputs,
    out: &mut Output,
) -> anyhow::Result<ExitCode> {
    if args.abstain_below.is_some() || args.risk_coverage.is_some() || args.plot.is_some() {
        bail!("--abstain-below, --risk-coverage and --plot are for single-agent episodes");
    }
    let trust = args.trust.trust(args.policy.calibration())?;
    let started = std::time::Instant::now();
    let (report, predictions) = crate::cli::nested::eval(stories, unreadable, trust, args.json)?;
    if let Some(slot) = outputs.predictions {
        outputs.set.put(slot, predictions);
    }
    outputs.set.put(outputs.report, report);
    out.commit(outputs.set)?;
    let questions: usize = stories.iter().map(|s| s.questions().len()).sum();
    note!(
        "bip: {questions} questions from {} stories in {:.2} s",
        stories.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip::lab::evaluation::DEFAULT_ABSTAIN_MARGIN;

    #[test]
    fn default_margin_text_matches_the_library() {
        assert_eq!(
            DEFAULT_MARGIN_TEXT.parse::<f64>().ok(),
            Some(DEFAULT_ABSTAIN_MARGIN)
        );
    }
}
