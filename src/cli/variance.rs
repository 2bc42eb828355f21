//! `bip variance`: accuracy across thematic variants of the same questions, and
//! `bip variance merge` to combine shards.
//!
//! Long runs (language-model policies) are split with `--shard k/n`: shard k takes the
//! input items whose position (from 0, blank lines skipped) is k−1 modulo n, in every
//! theme, and writes its per-item records to `--predictions`. `bip variance merge` reads
//! those files and reports as one run would; an interrupted run re-runs only its
//! unfinished shards. (Shards rather than a results cache: no hidden state, and each
//! shard's file is written atomically, so a file is either complete or absent.)

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use bip::engine::variance::{
    ItemRecord, UnreadableRecord, VarianceRecord, VarianceReport, VariantRun,
};
use bip::engine::{infer_all, BatchOptions};
use bip::episodes::json::EpisodeFile;
use bip::episodes::Episode;
use bip::io::write_atomically;
use bip::plot::variance_svg;
use bip::themes::{self, apply_record, read_themed_record, Theme};

use super::eval::InputFormat;
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

/// Shard k of n, 1 ≤ k ≤ n.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shard {
    k: usize,
    n: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parsed = s
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((k, n)) if (1..=n).contains(&k) => Ok(Shard { k, n }),
            _ => Err(format!("\"{s}\" is not k/n with 1 ≤ k ≤ n")),
        }
    }
}

/// Runs `bip variance`.
pub fn run(args: &VarianceArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        Some(VarianceCommand::Merge(merge)) => run_merge(merge),
        None => run_themes(&args.run),
    }
}

/// One input item: its line (from 1) and text.
struct Item<'a> {
    line: usize,
    text: &'a str,
}

fn run_themes(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let Some(input) = &args.input else {
        bail!("no INPUT given");
    };
    if args.shard.is_some() && args.predictions.is_none() {
        bail!(
            "--shard needs --predictions FILE to keep the shard's results for `bip variance merge`"
        );
    }
    check_plot(&args.output)?;
    let themes = selected_themes(&args.themes, &args.files.load()?)?;
    let policy = args.policy.build()?;
    let text = std::fs::read_to_string(input).with_context(|| format!("{}", input.display()))?;
    let items: Vec<Item> =
        if args.format == InputFormat::Episodes && input.extension().is_none_or(|x| x != "jsonl") {
            vec![Item {
                line: 1,
                text: &text,
            }]
        } else {
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| Item {
                    line: i + 1,
                    text: l,
                })
                .collect()
        };
    let items: Vec<&Item> = items
        .iter()
        .enumerate()
        .filter(|(i, _)| args.shard.is_none_or(|s| i % s.n == s.k - 1))
        .map(|(_, item)| item)
        .collect();
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Read every item in every theme; what cannot be read is recorded, not fatal.
    let mut records: Vec<VarianceRecord> = Vec::new();
    let mut episodes: Vec<(usize, Episode)> = Vec::new();
    for (t, theme) in themes.iter().enumerate() {
        for item in &items {
            let read = match args.format {
                InputFormat::Mmtom => apply_record(item.text, theme)
                    .and_then(|line| read_themed_record(&line, item.line, theme))
                    .map(|r| r.episode)
                    .map_err(anyhow::Error::from),
                InputFormat::Episodes => {
                    themed_episode(item.text, &format!("{stem}-{}", item.line), theme)
                }
            };
            match read {
                Ok(episode) => episodes.push((t, episode)),
                Err(e) => {
                    eprintln!(
                        "bip: {}:{} ({}): unreadable: {e:#}",
                        input.display(),
                        item.line,
                        theme.id()
                    );
                    records.push(VarianceRecord::Unreadable(UnreadableRecord {
                        theme: theme.id().to_string(),
                        line: item.line,
                        unreadable: format!("{e:#}"),
                    }));
                }
            }
        }
    }
    let (owners, episodes): (Vec<usize>, Vec<Episode>) = episodes.into_iter().unzip();
    let progress = Progress::new("inferring", episodes.len());
    let options = BatchOptions {
        pruning: args.policy.pruning()?,
        ..BatchOptions::default()
    };
    let results = infer_all(&episodes, policy.as_ref(), &options, &|| progress.tick());
    for ((t, episode), result) in owners.iter().zip(&episodes).zip(results) {
        let inference =
            result.with_context(|| format!("episode {}: inference failed", episode.id))?;
        for (question, answer) in episode.questions.iter().zip(&inference.answers) {
            if question.expected.is_some() {
                records.push(VarianceRecord::Item(ItemRecord::new(
                    themes[*t].id(),
                    &episode.id,
                    question,
                    answer,
                )));
            }
        }
    }
    if let Some(path) = &args.predictions {
        let mut lines = String::new();
        for r in &records {
            lines.push_str(&serde_json::to_string(r).context("serialising a prediction")?);
            lines.push('\n');
        }
        write_atomically(path, lines.as_bytes())?;
    }
    let order: Vec<String> = themes.iter().map(|t| t.id().to_string()).collect();
    report(&records, &order, &args.output)?;
    eprintln!(
        "bip: {} items × {} themes in {:.2} s",
        items.len(),
        themes.len(),
        progress.elapsed()
    );
    Ok(ExitCode::SUCCESS)
}

/// The themes named by `--themes`, Apartment (the baseline) first.
fn selected_themes(spec: &str, extra: &[Theme]) -> anyhow::Result<Vec<Theme>> {
    let mut out: Vec<Theme> = vec![themes::find(themes::BASELINE, &[])?];
    let names: Vec<String> = if spec.trim() == "all" {
        themes::builtin_ids()
            .into_iter()
            .map(str::to_string)
            .chain(extra.iter().map(|t| t.id().to_string()))
            .collect()
    } else {
        spec.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    for name in names {
        if out.iter().all(|t| t.id() != name) {
            out.push(themes::find(&name, extra).context("--themes")?);
        }
    }
    Ok(out)
}

/// A `bip-episode/1` document in `theme`, validated.
fn themed_episode(text: &str, fallback_id: &str, theme: &Theme) -> anyhow::Result<Episode> {
    let file: EpisodeFile = serde_json::from_str(text).context("not a bip-episode/1 document")?;
    Episode::from_file(file.clone(), fallback_id).context("invalid episode")?;
    let themed = theme.apply_episode(&file)?;
    Ok(Episode::from_file(themed, fallback_id)?)
}

fn check_plot(output: &OutputArgs) -> anyhow::Result<()> {
    match &output.plot {
        Some(plot) if plot.extension().is_none_or(|x| x != "svg") => bail!(
            "--plot {}: only SVG output is supported (name the file *.svg)",
            plot.display()
        ),
        _ => Ok(()),
    }
}

fn run_merge(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    check_plot(&args.output)?;
    let mut records = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut order: Vec<String> = Vec::new();
    for path in &args.files {
        for (line, record) in read_records(path)? {
            let (theme, key) = match &record {
                VarianceRecord::Item(r) => (r.theme.clone(), r.item.clone()),
                VarianceRecord::Unreadable(r) => (r.theme.clone(), format!("line {}", r.line)),
            };
            if !seen.insert((theme.clone(), key.clone())) {
                bail!("{}:{line}: {key} of theme {theme} is already in an earlier file (the same shard twice?)", path.display());
            }
            if !order.contains(&theme) {
                order.push(theme);
            }
            records.push(record);
        }
    }
    report(&records, &order, &args.output)?;
    Ok(ExitCode::SUCCESS)
}

fn read_records(path: &Path) -> anyhow::Result<Vec<(usize, VarianceRecord)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let record: VarianceRecord = serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a variance record", path.display(), i + 1))?;
            if let VarianceRecord::Item(r) = &record {
                r.outcome().with_context(|| {
                    format!(
                        "{}:{}: answer or expected is not an option letter",
                        path.display(),
                        i + 1
                    )
                })?;
            }
            Ok((i + 1, record))
        })
        .collect()
}

/// Builds the report from records and prints it (and plots it).
fn report(records: &[VarianceRecord], order: &[String], output: &OutputArgs) -> anyhow::Result<()> {
    let mut runs: Vec<VariantRun> = order
        .iter()
        .map(|name| VariantRun {
            name: name.clone(),
            ..VariantRun::default()
        })
        .collect();
    // The baseline first, then the order given.
    runs.sort_by_key(|r| r.name != themes::BASELINE);
    for record in records {
        let theme = match record {
            VarianceRecord::Item(r) => &r.theme,
            VarianceRecord::Unreadable(r) => &r.theme,
        };
        let Some(run) = runs.iter_mut().find(|r| &r.name == theme) else {
            continue;
        };
        match record {
            VarianceRecord::Item(r) => {
                if let Some(outcome) = r.outcome() {
                    run.items.push((r.item.clone(), outcome));
                }
            }
            VarianceRecord::Unreadable(_) => run.unreadable += 1,
        }
    }
    let report = VarianceReport::new(&runs, themes::BASELINE, BOOTSTRAP_SEED);
    if let Some(path) = &output.plot {
        write_atomically(path, variance_svg(&report).as_bytes())?;
    }
    if output.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).context("serialising the report")?
        );
    } else {
        print!("{}", super::variance_render::variance(&report));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_as_k_of_n() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { k: 2, n: 4 }));
        assert!("0/4".parse::<Shard>().is_err());
        assert!("5/4".parse::<Shard>().is_err());
        assert!("2".parse::<Shard>().is_err());
    }
}
