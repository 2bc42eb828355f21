//! Errors from inference.

use thiserror::Error;

use bip_episodes::{Impossible, StoryImpossible};

use crate::policy::PolicyFailure;

/// Why inference could not go on.
///
/// A variant that wraps a cause keeps it as its [`source`](std::error::Error::source)
/// and does not repeat it in its own message: print the chain (`{:#}` of an
/// `anyhow::Error`) to see both.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A parameter is out of range.
    #[error("{name} = {}: {reason}", bip_episodes::limits::number(*value))]
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is allowed.
        reason: &'static str,
    },
    /// The hypothesis space is larger than [`HypothesisConfig::max_hypotheses`](crate::HypothesisConfig::max_hypotheses).
    #[error("{goals} goals and {classes} object classes × {beliefs} starting beliefs: {count} hypotheses exceed the limit of {limit}")]
    TooManyHypotheses {
        /// Goal classes.
        goals: usize,
        /// Object classes whose beliefs are tracked.
        classes: usize,
        /// Starting beliefs per class.
        beliefs: usize,
        /// Hypotheses held: the larger of goals and classes, times the beliefs.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The starting beliefs would hold more values than
    /// [`HypothesisConfig::max_belief_values`](crate::HypothesisConfig::max_belief_values).
    #[error("{classes} object classes × {beliefs} starting beliefs × {places} places: {count} belief values exceed the limit of {limit}")]
    TooManyBeliefValues {
        /// Object classes whose beliefs are tracked.
        classes: usize,
        /// Starting beliefs per class.
        beliefs: usize,
        /// Places each belief covers.
        places: usize,
        /// Values held: their product.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// An action pushed to a session cannot happen in its current state.
    #[error("step {step} ({action}): impossible: {reason}")]
    ImpossibleAction {
        /// 0-based index of the action.
        step: usize,
        /// The action.
        action: String,
        /// Why, in the world's names.
        reason: String,
        /// Why, to branch on.
        why: Impossible,
    },
    /// A live session was asked to follow an episode with several readings of its world.
    #[error("episode {episode} has {readings} readings of where things start, and a live session follows one world: start one per reading, or run batch inference, which weighs them")]
    SeveralReadings {
        /// The episode's id.
        episode: String,
        /// How many readings it has.
        readings: usize,
    },
    /// Pruning was asked for a live session over an episode without questions, whose
    /// options would say which hypotheses to keep.
    #[error("episode {episode} has no questions, and pruning keeps the hypotheses that speak for their options: add questions, or turn pruning off")]
    PruningWithoutQuestions {
        /// The episode's id.
        episode: String,
    },
    /// An event pushed to a nested-belief session cannot happen in its current state.
    #[error("event {step} ({event}): impossible: {reason}")]
    ImpossibleEvent {
        /// 0-based index of the event.
        step: usize,
        /// The event.
        event: String,
        /// Why, in the story's names.
        reason: String,
        /// Why, to branch on.
        why: StoryImpossible,
    },
    /// A policy returned NaN, which is a bug in that policy.
    #[error("policy {policy} returned NaN at step {step} for {action}")]
    NotANumber {
        /// The policy's name.
        policy: String,
        /// 0-based step.
        step: usize,
        /// The action scored.
        action: String,
    },
    /// A policy could not score an action (a language model failed, say).
    #[error("policy {policy} failed at step {step} ({action})")]
    PolicyFailed {
        /// The policy's name.
        policy: String,
        /// 0-based step.
        step: usize,
        /// The action scored.
        action: String,
        /// What went wrong.
        #[source]
        source: PolicyFailure,
    },
    /// A policy gave a number of scores other than the number of hypotheses (a bug in the
    /// policy).
    #[error("policy {policy} gave {scores} scores for {hypotheses} hypotheses at step {step} ({action})")]
    WrongScoreCount {
        /// The policy's name.
        policy: String,
        /// 0-based step.
        step: usize,
        /// The action scored.
        action: String,
        /// Scores returned.
        scores: usize,
        /// Hypotheses scored.
        hypotheses: usize,
    },
}

impl EngineError {
    /// `Ok` when parameter `name`'s `value` is finite and not negative.
    pub(crate) fn check_non_negative(name: &'static str, value: f64) -> Result<(), Self> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(Self::InvalidParameter {
                name,
                value,
                reason: "must be a finite number ≥ 0",
            })
        }
    }
}
