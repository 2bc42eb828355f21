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
    /// Inference over one episode of a batch failed.
    #[error("episode {episode}: inference failed")]
    InEpisode {
        /// The episode's id.
        episode: String,
        /// Why.
        #[source]
        source: Box<EngineError>,
    },
    /// A shard is not `k/n` with 1 ≤ k ≤ n.
    #[error("\"{text}\" is not k/n with 1 ≤ k ≤ n")]
    InvalidShard {
        /// The text given.
        text: String,
    },
    /// A line of a variance predictions file is not a record.
    #[error("{file}:{line}: not a variance record: {reason}")]
    NotARecord {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// What the JSON reader said.
        reason: String,
    },
    /// A scored record's answer or expected answer is not a letter of its options.
    #[error("{file}:{line}: answer or expected is not an option letter")]
    NotAnOptionLetter {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
    },
    /// A record of a theme and item that an earlier file already holds.
    #[error("{file}:{line}: {item} of theme {theme} is already in an earlier file (the same shard twice?)")]
    RepeatedRecord {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// The item (`episode/question`, or `line N` for an unreadable input).
        item: String,
        /// The theme.
        theme: String,
    },
}

impl EngineError {
    /// This error, said to be about episode `episode` of a batch.
    pub(crate) fn in_episode(self, episode: &str) -> Self {
        Self::InEpisode {
            episode: episode.to_string(),
            source: Box::new(self),
        }
    }
}
