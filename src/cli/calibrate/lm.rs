//! `bip calibrate` for policies with language models: the hybrid's LM weight and
//! weak-to-strong's steering strength α.

use anyhow::{bail, Context};

use bip::engine::{BatchOptions, Policy};
use bip::episodes::Episode;
use bip::lab::calibrate::{fit_alpha, fit_lm_weight, CalibrationFile, ALPHA_GRID, LM_WEIGHT_RANGE};

use crate::cli::policy::PolicyArgs;

/// Fits the hybrid's LM weight, with the policy's pruning.
pub(super) fn fit_hybrid(
    episodes: &[Episode],
    policy: &PolicyArgs,
) -> anyhow::Result<(CalibrationFile, String)> {
    let (hybrid, built) = policy.build_hybrid()?;
    let beta = built.beta;
    let options = BatchOptions {
        pruning: built.pruning(),
        ..BatchOptions::default()
    };
    let mut fit = fit_lm_weight(episodes, &hybrid, beta, &options, built.lm_settings())
        .context("calibration failed")?;
    // A steered language model's weight holds at the α it was steered at.
    fit.alpha = built.steered().then_some(built.alpha);
    let weight = fit.lm_weight.unwrap_or_default();
    let (low, high) = LM_WEIGHT_RANGE;
    let mut what = format!("LM weight = {weight:.3} (planner weight 1, β = {beta:.3})");
    // At an end of the range the held-out questions would have the weight go further.
    if weight >= high * 0.99 {
        what += &format!(", the range's top ({high}): these questions favour the LM alone");
    } else if weight <= low * 1.01 {
        what += &format!(", the range's bottom ({low}): these questions favour the planner alone");
    }
    Ok((fit, what))
}

/// Fits weak-to-strong's α over [`ALPHA_GRID`], the three models run once for every α,
/// with the policy's pruning.
pub(super) fn fit_w2s(
    episodes: &[Episode],
    policy: &PolicyArgs,
) -> anyhow::Result<(CalibrationFile, String)> {
    if policy.alpha_given() {
        bail!("--alpha: calibrate fits α (over {ALPHA_GRID:?}); give it no α");
    }
    let (policies, built) = policy.build_alpha_sweep(&ALPHA_GRID)?;
    let options = BatchOptions {
        pruning: built.pruning(),
        ..BatchOptions::default()
    };
    let candidates: Vec<(f64, &dyn Policy)> = ALPHA_GRID
        .iter()
        .zip(&policies)
        .map(|(&alpha, p)| (alpha, p.as_ref()))
        .collect();
    let fit = fit_alpha(
        episodes,
        &candidates,
        built.beta,
        &options,
        built.lm_settings(),
    )
    .context("calibration failed")?;
    let alpha = fit.alpha.unwrap_or_default();
    let curve: Vec<String> = fit
        .alpha_curve
        .iter()
        .flatten()
        .map(|p| format!("{}: {:.4}", p.alpha, p.mean_log_likelihood))
        .collect();
    let mut what = format!(
        "α = {alpha} (β = {:.3}; mean log-likelihood by α: {})",
        built.beta,
        curve.join(", ")
    );
    if alpha == 0.0 {
        what += ": steering did not help on these questions (the large model alone)";
    } else if alpha >= ALPHA_GRID[ALPHA_GRID.len() - 1] {
        what += ", the grid's top: these questions would steer further";
    }
    Ok((fit, what))
}
