//! `bip calibrate`: fit the planner's β (with `--policy hybrid`, the hybrid's LM weight;
//! with `--policy w2s`, the steering strength α) on held-out episodes, or the trust of
//! nested-belief inference on stories, and save it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::io::OutputSet;
use bip::lab::calibrate::{
    fit_beta, fit_search_spread, fit_world_prior, ABSENT_GOAL_GRID, OPEN_VIEW_GRID,
    SEARCH_SPREAD_GRID,
};
use bip::lab::nested::fit_trust;
use bip::policy::PolicyKind;

mod lm;

use lm::{fit_hybrid, fit_w2s};

use crate::cli::nested::read_documents;
use crate::cli::output::Output;
use crate::cli::policy::PolicyArgs;

/// Arguments of `bip calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Held-out files with expected answers (`.jsonl` or `.json`): single-agent episodes
    /// (β is fitted; with --policy hybrid, the LM weight; with --policy w2s, α) or
    /// stories (the trust is fitted), not both.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to save the calibration (JSON), for `--calibration FILE` of infer and eval.
    #[arg(long, short)]
    out: PathBuf,
    /// `--policy hybrid` and its flags fit the hybrid's LM weight (the planner weighing 1,
    /// at the β given); `--policy w2s` fits α over a grid from 0 to 4; the default fits
    /// the planner's β.
    #[command(flatten)]
    policy: PolicyArgs,
    /// With the planner: after β, fit the world-aware prior at it (how much less likely
    /// a goal the house lacks is, and how strongly the agent knows where things lying in
    /// the open are), over a grid.
    #[arg(long)]
    world_prior: bool,
    /// With the planner: fit its search spread with β (how often a walk goes where the
    /// belief points rather than where the planner would go), over a grid of spreads.
    #[arg(long)]
    search_spread: bool,
}

/// Runs `bip calibrate`.
pub fn run(args: &CalibrateArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = OutputSet::new();
    let slot = outputs.add("--out", &args.out)?;
    outputs.refuse_inputs(args.files.iter().map(PathBuf::as_path))?;
    if (args.world_prior || args.search_spread) && args.policy.kind() != PolicyKind::Planner {
        bail!(
            "--world-prior and --search-spread are fitted for the planner (the default --policy)"
        );
    }
    let (episodes, stories) = read_documents(&args.files)?;
    let (fit, what) = if !stories.is_empty() {
        if args.policy.kind() != PolicyKind::Planner {
            bail!("stories fit the trust of nested-belief inference; --policy does not apply");
        }
        let fit = fit_trust(&stories).context("calibration failed")?;
        let what = format!("trust = {:.3}", fit.trust.unwrap_or_default());
        (fit, what)
    } else {
        match args.policy.kind() {
            PolicyKind::Planner => {
                let mut fit = if args.search_spread {
                    fit_search_spread(&episodes)
                } else {
                    fit_beta(&episodes)
                }
                .context("calibration failed")?;
                let mut what = format!("β = {:.3}", fit.beta.unwrap_or_default());
                if let Some(spread) = fit.search_spread {
                    what += &format!(", search spread {spread}");
                    if spread == SEARCH_SPREAD_GRID[SEARCH_SPREAD_GRID.len() - 1] {
                        what += " (its grid's top)";
                    }
                }
                if args.world_prior {
                    fit = fit_world_prior(&episodes, fit).context("calibration failed")?;
                    let (absent, open) = (
                        fit.absent_goal_weight.unwrap_or_default(),
                        fit.open_view_weight.unwrap_or_default(),
                    );
                    what += &format!(
                        ", goal weight of a class the house lacks {absent}, open-view weight \
                         {open}{}",
                        grid_end(absent, open)
                    );
                }
                (fit, what)
            }
            PolicyKind::Hybrid => fit_hybrid(&episodes, &args.policy)?,
            PolicyKind::W2s => fit_w2s(&episodes, &args.policy)?,
            other => bail!(
                "--policy {other}: calibrate fits the planner's β, the hybrid's LM weight or \
                 weak-to-strong's α"
            ),
        }
    };
    let text = serde_json::to_string_pretty(&fit).context("serialising the calibration")? + "\n";
    outputs.put(slot, text);
    out.commit(outputs)?;
    note!(
        "bip: {what} (mean log-likelihood of the correct options {:.4} over {} questions), saved to {}",
        fit.mean_log_likelihood,
        fit.questions,
        args.out.display()
    );
    for line in args.policy.cache_report() {
        note!("bip: {line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Says which fitted world-prior weight, if any, lies at the end of its grid, where the
/// questions would have it go further.
fn grid_end(absent: f64, open: f64) -> String {
    let mut ends = Vec::new();
    if absent == ABSENT_GOAL_GRID[ABSENT_GOAL_GRID.len() - 1] {
        ends.push("the goal weight at its grid's bottom");
    }
    if open == OPEN_VIEW_GRID[OPEN_VIEW_GRID.len() - 1] {
        ends.push("the open-view weight at its grid's top");
    }
    if ends.is_empty() {
        String::new()
    } else {
        format!(" ({})", ends.join(", "))
    }
}
