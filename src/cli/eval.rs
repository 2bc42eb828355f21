//! `bip eval`: answer every question of files of episodes and score against expected answers.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::engine::evaluation::{Evaluation, Outcome};
use bip::engine::report::predictions;
use bip::engine::{infer_all, BatchOptions, PlannerPolicy, Policy, DEFAULT_BETA};
use bip::io::{read_episodes, write_atomically};

use super::infer::PolicyKind;
use super::progress::Progress;

/// Seed of the bootstrap resamples: fixed, so that a report is reproducible.
const BOOTSTRAP_SEED: u64 = 0;

/// Arguments of `bip eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Episode files: `.jsonl` (one episode a line) or `.json`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Model of the agent.
    #[arg(long, value_enum, default_value_t = PolicyKind::Planner)]
    policy: PolicyKind,
    /// Rationality of the planner.
    #[arg(long, default_value_t = DEFAULT_BETA, allow_negative_numbers = true)]
    beta: f64,
    /// Write one JSON line per question (episode, question, content hash, posterior,
    /// answer, expected) to this file.
    #[arg(long)]
    predictions: Option<PathBuf>,
}

/// Runs `bip eval`.
pub fn run(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let policy: Box<dyn Policy> = match args.policy {
        PolicyKind::Planner => Box::new(PlannerPolicy::new(args.beta).context("invalid --beta")?),
    };
    let mut episodes = Vec::new();
    for path in &args.files {
        episodes.extend(read_episodes(path)?);
    }
    let progress = Progress::new("inferring", episodes.len());
    let results = infer_all(
        &episodes,
        policy.as_ref(),
        &BatchOptions::default(),
        &|| progress.tick(),
    );
    let mut outcomes = Vec::new();
    let mut lines = String::new();
    for (episode, result) in episodes.iter().zip(results) {
        let inference =
            result.with_context(|| format!("episode {}: inference failed", episode.id))?;
        for (question, answer) in episode.questions.iter().zip(&inference.answers) {
            if let Some(expected) = question.expected {
                outcomes.push(Outcome {
                    episode: episode.id.clone(),
                    label: question.label.clone(),
                    expected,
                    choice: answer.choice,
                });
            }
        }
        for line in predictions(episode, &inference) {
            lines.push_str(&line);
            lines.push('\n');
        }
    }
    let seconds = progress.elapsed();
    let evaluation = Evaluation::new(&outcomes, BOOTSTRAP_SEED);
    if let Some(path) = &args.predictions {
        write_atomically(path, lines.as_bytes())?;
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
        evaluation.n,
        episodes.len(),
        seconds * 1e3 / evaluation.n.max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}
