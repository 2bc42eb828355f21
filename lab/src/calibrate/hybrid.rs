//! Fitting the hybrid policy's weight of the language model: the weight, against the
//! planner's at 1, that maximises the mean log probability of the correct options.
//!
//! The weight is the LM's inverse temperature relative to the planner's: how far its
//! score differences between hypotheses should move the posterior. An additive score
//! correction that does not depend on the hypothesis (a goal-free baseline prompt's
//! log-probability of the action, a correction for the action's length) cancels when the
//! posterior is normalised, so a scale is what is left to fit.

use bip_episodes::Episode;

use super::{golden_section_max, policy_log_likelihood, CalibrationFile, LmSettings};
use crate::LabError;
use bip_engine::BatchOptions;
use bip_engine::HybridPolicy;

/// The LM weight is searched in `[LM_WEIGHT_RANGE.0, LM_WEIGHT_RANGE.1]`, on a log scale:
/// at the low end the hybrid is, to within its rounding, the planner alone; at the high
/// end the language model's differences between hypotheses (often hundredths of a nat
/// per token) outweigh the planner's wherever it has any.
pub const LM_WEIGHT_RANGE: (f64, f64) = (1.0 / 64.0, 256.0);

/// Fits the weight of `hybrid`'s language model, its planner weighing 1: the best of the
/// powers of two in [`LM_WEIGHT_RANGE`], then golden-section search on the log weight
/// between its neighbours to a relative precision of about 2% (the grid first, because
/// nothing makes the likelihood single-peaked in the weight). The language model scores
/// each (prompt, action) once, on the first try; later tries reuse its scores. `beta` is
/// the planner's β and `settings` what defines the LM's likelihood (the model, how it
/// scores, the pruning), both recorded with the weight, which only applies under them.
///
/// # Errors
/// The first error of inference (a language model failing, say); also if no question
/// has an expected option.
pub fn fit_lm_weight(
    episodes: &[Episode],
    hybrid: &HybridPolicy,
    beta: f64,
    options: &BatchOptions,
    settings: LmSettings,
) -> Result<CalibrationFile, LabError> {
    let at = |lm_weight: f64| {
        let policy = hybrid.reweighted(1.0, lm_weight)?;
        policy_log_likelihood(episodes, &policy, options)
    };
    let score = |log_weight: f64| at(log_weight.exp()).map(|(ll, _)| ll);
    let (low, high) = (LM_WEIGHT_RANGE.0.log2(), LM_WEIGHT_RANGE.1.log2());
    let grid: Vec<f64> = (low as i32..=high as i32)
        .map(|k| f64::from(k) * std::f64::consts::LN_2)
        .collect();
    let mut best = (grid[0], f64::NEG_INFINITY);
    for &log_weight in &grid {
        let ll = score(log_weight)?;
        if ll > best.1 {
            best = (log_weight, ll);
        }
    }
    let bracket = (
        (best.0 - std::f64::consts::LN_2).max(grid[0]),
        (best.0 + std::f64::consts::LN_2).min(grid[grid.len() - 1]),
    );
    let refined = golden_section_max(score, bracket, 0.02)?;
    // Every weight answers the same questions, so any try gives their number.
    let (refined_ll, questions) = at(refined.exp())?;
    // The refinement only stands if it beats the grid's best.
    let (log_weight, mean_log_likelihood) = if refined_ll >= best.1 {
        (refined, refined_ll)
    } else {
        best
    };
    let lm_weight = log_weight.exp();
    Ok(CalibrationFile {
        beta: Some(beta),
        lm_weight: Some(lm_weight),
        lm: Some(settings),
        ..CalibrationFile::fitted("hybrid", mean_log_likelihood, questions)
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use super::*;
    use crate::generate::{generate, GenerateOptions};
    use bip_engine::Pruning;
    use bip_engine::{LmPolicy, TextRequest, TextScore, TextScorer};
    use bip_engine::{PlannerPolicy, PolicyFailure};

    /// A language model that likes actions naming the goal of the prompt, and counts the
    /// continuations it is asked for.
    /// The counter is shared, so that the test keeps it after the policy takes the scorer.
    #[derive(Default)]
    struct GoalReader {
        requests: Arc<AtomicUsize>,
    }

    impl TextScorer for GoalReader {
        fn name(&self) -> &str {
            "goal reader"
        }

        fn score(&self, requests: &[TextRequest<'_>]) -> Result<Vec<TextScore>, PolicyFailure> {
            self.requests.fetch_add(requests.len(), Ordering::Relaxed);
            Ok(requests
                .iter()
                .map(|r| {
                    let goal = r.prompt.rsplit("Goal: get the ").next().unwrap_or("");
                    let goal = goal.split('.').next().unwrap_or("");
                    let named = !goal.is_empty() && r.continuation.contains(goal);
                    TextScore {
                        logprobs: vec![if named { -0.5 } else { -2.0 }],
                        prompt_tokens: r.prompt.len(),
                    }
                })
                .collect())
        }

        fn tokens_computed(&self) -> u64 {
            0
        }
    }

    #[test]
    fn the_fitted_lm_weight_beats_the_grid_and_scores_each_action_once() {
        let episodes = generate(&GenerateOptions::default(), 3).expect("generate");
        let reader = GoalReader::default();
        let requests = Arc::clone(&reader.requests);
        let hybrid = HybridPolicy::new(
            Box::new(PlannerPolicy::default()),
            Box::new(LmPolicy::new(Box::new(reader))),
            1.0,
            1.0,
        )
        .expect("weights");
        let options = BatchOptions {
            pruning: Some(Pruning {
                per_option: 2,
                proposal_beta: 3.0,
            }),
            ..BatchOptions::default()
        };
        let once = policy_log_likelihood(&episodes, &hybrid, &options).expect("one run");
        let asked = requests.load(Ordering::Relaxed);
        assert!(asked > 0, "the language model was asked");
        let settings = LmSettings {
            model: "goal reader".into(),
            adapter: None,
            score: bip_engine::TokenReduction::Mean,
            likelihood: bip_engine::ActionLikelihood::Text,
            prompt_style: bip_engine::PromptStyle::Bip,
            prompt_observations: false,
            prune_to: 2,
            steering: None,
        };
        let fit = fit_lm_weight(&episodes, &hybrid, 3.0, &options, settings.clone()).expect("fit");
        assert_eq!(fit.lm, Some(settings), "the settings are recorded");
        assert_eq!(
            requests.load(Ordering::Relaxed),
            asked,
            "every try after the first reuses the LM's scores"
        );
        let weight = fit
            .lm_weight
            .expect("a hybrid calibration has an LM weight");
        assert!((LM_WEIGHT_RANGE.0..=LM_WEIGHT_RANGE.1).contains(&weight));
        assert_eq!(fit.questions, once.1);
        for other in [LM_WEIGHT_RANGE.0, 0.25, 1.0, 4.0, 16.0, LM_WEIGHT_RANGE.1] {
            let policy = hybrid.reweighted(1.0, other).expect("weights");
            assert_eq!(policy.weights(), (1.0, other));
            let (ll, _) = policy_log_likelihood(&episodes, &policy, &options).expect("score");
            assert!(
                fit.mean_log_likelihood >= ll - 1e-9,
                "{} < {ll} at weight {other}",
                fit.mean_log_likelihood
            );
        }
        let text = serde_json::to_string(&fit).expect("serialise");
        assert_eq!(CalibrationFile::from_json(&text).expect("reads"), fit);
        let mut unweighted: serde_json::Value = serde_json::from_str(&text).expect("json");
        unweighted
            .as_object_mut()
            .expect("object")
            .remove("lm_weight");
        assert!(matches!(
            CalibrationFile::from_json(&unweighted.to_string()),
            Err(LabError::CalibrationField {
                field: "lm_weight",
                ..
            })
        ));
    }
}
