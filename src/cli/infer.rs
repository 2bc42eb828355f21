//! `bip infer`: answer every question of every episode given.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::engine::report::{EpisodeReport, Report};
use bip::engine::{infer_episode, BatchOptions};
use bip::io::{read_episode, write_atomically};

use super::output::Output;
use super::policy::PolicyArgs;
use super::render;

/// Arguments of `bip infer`.
#[derive(Debug, Args)]
pub struct InferArgs {
    /// Episode files (`bip-episode/1` JSON).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Answer "cannot tell" (answer null) when the two best options' probabilities are
    /// closer than this margin.
    #[arg(long, default_value_t = 0.0)]
    abstain_below: f64,
    /// Show the posterior over goals and beliefs after every step.
    #[arg(long)]
    trace: bool,
    /// How many joint hypotheses the trace lists per step.
    #[arg(long, default_value_t = 5, requires = "trace")]
    trace_top: usize,
    /// Write the output to this file (atomically) instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Exit with status 1 unless every question with an expected answer is answered as expected.
    #[arg(long)]
    check: bool,
}

/// Runs `bip infer`.
pub fn run(args: &InferArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let policy = args.policy.build()?;
    let options = BatchOptions {
        trace_top: args.trace.then_some(args.trace_top),
        pruning: args.policy.pruning()?,
        ..BatchOptions::default()
    };
    let mut episodes = Vec::with_capacity(args.files.len());
    let mut reports = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let episode = read_episode(path)?;
        let inference = infer_episode(&episode, policy.as_ref(), &options)
            .with_context(|| format!("{}: inference failed", path.display()))?;
        reports.push(EpisodeReport::new(
            &episode,
            &inference,
            policy.name(),
            Some(path.display().to_string()),
            args.abstain_below,
        ));
        episodes.push(episode);
    }
    let report = Report::new(reports);
    let text = if args.json {
        report.to_json() + "\n"
    } else {
        render::report(&episodes, &report)
    };
    match &args.output {
        Some(path) => write_atomically(path, text.as_bytes())?,
        None => out.print(&text)?,
    }
    let all_correct = report.summary.correct == report.summary.with_expected;
    Ok(if args.check && !all_correct {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
