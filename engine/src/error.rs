//! Errors from inference.

use thiserror::Error;

/// Why inference could not go on.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum EngineError {
    /// A parameter is out of range.
    #[error("{name} = {value}: {reason}")]
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is allowed.
        reason: &'static str,
    },
    /// An action pushed to a session cannot happen in its current state.
    #[error("step {step} ({action}): impossible: {reason}")]
    ImpossibleAction {
        /// 0-based index of the action.
        step: usize,
        /// The action.
        action: String,
        /// Why.
        reason: String,
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
    #[error("policy {policy} failed at step {step} ({action}): {reason}")]
    PolicyFailed {
        /// The policy's name.
        policy: String,
        /// 0-based step.
        step: usize,
        /// The action scored.
        action: String,
        /// What went wrong.
        reason: String,
    },
    /// The episode generator could not build an episode.
    #[error("generating episode {index}: {reason}")]
    Generation {
        /// Index of the episode in its stream.
        index: usize,
        /// What went wrong.
        reason: String,
    },
}
