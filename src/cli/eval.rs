//! `bip eval`: answer every question of files of episodes and score against expected answers.

use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::engine::evaluation::{risk_coverage, Evaluation, Outcome};
use bip::engine::report::predictions;
use bip::engine::{infer_all, BatchOptions, CostSummary};
use bip::episodes::import::mmtom::read_jsonl;
use bip::io::{read_episodes, write_atomically};
use bip::plot::reliability_svg;

use super::policy::PolicyArgs;
use super::progress::Progress;

/// The library's `DEFAULT_ABSTAIN_MARGIN` as clap wants it (a test keeps the two equal).
const DEFAULT_MARGIN_TEXT: &str = "0.02";

/// Seed of the bootstrap resamples: fixed, so that a report is reproducible.
const BOOTSTRAP_SEED: u64 = 0;

/// What the input files hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// `bip-episode/1` episodes (`.jsonl` one a line, or `.json`).
    Episodes,
    /// MMToM-QA text questions (JSONL), read with `bip import mmtom`'s reader.
    Mmtom,
}

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
pub fn run(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let margin = args.abstain_below.unwrap_or(0.0);
    if !(margin.is_finite() && margin >= 0.0) {
        bail!("--abstain-below: {margin} is not a margin ≥ 0");
    }
    if let Some(plot) = &args.plot {
        if plot.extension().is_none_or(|x| x != "svg") {
            bail!(
                "--plot {}: only SVG output is supported (name the file *.svg)",
                plot.display()
            );
        }
    }
    let policy = args.policy.build()?;
    let mut episodes = Vec::new();
    let mut unreadable = 0;
    for path in &args.files {
        match args.format {
            InputFormat::Episodes => episodes.extend(read_episodes(path)?),
            InputFormat::Mmtom => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
                for (line, record) in read_jsonl(&text) {
                    match record {
                        Ok(record) => episodes.push(record.episode),
                        Err(e) => {
                            unreadable += 1;
                            eprintln!("bip: {}:{line}: unreadable: {e}", path.display());
                        }
                    }
                }
            }
        }
    }
    let options = BatchOptions {
        pruning: args.policy.pruning()?,
        ..BatchOptions::default()
    };
    let progress = Progress::new("inferring", episodes.len());
    let results = infer_all(&episodes, policy.as_ref(), &options, &|| progress.tick());
    let mut costs = Vec::new();
    let mut outcomes = Vec::new();
    let mut lines = String::new();
    for (episode, result) in episodes.iter().zip(results) {
        let inference =
            result.with_context(|| format!("episode {}: inference failed", episode.id))?;
        for ((question, answer), cost) in episode
            .questions
            .iter()
            .zip(&inference.answers)
            .zip(&inference.costs)
        {
            costs.push(*cost);
            if let Some(expected) = question.expected {
                outcomes.push(Outcome {
                    episode: episode.id.clone(),
                    label: question.label.clone(),
                    expected,
                    answer: answer.clone(),
                });
            }
        }
        for line in predictions(episode, &inference) {
            lines.push_str(&line);
            lines.push('\n');
        }
    }
    let seconds = progress.elapsed();
    let mut evaluation = Evaluation::new(&outcomes, margin, BOOTSTRAP_SEED);
    if args.format == InputFormat::Mmtom {
        evaluation.unreadable = Some(unreadable);
    }
    evaluation.cost = Some(CostSummary::of(&costs));
    if args.calibration_report || args.plot.is_some() {
        evaluation = evaluation.with_calibration(&outcomes);
    }
    if let Some(path) = &args.predictions {
        write_atomically(path, lines.as_bytes())?;
    }
    if let Some(path) = &args.risk_coverage {
        let mut csv =
            String::from("margin,coverage,selective_accuracy,refusal_recall,over_refusal\n");
        for point in risk_coverage(&outcomes) {
            let _ = writeln!(
                csv,
                "{},{},{},{},{}",
                point.margin,
                point.coverage,
                point.selective_accuracy,
                point.refusal_recall,
                point.over_refusal
            );
        }
        write_atomically(path, csv.as_bytes())?;
    }
    if let (Some(path), Some(calibration)) = (&args.plot, &evaluation.calibration) {
        write_atomically(path, reliability_svg(calibration).as_bytes())?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&evaluation).context("serialising the report")?
        );
    } else {
        print!("{}", super::render::evaluation(&evaluation));
    }
    eprintln!(
        "bip: {} questions from {} episodes in {seconds:.2} s ({:.1} ms per question)",
        outcomes.len(),
        episodes.len(),
        seconds * 1e3 / outcomes.len().max(1) as f64
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
