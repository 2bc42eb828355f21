//! `bip infer`: answer every question of every episode given.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::engine::infer_episode;
use bip::episodes::AnyEpisode;
use bip::io::{read_any_episodes, OutputSet};
use bip::lab::report::{EpisodeReport, Report};

use crate::cli::limits::Limits;
use crate::cli::nested::{infer_reports, TrustArgs};
use crate::cli::output::{check_margin, Output};
use crate::cli::policy::PolicyArgs;
use crate::cli::render::{self, nested as render_nested};

/// Arguments of `bip infer`.
// Files, --json, the policy and trust flags are `bip eval`'s too, with help in infer's words.
#[derive(Debug, Args)]
pub struct InferArgs {
    /// Episode files (`bip-episode/1` JSON): single-agent episodes or stories, not both.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    trust: TrustArgs,
    /// Answer "cannot tell" (answer null) when the two best options' probabilities are
    /// closer than this margin (between 0 and 1).
    #[arg(long, default_value_t = 0.0)]
    abstain_below: f64,
    /// Show the posterior over goals and beliefs after every step.
    #[arg(long)]
    trace: bool,
    /// How many joint hypotheses the trace lists per step.
    #[arg(long, default_value_t = 5, requires = "trace")]
    trace_top: usize,
    /// Write the output to this file (atomically; `-` is standard output, a device or
    /// pipe is written in place) instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Exit with status 1 unless every question with an expected answer is answered as expected.
    #[arg(long)]
    check: bool,
}

/// Runs `bip infer`.
pub fn run(args: &InferArgs, limits: &Limits, out: &mut Output) -> anyhow::Result<ExitCode> {
    check_margin(args.abstain_below)?;
    let mut outputs = OutputSet::new();
    let report_slot = match &args.output {
        Some(path) => outputs.add("--output", path)?,
        None => outputs.add_stdout("the report")?,
    };
    outputs.refuse_inputs(args.files.iter().map(PathBuf::as_path))?;
    let mut documents = Vec::with_capacity(args.files.len());
    for path in &args.files {
        for document in read_any_episodes(path)? {
            documents.push((document, path.display().to_string()));
        }
    }
    let stories: Vec<_> = documents
        .iter()
        .filter_map(|(d, p)| match d {
            AnyEpisode::Story(s) => Some((s.clone(), p.clone())),
            AnyEpisode::Single(_) => None,
        })
        .collect();
    let (report, text) = if stories.is_empty() {
        singles(args, limits, documents)?
    } else if stories.len() == documents.len() {
        let trust = args.trust.trust(args.policy.calibration())?;
        let report = infer_reports(&stories, trust, args.abstain_below);
        let plain: Vec<_> = stories.into_iter().map(|(s, _)| s).collect();
        let text = render_nested::report(&plain, &report);
        (report, text)
    } else {
        anyhow::bail!("the files mix single-agent episodes and stories; give them separately");
    };
    let text = if args.json {
        report.to_json() + "\n"
    } else {
        text
    };
    outputs.put(report_slot, text);
    out.commit(outputs)?;
    for line in args.policy.cache_report() {
        note!("bip: {line}");
    }
    let all_correct = report.summary.correct == report.summary.with_expected;
    Ok(if args.check && !all_correct {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Single-agent episodes: the report and its text.
fn singles(
    args: &InferArgs,
    limits: &Limits,
    documents: Vec<(AnyEpisode, String)>,
) -> anyhow::Result<(Report, String)> {
    let policy = args.policy.build()?;
    let mut options = limits.batch(&args.policy)?;
    options.trace_top = args.trace.then_some(args.trace_top);
    let mut episodes = Vec::with_capacity(documents.len());
    let mut reports = Vec::with_capacity(documents.len());
    for (document, path) in documents {
        let AnyEpisode::Single(episode) = document else {
            continue;
        };
        let inference = infer_episode(&episode, policy.as_ref(), &options)
            .with_context(|| format!("{path}: inference failed"))?;
        reports.push(EpisodeReport::new(
            &episode,
            &inference,
            policy.name(),
            Some(path),
            args.abstain_below,
        ));
        episodes.push(episode);
    }
    let report = Report::new(reports);
    let text = render::report(&episodes, &report);
    Ok((report, text))
}
