//! `bip variance`: accuracy across thematic variants of the same questions, and
//! `bip variance merge` to combine shards.
//!
//! Long runs (language-model policies) are split with `--shard k/n`: shard k takes the
//! input items whose position (from 0, blank lines skipped) is k−1 modulo n, in every
//! theme, and writes its per-item records to `--predictions`. `bip variance merge` reads
//! those files and reports as one run would; an interrupted run re-runs only its
//! unfinished shards. (Shards rather than a results cache: no hidden state, and each
//! shard's file is written atomically, so a file is either complete or absent.)

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use bip::engine::variance::{
    compared_themes, merge_shards, run_themes, Item, Shard, VarianceOptions, VarianceReport,
};
use bip::engine::BatchOptions;
use bip::io::{file_stem, to_jsonl, write_atomically};
use bip::plot::variance_svg;

use super::input::InputFormat;
use super::output::{check_svg, Output};
use super::policy::PolicyArgs;
use super::progress::Progress;
use super::theme::ThemeFiles;

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

/// Where the report goes.
#[derive(Debug, Args)]
struct OutputArgs {
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Draw accuracy by theme and question type to this SVG file.
    #[arg(long)]
    plot: Option<PathBuf>,
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
pub fn run(args: &VarianceArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    match &args.command {
        Some(VarianceCommand::Merge(args)) => merge(args, out),
        None => compare(&args.run, out),
    }
}

/// `bip variance INPUT`: the items of INPUT in every theme asked for.
fn compare(args: &RunArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let Some(input) = &args.input else {
        bail!("no INPUT given");
    };
    if args.shard.is_some() && args.predictions.is_none() {
        bail!(
            "--shard needs --predictions FILE to keep the shard's results for `bip variance merge`"
        );
    }
    check_svg(args.output.plot.as_deref())?;
    let names: Option<Vec<&str>> = (args.themes.trim() != "all").then(|| {
        let names = args.themes.split(',').map(str::trim);
        names.filter(|s| !s.is_empty()).collect()
    });
    let themes = compared_themes(names.as_deref(), &args.files.load()?).context("--themes")?;
    let policy = args.policy.build()?;
    let text = std::fs::read_to_string(input).with_context(|| format!("{}", input.display()))?;
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
        batch: BatchOptions {
            pruning: args.policy.pruning()?,
            ..BatchOptions::default()
        },
        seed: BOOTSTRAP_SEED,
    };
    let progress = Progress::new("inferring").reading(input);
    let run = run_themes(&items, &themes, policy.as_ref(), &options, &progress)?;
    if let Some(path) = &args.predictions {
        write_atomically(path, to_jsonl(&run.records)?.as_bytes())?;
    }
    report(&run.report, &args.output, out)?;
    eprintln!(
        "bip: {} items × {} themes in {:.2} s",
        run.items,
        themes.len(),
        progress.elapsed()
    );
    for line in args.policy.cache_report() {
        eprintln!("bip: {line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `bip variance merge FILES`: the report over shards' records.
fn merge(args: &MergeArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    check_svg(args.output.plot.as_deref())?;
    let mut files = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
        files.push((path.display().to_string(), text));
    }
    let files = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_str()));
    report(&merge_shards(files, BOOTSTRAP_SEED)?, &args.output, out)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the report (and plots it).
fn report(report: &VarianceReport, output: &OutputArgs, out: &mut Output) -> anyhow::Result<()> {
    if let Some(path) = &output.plot {
        write_atomically(path, variance_svg(report).as_bytes())?;
    }
    if output.json {
        out.json(report)
    } else {
        Ok(out.print(&super::variance_render::variance(report))?)
    }
}
