//! Fitting the planner's search spread with β: how often an agent picks where to walk in
//! proportion to its belief rather than by the planner's values
//! ([`PlannerPolicy::with_search_spread`]).

use bip_engine::{BatchOptions, PlannerPolicy};
use bip_episodes::Episode;

use super::{best_beta, fit_beta_file, policy_log_likelihood, CalibrationFile};
use crate::LabError;

/// The search spreads tried, from the pure planner (0) up.
pub const SEARCH_SPREAD_GRID: [f64; 10] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// The planner with rationality `beta` and search spread `spread`.
fn planner(beta: f64, spread: f64) -> Result<PlannerPolicy, LabError> {
    Ok(PlannerPolicy::new(beta)?.with_search_spread(spread)?)
}

/// For each spread of [`SEARCH_SPREAD_GRID`], β fitted as [`fit_beta`](super::fit_beta)
/// fits it; the pair whose planner gives the correct options of `episodes` the highest
/// mean log probability (ties go to the smaller spread).
///
/// # Errors
/// As [`infer_all`](bip_engine::infer_all); also if no question has an expected option.
pub fn fit_search_spread(episodes: &[Episode]) -> Result<CalibrationFile, LabError> {
    let options = BatchOptions::default();
    let mut best: Option<(f64, f64, f64, usize)> = None;
    for &spread in &SEARCH_SPREAD_GRID {
        let score = |log_beta: f64| {
            let policy = planner(log_beta.exp(), spread)?;
            policy_log_likelihood(episodes, &policy, &options).map(|(ll, _)| ll)
        };
        let beta = best_beta(score)?;
        let (ll, n) = policy_log_likelihood(episodes, &planner(beta, spread)?, &options)?;
        if best.is_none_or(|(_, _, b, _)| ll > b) {
            best = Some((spread, beta, ll, n));
        }
    }
    // The grid is not empty, so `best` is set.
    let (spread, beta, mean_log_likelihood, questions) = best.unwrap_or_default();
    Ok(CalibrationFile {
        search_spread: Some(spread),
        ..fit_beta_file(beta, mean_log_likelihood, questions)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenerateOptions};

    #[test]
    fn the_fitted_spread_explains_the_answers_best_at_the_fitted_beta() {
        let options = GenerateOptions {
            seed: 9,
            agent_search_spread: 0.9,
            ..GenerateOptions::default()
        };
        let episodes = generate(&options, 35).expect("generate");
        let fit = fit_search_spread(&episodes).expect("fit");
        let beta = fit.beta.expect("fitted");
        let likelihood = |spread: f64| {
            let policy = planner(beta, spread).expect("planner");
            policy_log_likelihood(&episodes, &policy, &BatchOptions::default())
                .expect("score")
                .0
        };
        for spread in SEARCH_SPREAD_GRID {
            let other = likelihood(spread);
            assert!(
                fit.mean_log_likelihood >= other - 1e-12,
                "{spread}: {fit:?}"
            );
        }
        let text = serde_json::to_string(&fit).expect("serialise");
        assert_eq!(CalibrationFile::from_json(&text).expect("reads"), fit);
    }
}
