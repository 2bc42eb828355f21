//! Inference over a whole episode: the online session run to the end, answering each
//! question at its moment.

use rayon::prelude::*;

use bip_episodes::{Action, ClassId, Episode};

use crate::answer::{answer, Answer};
use crate::error::EngineError;
use crate::hypothesis::{search_sets, HypothesisConfig};
use crate::inference::Inference;
use crate::policy::Policy;
use crate::posterior::{Posterior, RankedHypothesis};

/// Options of batch inference.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    /// The hypothesis space.
    pub hypotheses: HypothesisConfig,
    /// Record the posterior after every step, keeping this many top joint hypotheses
    /// (`None`: no trace).
    pub trace_top: Option<usize>,
}

/// The posterior at one step, for `--trace`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// Actions seen so far.
    pub step: usize,
    /// The action that led here (none at step 0).
    pub action: Option<Action>,
    /// Posterior over goals.
    pub goals: Vec<(ClassId, f64)>,
    /// The most probable joint hypotheses.
    pub top: Vec<RankedHypothesis>,
}

/// Everything batch inference found about one episode.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeInference {
    /// One answer per question, in the episode's order.
    pub answers: Vec<Answer>,
    /// The posterior at every step, when asked for.
    pub trace: Vec<TraceStep>,
}

/// The hypothesis settings for questions asked after `at` actions: `base` plus the
/// search sets read off those actions ([`search_sets`]).
pub fn hypotheses_at(episode: &Episode, at: usize, base: &HypothesisConfig) -> HypothesisConfig {
    let mut config = base.clone();
    config.search_sets.extend(search_sets(
        &episode.world,
        &episode.actions[..at.min(episode.actions.len())],
    ));
    config
}

/// Runs inference over `episode` with `policy`, answering every question after the
/// number of actions it names.
///
/// Questions asked at different moments get their own session, since the search sets
/// of the hypothesis space ([`hypotheses_at`]) are read off the actions before each
/// moment; the trace uses those of the whole episode.
///
/// # Errors
/// As [`Inference::new`] and [`Inference::push`].
pub fn infer_episode(
    episode: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
) -> Result<EpisodeInference, EngineError> {
    let mut answers: Vec<Option<Answer>> = vec![None; episode.questions.len()];
    let mut moments: Vec<usize> = episode.questions.iter().map(|q| q.at).collect();
    moments.sort_unstable();
    moments.dedup();
    for at in moments {
        let config = hypotheses_at(episode, at, &options.hypotheses);
        let mut session = Inference::for_episode(episode, policy, &config)?;
        for action in &episode.actions[..at] {
            session.push(action)?;
        }
        answer_due(episode, at, &session.posterior(), &mut answers);
    }
    let mut trace = Vec::new();
    if let Some(top) = options.trace_top {
        let config = hypotheses_at(episode, episode.actions.len(), &options.hypotheses);
        let mut session = Inference::for_episode(episode, policy, &config)?;
        for step in 0..=episode.actions.len() {
            if step > 0 {
                session.push(&episode.actions[step - 1])?;
            }
            let posterior = session.posterior();
            trace.push(TraceStep {
                step,
                action: step.checked_sub(1).map(|i| episode.actions[i]),
                goals: posterior.goals(),
                top: posterior.top(top),
            });
        }
    }
    Ok(EpisodeInference {
        // Every question's `at` is at most the number of actions (checked at load), so
        // each was answered above.
        answers: answers.into_iter().flatten().collect(),
        trace,
    })
}

fn answer_due(
    episode: &Episode,
    step: usize,
    posterior: &Posterior<'_>,
    answers: &mut [Option<Answer>],
) {
    for (question, slot) in episode.questions.iter().zip(answers) {
        if question.at == step {
            *slot = Some(answer(question, posterior));
        }
    }
}

/// Runs [`infer_episode`] over many episodes in parallel, calling `on_done` after each
/// (for progress bars). Results are in input order and identical to a sequential run.
pub fn infer_all(
    episodes: &[Episode],
    policy: &dyn Policy,
    options: &BatchOptions,
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<EpisodeInference, EngineError>> {
    episodes
        .par_iter()
        .map(|e| {
            let result = infer_episode(e, policy, options);
            on_done();
            result
        })
        .collect()
}
