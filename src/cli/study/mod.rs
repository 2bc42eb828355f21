//! `bip study PLAN.toml`: a comparison grid of policies × themes × questions, paired by
//! question, resumable (results appended as answered, a rerun skips them) and shardable
//! (`--shard k/n`, then `--report-only` over every shard's results).

pub(super) mod plan;
mod plan_file;
#[cfg(test)]
pub(super) mod plan_fuzz;
pub(super) mod render;
pub(super) mod results;
pub(super) mod run;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::engine::BatchOptions;
use bip::io::{file_stem, read_input};
use bip::lab::study::{StudyLayout, StudyReport};
use bip::lab::variance::{Item, Shard, VarianceOptions};
use bip::lab::LabError;

use crate::cli::input::InputFormat;
use crate::cli::limits::Limits;
use crate::cli::output::Output;
use crate::cli::study::plan::Plan;
use crate::cli::study::render::write_report;
use crate::cli::study::results::{open_own, read_all, results_path};
use crate::cli::study::run::answer;

/// Seed of the bootstrap resamples: fixed, as in `bip variance`, so that reports agree.
const BOOTSTRAP_SEED: u64 = 0;

/// Arguments of `bip study`.
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// The plan: a TOML file naming the questions, themes, subset and policy cells.
    plan: PathBuf,
    /// Run only shard k of n (`2/4`): the plan's items at positions k−1, k−1+n, ... in
    /// every theme and policy; its results go to `results-k-of-n.jsonl`.
    #[arg(long, conflicts_with = "report_only")]
    shard: Option<Shard>,
    /// Answer nothing: write the report from every results file in the output folder
    /// (each shard's, copied there), refusing an incomplete set.
    #[arg(long)]
    report_only: bool,
    /// Run only these cells (names, comma-separated), into the same results file: the
    /// other cells' files (adapters, calibrations) need not exist yet, and the report
    /// waits until every cell is in. With --report-only: report these cells alone, once
    /// each is complete (`partial-report.*`; replicate groups only when whole).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    cells: Vec<String>,
}

/// Runs `bip study`.
pub fn run(args: &StudyArgs, limits: &Limits, out: &mut Output) -> anyhow::Result<ExitCode> {
    let plan = Plan::load(&args.plan, &args.cells)?;
    let name = plan.path.display().to_string();
    let text = read_input(&plan.questions).with_context(|| format!("{name}: questions"))?;
    let items = items(&text, &plan);
    let options = VarianceOptions {
        format: plan.format.into(),
        id_stem: file_stem(&plan.questions),
        shard: None,
        batch: BatchOptions::default(),
        seed: BOOTSTRAP_SEED,
    };
    let layout = StudyLayout::read(&items, &plan.themes, &options, plan.subset)
        .with_context(|| format!("{}", plan.questions.display()))?;
    // A study of nothing (a questions file of other things, or the plan itself) would
    // report 0% everywhere with status 0.
    if layout.units(None).is_empty() {
        let lines = if items.len() == 1 { "line" } else { "lines" };
        bail!(
            "{name}: questions: {} holds no question bip could read ({} {lines})",
            plan.questions.display(),
            items.len()
        );
    }
    let fingerprint = plan.fingerprint(&text);
    if !args.report_only {
        // Every results file in the folder is checked against the plan before anything
        // is written, and what any of them holds is not answered again.
        std::fs::create_dir_all(&plan.out)
            .with_context(|| format!("{name}: out: making {}", plan.out.display()))?;
        let done = read_all(&plan.out, &fingerprint)?;
        let log = open_own(&plan.out, args.shard, &fingerprint)?;
        answer(&plan, &args.cells, &layout, args.shard, limits, &log, &done)?;
    }
    let records = read_all(&plan.out, &fingerprint)?;
    let partial = args.report_only && !args.cells.is_empty();
    let names: Vec<String> = plan
        .cells
        .iter()
        .map(|c| c.name.clone())
        .filter(|n| !partial || args.cells.contains(n))
        .collect();
    let groups: Vec<(String, Vec<String>)> = plan
        .groups
        .iter()
        .filter(|(_, members)| members.iter().all(|m| names.contains(m)))
        .cloned()
        .collect();
    match StudyReport::from_records(&layout, &names, &records, BOOTSTRAP_SEED) {
        Ok(report) => write_report(&report.with_replicates(&groups), &plan, partial, out)?,
        Err(LabError::IncompleteStudy { missing, total, .. }) if args.shard.is_some() => {
            note!(
                "bip: {} done; {missing} of {total} results of the study are still missing \
                 (other shards): `bip study {name} --report-only` once every shard is in {}",
                results_path(&plan.out, args.shard).display(),
                plan.out.display()
            );
        }
        Err(LabError::IncompleteStudy { missing, total, .. }) if !args.cells.is_empty() => {
            note!(
                "bip: cells {} done; {missing} of {total} results of the study are still \
                 missing (other cells): run them, or the whole plan, to report",
                args.cells.join(", ")
            );
        }
        Err(e) => return Err(e.into()),
    }
    Ok(ExitCode::SUCCESS)
}

/// The input items: each line of a JSON Lines file, or a whole `bip-episode/1` document.
fn items<'a>(text: &'a str, plan: &Plan) -> Vec<Item<'a>> {
    let one_document = plan.format == InputFormat::Episodes
        && plan.questions.extension().is_none_or(|x| x != "jsonl");
    if one_document {
        vec![Item::whole(text)]
    } else {
        Item::lines(text)
    }
}
