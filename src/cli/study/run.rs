//! Answering a study's questions: for each policy cell, every (theme, item) unit of the
//! run's shard whose questions are not yet in the results file, each appended as soon as
//! it is answered. A cell with nothing left to answer does not even load its model.

use std::collections::HashSet;

use anyhow::Context;
use rayon::prelude::*;

use bip::engine::{run_side_by_side, Policy};
use bip::episodes::Episode;
use bip::io::{to_jsonl, AppendLog};
use bip::lab::study::{StudyLayout, StudyRecord, Unit};
use bip::lab::variance::Shard;
use bip::lab::RunObserver;

use crate::cli::limits::Limits;
use crate::cli::progress::Progress;
use crate::cli::study::plan::{Cell, Plan};

/// A unit with the keys of the questions it still has to answer.
type Todo = (Unit, HashSet<String>);

/// Answers every question of `shard` not in `done`, cell by cell (those of `only` when
/// it names any), appending to `log`.
pub fn answer(
    plan: &Plan,
    only: &[String],
    layout: &StudyLayout,
    shard: Option<Shard>,
    limits: &Limits,
    log: &AppendLog,
    done: &[StudyRecord],
) -> anyhow::Result<()> {
    let done: HashSet<(&str, &str, &str)> = done.iter().map(StudyRecord::key).collect();
    let units = layout.units(shard);
    let cells = plan
        .cells
        .iter()
        .filter(|c| only.is_empty() || only.contains(&c.name));
    for cell in cells {
        let todo: Vec<Todo> = units
            .iter()
            .filter_map(|&unit| {
                let theme = layout.themes[unit.theme].as_str();
                let left: HashSet<String> = layout
                    .keys(unit)
                    .into_iter()
                    .filter(|k| !done.contains(&(cell.name.as_str(), theme, k.as_str())))
                    .collect();
                (!left.is_empty()).then_some((unit, left))
            })
            .collect();
        note!(
            "bip: policy {}: {} of {} (theme, item) units to answer",
            cell.name,
            todo.len(),
            units.len()
        );
        if !todo.is_empty() {
            answer_cell(plan, layout, cell, &todo, limits, log)
                .with_context(|| format!("policy \"{}\"", cell.name))?;
        }
    }
    Ok(())
}

/// Loads `cell`'s policy and answers its `todo` units: in parallel, or, for a policy that
/// runs one episode at a time, side by side through its forks where it has them (as
/// `bip eval` runs them, [`run_side_by_side`]) and else one after another.
fn answer_cell(
    plan: &Plan,
    layout: &StudyLayout,
    cell: &Cell,
    todo: &[Todo],
    limits: &Limits,
    log: &AppendLog,
) -> anyhow::Result<()> {
    let policy = cell.policy.build()?;
    let batch = limits.batch(&cell.policy)?;
    let progress = Progress::new("inferring").reading(&plan.questions);
    progress.started(todo.len());
    let work = |(unit, left): &Todo, policy: &dyn Policy| -> anyhow::Result<()> {
        let theme = &layout.themes[unit.theme];
        let line = layout.line(unit.item);
        // Units with questions to answer were read (`StudyLayout::keys`).
        let episode = layout
            .episode(*unit)
            .map_err(|why| anyhow::anyhow!("line {line} in {theme}: {why}"))?;
        let records =
            StudyRecord::of_episode(&cell.name, theme, line, episode, policy, &batch, &|key| {
                left.contains(key)
            })?;
        log.append(&to_jsonl(records)?)?;
        progress.episode_done();
        Ok(())
    };
    let policy = policy.as_ref();
    if !policy.serial() {
        todo.par_iter().try_for_each(|t| work(t, policy))?;
    } else {
        let worlds: Vec<_> = todo
            .iter()
            .map(|(unit, _)| layout.episode(*unit).ok().map(Episode::world))
            .collect();
        match run_side_by_side(todo, &worlds, policy, &work) {
            Some(results) => results.into_iter().collect::<anyhow::Result<()>>()?,
            None => todo.iter().try_for_each(|t| work(t, policy))?,
        }
    }
    for line in cell.policy.cache_report() {
        note!("bip: {line}");
    }
    Ok(())
}
