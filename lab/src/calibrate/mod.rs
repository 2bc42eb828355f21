//! Fitting the planner's rationality β to held-out answers: the β that maximises the mean
//! log probability of the correct options; and, the same way, the hybrid policy's weight
//! of the language model ([`fit_lm_weight`]) and weak-to-strong's steering strength
//! ([`fit_alpha`]).

mod alpha;
mod hybrid;
mod lm_settings;
mod search_spread;
mod world_prior;

pub use alpha::{fit_alpha, ALPHA_GRID};
pub use hybrid::{fit_lm_weight, LM_WEIGHT_RANGE};
pub use lm_settings::{LmSettings, SettingDifference, Steering};
pub use search_spread::{fit_search_spread, SEARCH_SPREAD_GRID};
pub use world_prior::{fit_world_prior, ABSENT_GOAL_GRID, OPEN_VIEW_GRID};

use serde::{Deserialize, Serialize};

use bip_episodes::{Episode, Expected};

use crate::LabError;
use bip_engine::EngineError;
use bip_engine::{infer_all, BatchOptions};
use bip_engine::{PlannerPolicy, Policy};

/// The `format` of calibration files.
pub const CALIBRATION_FORMAT: &str = "bip-calibration/1";

/// β is searched in `[BETA_RANGE.0, BETA_RANGE.1]`, on a log scale.
pub const BETA_RANGE: (f64, f64) = (0.25, 16.0);

/// A fitted calibration, as saved by `bip calibrate` and read by `--calibration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationFile {
    /// Must be [`CALIBRATION_FORMAT`].
    pub format: String,
    /// What the parameters are for: "planner" (β), "hybrid" (the LM weight, at β),
    /// "w2s" (α) or "nested" (trust, for stories).
    pub policy: String,
    /// The planner's fitted rationality; for "hybrid" and "w2s", the β the fit ran at
    /// (the planner's, which proposes the hypotheses the language model scores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// The hybrid's fitted weight of the language model's log-likelihood (the planner's
    /// weighs 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lm_weight: Option<f64>,
    /// For "w2s": the fitted steering strength; for a "hybrid" whose language model is
    /// steered, the α it was steered at, which a run reading the weight uses too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// For "hybrid" and "w2s": the language-model settings the fit ran under, which a run
    /// reading it must share. Hybrid files written before they were recorded lack them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lm: Option<LmSettings>,
    /// The fitted trust of nested-belief inference
    /// ([`Trust`](bip_nested::Trust)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<f64>,
    /// For "w2s": every α tried and its mean log probability of the correct options, in
    /// ascending α, so that a reader sees how flat or sharp the fit was, not its peak alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha_curve: Option<Vec<AlphaPoint>>,
    /// For "planner" fitted with the world-aware prior (`bip calibrate --world-prior`):
    /// the goal weight of a class the house lacks
    /// ([`HypothesisConfig::absent_goal_weight`](bip_engine::HypothesisConfig::absent_goal_weight)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent_goal_weight: Option<f64>,
    /// With `absent_goal_weight`: the extra weight of believing a thing lying in the open
    /// is where it lies
    /// ([`HypothesisConfig::open_view_weight`](bip_engine::HypothesisConfig::open_view_weight)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_view_weight: Option<f64>,
    /// For "planner" fitted with `bip calibrate --search-spread`: the planner's search
    /// spread, fitted with β
    /// ([`PlannerPolicy::with_search_spread`](bip_engine::PlannerPolicy::with_search_spread)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_spread: Option<f64>,
    /// Whether beliefs grow by where an agent that has searched all it considered goes
    /// next ([`HypothesisConfig::beliefs_grow`](bip_engine::HypothesisConfig::beliefs_grow));
    /// absent, the engine's default. Not fitted: it pins the agent model a run was made
    /// with, so that results written before beliefs grew can be reproduced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beliefs_grow: Option<bool>,
    /// Mean log probability of the correct options at `beta` on the fitting data.
    pub mean_log_likelihood: f64,
    /// Questions the fit used.
    pub questions: usize,
}

/// One α of a weak-to-strong fit and how well the policy steered at it explained the
/// fitting questions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlphaPoint {
    /// The steering strength tried.
    pub alpha: f64,
    /// Mean log probability of the correct options under it.
    pub mean_log_likelihood: f64,
}

impl CalibrationFile {
    /// A calibration of `policy` that fitted nothing yet, at `mean_log_likelihood` over
    /// `questions`: fits fill in what they fitted.
    pub(crate) fn fitted(policy: &str, mean_log_likelihood: f64, questions: usize) -> Self {
        Self {
            format: CALIBRATION_FORMAT.to_string(),
            policy: policy.to_string(),
            beta: None,
            lm_weight: None,
            alpha: None,
            lm: None,
            trust: None,
            alpha_curve: None,
            absent_goal_weight: None,
            open_view_weight: None,
            search_spread: None,
            beliefs_grow: None,
            mean_log_likelihood,
            questions,
        }
    }

    /// Reads a calibration file's text.
    ///
    /// # Errors
    /// [`LabError::NotACalibration`] for malformed JSON,
    /// [`LabError::CalibrationFormat`] for another format,
    /// [`LabError::CalibrationBeta`] for a β out of range and
    /// [`LabError::CalibrationField`] for a planner, hybrid or w2s calibration without
    /// β, a hybrid one without an LM weight ≥ 0, a w2s one without its steering models
    /// or a finite α, a nested one without a trust in [0, 1], or a search spread outside
    /// [0, 1].
    pub fn from_json(text: &str) -> Result<Self, LabError> {
        let file: Self =
            serde_json::from_str(text).map_err(|source| LabError::NotACalibration { source })?;
        if file.format != CALIBRATION_FORMAT {
            return Err(LabError::CalibrationFormat {
                expected: CALIBRATION_FORMAT,
                found: file.format,
            });
        }
        let missing = |field, reason| LabError::CalibrationField {
            policy: file.policy.clone(),
            field,
            reason,
        };
        if let Some(beta) = file.beta {
            if bip_engine::check_beta(beta).is_err() {
                return Err(LabError::CalibrationBeta { beta });
            }
        }
        match (file.policy.as_str(), file.beta, file.trust) {
            ("nested", _, Some(t)) if (0.0..=1.0).contains(&t) => Ok(file),
            ("nested", _, _) => Err(missing("trust", "a number in [0, 1] is needed")),
            (_, None, _) => Err(missing("beta", "missing")),
            ("hybrid", _, _) if !file.lm_weight.is_some_and(|w| w.is_finite() && w >= 0.0) => {
                Err(missing("lm_weight", "a number ≥ 0 is needed"))
            }
            ("w2s", _, _) if file.lm.as_ref().and_then(|l| l.steering.as_ref()).is_none() => {
                Err(missing("lm", "the steering models are needed"))
            }
            ("w2s", _, _) if !file.alpha.is_some_and(f64::is_finite) => {
                Err(missing("alpha", "a finite number is needed"))
            }
            ("hybrid", _, _) if file.alpha.is_some_and(|a| !a.is_finite()) => {
                Err(missing("alpha", "a finite number is needed"))
            }
            _ if file
                .absent_goal_weight
                .is_some_and(|w| !(w > 0.0 && w.is_finite())) =>
            {
                Err(missing("absent_goal_weight", "a positive number is needed"))
            }
            _ if file
                .open_view_weight
                .is_some_and(|w| !(w >= 0.0 && w.is_finite())) =>
            {
                Err(missing("open_view_weight", "a number ≥ 0 is needed"))
            }
            _ if file
                .search_spread
                .is_some_and(|s| !(0.0..=1.0).contains(&s)) =>
            {
                Err(missing(
                    "search_spread",
                    "a probability in [0, 1] is needed",
                ))
            }
            _ if file.absent_goal_weight.is_some() != file.open_view_weight.is_some() => {
                Err(missing(
                    "open_view_weight",
                    "the world prior's two weights come together",
                ))
            }
            _ => Ok(file),
        }
    }
}

/// Mean log probability (normalised over the options) of the correct options of every
/// answerable question in `episodes` under the planner with rationality `beta`.
///
/// # Errors
/// As [`infer_all`]; also if no question has an expected option.
pub fn mean_log_likelihood(episodes: &[Episode], beta: f64) -> Result<(f64, usize), LabError> {
    let policy = PlannerPolicy::new(beta)?;
    policy_log_likelihood(episodes, &policy, &BatchOptions::default())
}

/// Mean log probability of the correct options of every answerable question in
/// `episodes` under `policy`, and how many there are.
///
/// # Errors
/// As [`infer_all`]; also if no question has an expected option.
pub(crate) fn policy_log_likelihood(
    episodes: &[Episode],
    policy: &dyn Policy,
    options: &BatchOptions,
) -> Result<(f64, usize), LabError> {
    let results = infer_all(episodes, policy, options, &|| {});
    let mut answered = Vec::new();
    for (episode, result) in episodes.iter().zip(results) {
        let inference = result?;
        for (question, answer) in episode.questions().iter().zip(inference.answers) {
            answered.push((question.expected, answer.posterior));
        }
    }
    mean_log_correct(answered.iter().map(|(e, p)| (*e, p.as_slice())))
}

/// Mean log probability of the correct option over the questions with an expected option,
/// given each question's expected answer and posterior over its options; and how many.
///
/// # Errors
/// [`EngineError::InvalidParameter`] when no question has an expected option.
pub(crate) fn mean_log_correct<'a>(
    answered: impl IntoIterator<Item = (Option<Expected>, &'a [f64])>,
) -> Result<(f64, usize), LabError> {
    let (mut total, mut n) = (0.0, 0usize);
    for (expected, posterior) in answered {
        if let Some(Expected::Option(i)) = expected {
            total += posterior.get(i).copied().unwrap_or(0.0).max(1e-12).ln();
            n += 1;
        }
    }
    if n == 0 {
        return Err(LabError::Engine(EngineError::InvalidParameter {
            name: "questions with an expected option",
            value: 0.0,
            reason: "calibration needs at least one",
        }));
    }
    Ok((total / n as f64, n))
}

/// The x in `[low, high]` that maximises `score`, by golden-section search until the
/// bracket is narrower than `tolerance` (`score` must be single-peaked there).
///
/// # Errors
/// The first error of `score`.
pub(crate) fn golden_section_max(
    score: impl Fn(f64) -> Result<f64, LabError>,
    (mut low, mut high): (f64, f64),
    tolerance: f64,
) -> Result<f64, LabError> {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = high - ratio * (high - low);
    let mut x2 = low + ratio * (high - low);
    let (mut f1, mut f2) = (score(x1)?, score(x2)?);
    while high - low > tolerance {
        if f1 < f2 {
            (low, x1, f1) = (x1, x2, f2);
            x2 = low + ratio * (high - low);
            f2 = score(x2)?;
        } else {
            (high, x2, f2) = (x2, x1, f1);
            x1 = high - ratio * (high - low);
            f1 = score(x1)?;
        }
    }
    Ok((low + high) / 2.0)
}

/// The β in [`BETA_RANGE`] that maximises `score(log β)`: the best of nine points evenly
/// spaced in log β, then golden-section search between its neighbours, to a relative
/// precision of about 1%. The scan comes first because the likelihood need not have a
/// single peak over the whole range: with the search spread, walks no longer depend on
/// β, and a small question set can rise again toward sharp β after a dip.
///
/// # Errors
/// The first error of `score`.
pub(crate) fn best_beta(score: impl Fn(f64) -> Result<f64, LabError>) -> Result<f64, LabError> {
    const POINTS: usize = 9;
    let (low, high) = (BETA_RANGE.0.ln(), BETA_RANGE.1.ln());
    let step = (high - low) / (POINTS - 1) as f64;
    let mut best = (0, f64::NEG_INFINITY);
    for i in 0..POINTS {
        let value = score(low + step * i as f64)?;
        if value > best.1 {
            best = (i, value);
        }
    }
    let at = |i: usize| low + step * i as f64;
    let bracket = (
        at(best.0.saturating_sub(1)),
        at((best.0 + 1).min(POINTS - 1)),
    );
    Ok(golden_section_max(score, bracket, 0.01)?.exp())
}

/// Fits β under the planner's default search spread: the best of nine points evenly
/// spaced in log β over [`BETA_RANGE`], then golden-section search between its
/// neighbours, to a relative precision of about 1%.
///
/// # Errors
/// As [`mean_log_likelihood`].
pub fn fit_beta(episodes: &[Episode]) -> Result<CalibrationFile, LabError> {
    let score = |log_beta: f64| mean_log_likelihood(episodes, log_beta.exp()).map(|(ll, _)| ll);
    let beta = best_beta(score)?;
    let (mean_log_likelihood, questions) = mean_log_likelihood(episodes, beta)?;
    Ok(fit_beta_file(beta, mean_log_likelihood, questions))
}

/// The planner calibration of β alone.
fn fit_beta_file(beta: f64, mean_log_likelihood: f64, questions: usize) -> CalibrationFile {
    CalibrationFile {
        beta: Some(beta),
        ..CalibrationFile::fitted("planner", mean_log_likelihood, questions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenerateOptions};
    use bip_engine::DEFAULT_BETA;

    #[test]
    fn fitted_beta_is_at_least_as_likely_as_the_range_ends() {
        let episodes = generate(&GenerateOptions::default(), 7).expect("generate");
        let fit = fit_beta(&episodes).expect("fit");
        let beta = fit.beta.expect("a planner calibration has β");
        assert!((BETA_RANGE.0..=BETA_RANGE.1).contains(&beta));
        // The search stops within 1% of the optimum in β, where the likelihood is flat.
        for beta in [BETA_RANGE.0, 1.0, DEFAULT_BETA, BETA_RANGE.1] {
            let (other, _) = mean_log_likelihood(&episodes, beta).expect("score");
            assert!(
                fit.mean_log_likelihood >= other - 1e-4,
                "{} < {other} at β={beta}",
                fit.mean_log_likelihood
            );
        }
        let text = serde_json::to_string(&fit).expect("serialise");
        assert_eq!(CalibrationFile::from_json(&text).expect("reads"), fit);
    }

    #[test]
    fn calibration_files_are_checked() {
        let bad = r#"{"format": "bip-calibration/9", "policy": "planner", "beta": 1, "mean_log_likelihood": 0, "questions": 1}"#;
        assert!(matches!(
            CalibrationFile::from_json(bad),
            Err(LabError::CalibrationFormat { found, .. }) if found == "bip-calibration/9"
        ));
        let negative = bad
            .replace("/9", "/1")
            .replace("\"beta\": 1", "\"beta\": -2");
        assert!(matches!(
            CalibrationFile::from_json(&negative),
            Err(LabError::CalibrationBeta { beta }) if beta == -2.0
        ));
        assert!(matches!(
            CalibrationFile::from_json("{"),
            Err(LabError::NotACalibration { .. })
        ));
        let prior = |absent: &str, open: &str| {
            bad.replace("/9", "/1")
                .replace("\"beta\": 1", &format!("\"beta\": 1{absent}{open}"))
        };
        assert!(CalibrationFile::from_json(&prior(
            ", \"absent_goal_weight\": 0.01",
            ", \"open_view_weight\": 2"
        ))
        .is_ok());
        for (absent, open) in [
            (", \"absent_goal_weight\": 0", ", \"open_view_weight\": 2"),
            (
                ", \"absent_goal_weight\": 0.1",
                ", \"open_view_weight\": -1",
            ),
            (", \"absent_goal_weight\": 0.1", ""),
            (", \"search_spread\": 1.5", ""),
            (", \"search_spread\": -0.1", ""),
        ] {
            assert!(
                matches!(
                    CalibrationFile::from_json(&prior(absent, open)),
                    Err(LabError::CalibrationField { .. })
                ),
                "{absent}{open}"
            );
        }
    }
}
