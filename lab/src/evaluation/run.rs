//! Answering every question of a set of episodes and scoring the answers against the
//! expected ones, in one call: the work of `bip eval`.

use serde::Serialize;

use bip_episodes::Episode;

use super::CostSummary;
use crate::error::in_episode;
use crate::observer::RunObserver;
use crate::report::{predictions, Prediction};
use crate::LabError;
use bip_engine::Policy;
use bip_engine::{infer_all, BatchOptions};

use super::{risk_coverage, Abstention, Evaluation, Outcome};

/// How [`evaluate`] answers and scores.
#[derive(Debug, Clone, Default)]
pub struct EvaluateOptions {
    /// How each episode is inferred.
    pub batch: BatchOptions,
    /// Abstain ("cannot tell") when the two best options are closer than this margin
    /// (0: answer everything but exact ties).
    pub abstain_below: f64,
    /// Whether to add calibration figures to the report.
    pub calibration: bool,
    /// Seed of the bootstrap resamples: equal inputs and seed give equal reports.
    pub seed: u64,
}

/// What [`evaluate`] found.
#[derive(Debug, Clone, Serialize)]
pub struct EvaluationRun {
    /// The report, with the cost of answering.
    pub evaluation: Evaluation,
    /// One per question, in input order (the lines of `bip eval --predictions`).
    pub predictions: Vec<Prediction>,
    /// The questions with an expected answer, scored, in input order.
    #[serde(skip)]
    pub outcomes: Vec<Outcome>,
}

impl EvaluationRun {
    /// The risk–coverage curve of the scored questions (see [`risk_coverage`]).
    pub fn risk_coverage(&self) -> Vec<Abstention> {
        risk_coverage(&self.outcomes)
    }
}

/// Answers every question of `episodes` under `policy` and scores the answers to those
/// with an expected answer. Episodes are inferred in parallel (see
/// [`infer_all`](bip_engine::infer_all)); the results do not depend on it. `observer` hears
/// the start and each finished episode.
///
/// # Errors
/// [`LabError::InEpisode`] naming the first episode (in input order) whose inference
/// failed.
///
/// # Example
/// ```
/// use bip_lab::evaluation::{evaluate, EvaluateOptions};
/// use bip_lab::generate::{generate, GenerateOptions};
/// use bip_engine::PlannerPolicy;
///
/// let episodes = generate(&GenerateOptions::default(), 3)?;
/// let run = evaluate(&episodes, &PlannerPolicy::default(), &EvaluateOptions::default(), &())?;
/// assert_eq!((run.evaluation.n, run.predictions.len()), (3, 3));
/// # Ok::<(), bip_lab::LabError>(())
/// ```
pub fn evaluate(
    episodes: &[Episode],
    policy: &dyn Policy,
    options: &EvaluateOptions,
    observer: &dyn RunObserver,
) -> Result<EvaluationRun, LabError> {
    observer.started(episodes.len());
    let results = infer_all(episodes, policy, &options.batch, &|| {
        observer.episode_done()
    });
    let (mut costs, mut outcomes, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    for (episode, result) in episodes.iter().zip(results) {
        let inference = result.map_err(|e| in_episode(e, episode.id()))?;
        let answered = episode.questions().iter().zip(&inference.answers);
        for ((question, answer), cost) in answered.zip(&inference.costs) {
            costs.push(*cost);
            if let Some(expected) = question.expected {
                outcomes.push(Outcome {
                    episode: episode.id().to_string(),
                    label: question.label.clone(),
                    expected,
                    answer: answer.clone(),
                });
            }
        }
        lines.extend(predictions(episode, &inference));
    }
    let mut evaluation = Evaluation::new(&outcomes, options.abstain_below, options.seed);
    evaluation.cost = Some(CostSummary::of(&costs));
    if options.calibration {
        evaluation = evaluation.with_calibration(&outcomes);
    }
    Ok(EvaluationRun {
        evaluation,
        predictions: lines,
        outcomes,
    })
}
