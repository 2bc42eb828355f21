//! Fitting the world-aware prior: how much less likely a goal the house lacks is, and how
//! much the agent is taken to know where things lying in the open are
//! ([`HypothesisConfig::absent_goal_weight`], [`HypothesisConfig::open_view_weight`]).

use bip_engine::{BatchOptions, HypothesisConfig, PlannerPolicy};
use bip_episodes::Episode;

use super::{policy_log_likelihood, CalibrationFile};
use crate::LabError;

/// The goal weights of a class the house lacks tried, from world-blind (1) down.
pub const ABSENT_GOAL_GRID: [f64; 8] = [1.0, 0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005];

/// The open-view weights tried, from world-blind (0) up.
pub const OPEN_VIEW_GRID: [f64; 8] = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];

/// `planner_fit` (a planner calibration: β, and the search spread if fitted) with the
/// pair of [`ABSENT_GOAL_GRID`] × [`OPEN_VIEW_GRID`] under which that planner gives the
/// correct options of `episodes` the highest mean log probability (ties go to the pair
/// nearer the world-blind prior: the first in grid order). The two act on different
/// hypotheses (goal priors and belief priors), so they are searched jointly.
///
/// # Errors
/// As [`infer_all`](bip_engine::infer_all); also if no question has an expected option,
/// or `planner_fit` has no β.
pub fn fit_world_prior(
    episodes: &[Episode],
    planner_fit: CalibrationFile,
) -> Result<CalibrationFile, LabError> {
    let beta = planner_fit.beta.ok_or(LabError::CalibrationField {
        policy: planner_fit.policy.clone(),
        field: "beta",
        reason: "missing",
    })?;
    let mut policy = PlannerPolicy::new(beta)?;
    if let Some(spread) = planner_fit.search_spread {
        policy = policy.with_search_spread(spread)?;
    }
    let mut best: Option<(f64, f64, f64, usize)> = None;
    for &absent in &ABSENT_GOAL_GRID {
        for &open in &OPEN_VIEW_GRID {
            let options = BatchOptions {
                hypotheses: HypothesisConfig {
                    absent_goal_weight: absent,
                    open_view_weight: open,
                    ..HypothesisConfig::default()
                },
                ..BatchOptions::default()
            };
            let (ll, n) = policy_log_likelihood(episodes, &policy, &options)?;
            if best.is_none_or(|(_, _, b, _)| ll > b) {
                best = Some((absent, open, ll, n));
            }
        }
    }
    // The grids are not empty, so `best` is set.
    let (absent, open, mean_log_likelihood, questions) = best.unwrap_or_default();
    Ok(CalibrationFile {
        absent_goal_weight: Some(absent),
        open_view_weight: Some(open),
        mean_log_likelihood,
        questions,
        ..planner_fit
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::fit_beta;
    use crate::generate::{generate, GenerateOptions};

    #[test]
    fn a_population_naming_classes_the_house_lacks_fits_them_less_likely() {
        let options = GenerateOptions {
            seed: 5,
            types: vec![bip_episodes::QuestionType::GoalTrueBelief],
            absent_distractors: 1.0,
            ..GenerateOptions::default()
        };
        let episodes = generate(&options, 12).expect("generate");
        let planner = CalibrationFile {
            beta: Some(3.0),
            ..fit_beta(&episodes).expect("β")
        };
        let fit = fit_world_prior(&episodes, planner).expect("fit");
        assert!(fit.absent_goal_weight.expect("fitted") < 1.0, "{fit:?}");
        // The fit is at least as good as the world-blind prior it starts from.
        let blind = BatchOptions {
            hypotheses: HypothesisConfig {
                absent_goal_weight: 1.0,
                open_view_weight: 0.0,
                ..HypothesisConfig::default()
            },
            ..BatchOptions::default()
        };
        let policy = PlannerPolicy::new(3.0).expect("β");
        let (blind, _) = policy_log_likelihood(&episodes, &policy, &blind).expect("score");
        assert!(fit.mean_log_likelihood >= blind, "{fit:?} against {blind}");
        let text = serde_json::to_string(&fit).expect("serialise");
        assert_eq!(CalibrationFile::from_json(&text).expect("reads"), fit);
    }
}
