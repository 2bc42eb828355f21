//! Fitting weak-to-strong's steering strength α in `s_L + α (s_E − s_N)`: the α, of a
//! fixed grid, under which the steered language model gives the correct options the
//! highest mean log probability.
//!
//! α enters the token distributions before they are normalised, so a new α needs the
//! three models' logits again; a grid lets one run of the models serve every α (the
//! caller's scorers share it), where a search would ask for new α one at a time.

use bip_episodes::Episode;

use super::{policy_log_likelihood, AlphaPoint, CalibrationFile, LmSettings};
use crate::LabError;
use bip_engine::BatchOptions;
use bip_engine::EngineError;
use bip_engine::Policy;

/// The α tried by [`fit_alpha`], ascending: 0 (the large model alone, the baseline
/// steering must beat) to 4, finer where published runs set it (0.5 to 2).
pub const ALPHA_GRID: [f64; 11] = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0];

/// Fits α: `candidates` holds, for each α tried, the policy steered at it (in
/// ascending α, usually one per [`ALPHA_GRID`] value); the α whose policy gives the
/// correct options of `episodes` the highest mean log probability is kept, the smallest
/// of equals (steering no further than the questions ask), and every α's figure kept in
/// the file's `alpha_curve`. `beta` is the β the policies' hypotheses were proposed at
/// and `settings` what defines their likelihood (the models, how they score, the
/// pruning), both recorded with α, which only applies under them.
///
/// # Errors
/// [`EngineError::InvalidParameter`] for no candidate or a non-finite α; the first error
/// of inference; also if no question has an expected option.
pub fn fit_alpha(
    episodes: &[Episode],
    candidates: &[(f64, &dyn Policy)],
    beta: f64,
    options: &BatchOptions,
    settings: LmSettings,
) -> Result<CalibrationFile, LabError> {
    let mut best: Option<(f64, f64, usize)> = None;
    let mut curve = Vec::with_capacity(candidates.len());
    for &(alpha, policy) in candidates {
        if !alpha.is_finite() {
            return Err(LabError::Engine(EngineError::InvalidParameter {
                name: "alpha",
                value: alpha,
                reason: "must be finite",
            }));
        }
        let (ll, questions) = policy_log_likelihood(episodes, policy, options)?;
        curve.push(AlphaPoint {
            alpha,
            mean_log_likelihood: ll,
        });
        if best.is_none_or(|(_, best_ll, _)| ll > best_ll) {
            best = Some((alpha, ll, questions));
        }
    }
    let (alpha, mean_log_likelihood, questions) =
        best.ok_or(LabError::Engine(EngineError::InvalidParameter {
            name: "alpha candidates",
            value: 0.0,
            reason: "at least one α is needed",
        }))?;
    Ok(CalibrationFile {
        beta: Some(beta),
        alpha: Some(alpha),
        lm: Some(settings),
        alpha_curve: Some(curve),
        ..CalibrationFile::fitted("w2s", mean_log_likelihood, questions)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::Steering;
    use crate::generate::{generate, GenerateOptions};
    use bip_engine::PlannerPolicy;

    fn settings() -> LmSettings {
        LmSettings {
            model: "large.gguf".into(),
            adapter: None,
            score: bip_engine::TokenReduction::Mean,
            likelihood: bip_engine::ActionLikelihood::Choice,
            prompt_style: bip_engine::PromptStyle::Bip,
            prompt_observations: false,
            prune_to: 2,
            steering: Some(Steering {
                expert: "small.gguf".into(),
                expert_adapter: Some("expert-s1".into()),
                naive: "small.gguf".into(),
            }),
        }
    }

    /// Planners of different β stand in for the steered policies: what is fitted is the
    /// choice among candidates by the likelihood of the correct options.
    #[test]
    fn the_candidate_most_likely_to_answer_correctly_is_kept() {
        let episodes = generate(&GenerateOptions::default(), 4).expect("generate");
        let planners: Vec<PlannerPolicy> = [0.0, 0.5, 3.0]
            .into_iter()
            .map(|beta| PlannerPolicy::new(beta).expect("beta"))
            .collect();
        let options = BatchOptions::default();
        let lls: Vec<f64> = planners
            .iter()
            .map(|p| policy_log_likelihood(&episodes, p, &options).expect("ll").0)
            .collect();
        let candidates: Vec<(f64, &dyn Policy)> = [0.0, 1.0, 2.0]
            .into_iter()
            .zip(&planners)
            .map(|(alpha, p)| (alpha, p as &dyn Policy))
            .collect();
        let fit = fit_alpha(&episodes, &candidates, 3.0, &options, settings()).expect("fit");
        let best = (0..3)
            .max_by(|&a, &b| lls[a].total_cmp(&lls[b]))
            .expect("three");
        assert!(
            lls[best] > lls[0],
            "acting at random is not the best: {lls:?}"
        );
        assert_eq!(fit.alpha, Some([0.0, 1.0, 2.0][best]));
        assert_eq!(fit.mean_log_likelihood, lls[best]);
        assert_eq!((fit.policy.as_str(), fit.beta), ("w2s", Some(3.0)));
        let text = serde_json::to_string(&fit).expect("serialise");
        assert_eq!(CalibrationFile::from_json(&text).expect("reads"), fit);
        // Equals: the smallest α is kept.
        let same: Vec<(f64, &dyn Policy)> = vec![(0.5, &planners[2]), (2.0, &planners[2])];
        let fit = fit_alpha(&episodes, &same, 3.0, &options, settings()).expect("fit");
        assert_eq!(fit.alpha, Some(0.5));
    }

    #[test]
    fn a_w2s_calibration_needs_its_alpha_and_models() {
        let episodes = generate(&GenerateOptions::default(), 1).expect("generate");
        let planner = PlannerPolicy::default();
        let options = BatchOptions::default();
        let fit = fit_alpha(&episodes, &[(1.0, &planner)], 3.0, &options, settings()).expect("fit");
        let json: serde_json::Value = serde_json::to_value(&fit).expect("json");
        let without = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut j = json.clone();
            edit(&mut j);
            CalibrationFile::from_json(&j.to_string())
        };
        assert!(matches!(
            without(&|j| {
                j.as_object_mut().expect("object").remove("alpha");
            }),
            Err(LabError::CalibrationField { field: "alpha", .. })
        ));
        assert!(matches!(
            without(&|j| {
                j["lm"].as_object_mut().expect("object").remove("steering");
            }),
            Err(LabError::CalibrationField { field: "lm", .. })
        ));
        assert!(matches!(
            fit_alpha(
                &episodes,
                &[(f64::NAN, &planner)],
                3.0,
                &options,
                settings()
            ),
            Err(LabError::Engine(EngineError::InvalidParameter {
                name: "alpha",
                ..
            }))
        ));
        assert!(fit_alpha(&episodes, &[], 3.0, &options, settings()).is_err());
    }
}
