//! `bip variance`: accuracy across thematic variants of the same questions, and
//! `bip variance merge` to combine shards.
//!
//! Long runs (language-model policies) are split with `--shard k/n`: shard k takes the
//! input items whose position (from 0, blank lines skipped) is k−1 modulo n, in every
//! theme, and writes its per-item records to `--predictions`. `bip variance merge` reads
//! those files and reports as one run would; an interrupted run re-runs only its
//! unfinished shards. (Shards rather than a results cache: no hidden state, and each
//! shard's file is written atomically, so a file is either complete or absent.)

pub(super) mod render;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use bip::io::{file_stem, read_input, to_jsonl};
use bip::lab::variance::{compared_themes, merge_shards, run_themes, Item, Shard, VarianceOptions};

use crate::cli::input::InputFormat;
use crate::cli::limits::Limits;
use crate::cli::output::Output;
use crate::cli::policy::PolicyArgs;
use crate::cli::progress::Progress;
use crate::cli::theme::names::listed;
use crate::cli::theme::ThemeFiles;
use crate::cli::variance::render::{report, OutputArgs};

/// Seed of the bootstrap resamples: fixed, so that a report is reproducible.
const BOOTSTRAP_SEED: u64 = 0;

/// Arguments of `bip variance`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct VarianceArgs {
    #[command(subcommand)]
    command: Option<VarianceCommand>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum VarianceCommand {
    /// Combine the --predictions files of shards into one report.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Input: `bip-episode/1` episodes (`.json`, `.jsonl`) or MMToM-QA records (`.jsonl`).
    #[arg(required = true)]
    input: Option<PathBuf>,
    /// What the input holds.
    #[arg(long, value_enum, default_value_t = InputFormat::Episodes)]
    format: InputFormat,
    /// Themes to compare: `all`, or ids separated by commas (Apartment, the baseline, is
    /// always included).
    #[arg(long, default_value = "all")]
    themes: String,
    #[command(flatten)]
    files: ThemeFiles,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    output: OutputArgs,
    /// Write one JSON line per theme and question (and per unreadable input) to this file;
    /// `bip variance merge` reads them.
    #[arg(long)]
    predictions: Option<PathBuf>,
    /// Run only shard k of n (`2/4`): the items at positions k−1, k−1+n, ... (needs
    /// --predictions).
    #[arg(long)]
    shard: Option<Shard>,
}

#[derive(Debug, Args)]
struct MergeArgs {
    /// Predictions files written by `bip variance --shard k/n --predictions FILE`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `bip variance`.
pub fn run(args: &VarianceArgs, limits: &Limits, out: &mut Output) -> anyhow::Result<ExitCode> {
    match &args.command {
        Some(VarianceCommand::Merge(args)) => merge(args, out),
        None => compare(&args.run, limits, out),
    }
}

/// `bip variance INPUT`: the items of INPUT in every theme asked for.
fn compare(args: &RunArgs, limits: &Limits, out: &mut Output) -> anyhow::Result<ExitCode> {
    let Some(input) = &args.input else {
        bail!("no INPUT given");
    };
    if args.shard.is_some() && args.predictions.is_none() {
        bail!(
            "--shard needs --predictions FILE to keep the shard's results for `bip variance merge`"
        );
    }
    let mut outputs = args.output.plan()?;
    let predictions = args
        .predictions
        .as_ref()
        .map(|p| outputs.0.add("--predictions", p))
        .transpose()?;
    let themes = compared_themes(
        listed("--themes", &args.themes)?.as_deref(),
        &args.files.load()?,
    )
    .context("--themes")?;
    let policy = args.policy.build()?;
    let text = read_input(input)?;
    let one_document =
        args.format == InputFormat::Episodes && input.extension().is_none_or(|x| x != "jsonl");
    let items = if one_document {
        vec![Item::whole(&text)]
    } else {
        Item::lines(&text)
    };
    let options = VarianceOptions {
        format: args.format.into(),
        id_stem: file_stem(input),
        shard: args.shard,
        batch: limits.batch_side_by_side(&args.policy)?,
        seed: BOOTSTRAP_SEED,
    };
    let progress = Progress::new("inferring").reading(input);
    let run = run_themes(&items, &themes, policy.as_ref(), &options, &progress)?;
    if let Some(slot) = predictions {
        // The run line, then the records: the file `bip variance merge` reads.
        let text = to_jsonl([&run.header])? + &to_jsonl(&run.records)?;
        outputs.0.put(slot, text);
    }
    report(&run.report, &args.output, outputs, out)?;
    note!(
        "bip: {} items × {} themes in {:.2} s",
        run.items,
        themes.len(),
        progress.elapsed()
    );
    for line in args.policy.cache_report() {
        note!("bip: {line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `bip variance merge FILES`: the report over shards' records.
fn merge(args: &MergeArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let outputs = args.output.plan()?;
    let mut files = Vec::with_capacity(args.files.len());
    for path in &args.files {
        files.push((path.display().to_string(), read_input(path)?));
    }
    let files = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_str()));
    report(
        &merge_shards(files, BOOTSTRAP_SEED)?,
        &args.output,
        outputs,
        out,
    )?;
    Ok(ExitCode::SUCCESS)
}
