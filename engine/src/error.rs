//! Errors from inference.

use thiserror::Error;

use bip_episodes::{EpisodeError, Impossible, QuestionType, StoryImpossible};

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
        /// Why, in the world's names.
        reason: String,
        /// Why, to branch on.
        why: Impossible,
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
    /// The episode generator was given no question types to draw from.
    #[error("generating episode {index}: no question types selected")]
    NoQuestionTypes {
        /// Index of the episode in its stream.
        index: usize,
    },
    /// No scenario of the episode's type could be built in the draws allowed.
    #[error("generating episode {index}: no {kind} scenario found in {attempts} draws")]
    NoScenario {
        /// Index of the episode in its stream.
        index: usize,
        /// The question type drawn.
        kind: QuestionType,
        /// Draws tried.
        attempts: usize,
    },
    /// The generator made a world or an episode that is not valid (a bug in the generator,
    /// reported rather than hidden).
    #[error("generating episode {index}: the generated {what} is invalid")]
    GeneratedInvalid {
        /// Index of the episode in its stream.
        index: usize,
        /// What was invalid: "world" or "episode".
        what: &'static str,
        /// Why.
        #[source]
        source: EpisodeError,
    },
    /// A calibration file (`bip calibrate --out`) is not JSON of a calibration's shape.
    #[error("not a calibration file")]
    NotACalibration {
        /// What the JSON reader said.
        #[source]
        source: serde_json::Error,
    },
    /// A calibration file of another format.
    #[error("format: expected \"{expected}\", found \"{found}\"")]
    CalibrationFormat {
        /// The format read.
        expected: &'static str,
        /// The file's `format`.
        found: String,
    },
    /// A calibration whose β is negative or not a number.
    #[error("beta: {beta} is not a finite number ≥ 0")]
    CalibrationBeta {
        /// The file's β.
        beta: f64,
    },
    /// A calibration file lacks the parameter its policy needs, or has one out of range.
    #[error("{policy} calibration: {field}: {reason}")]
    CalibrationField {
        /// The file's `policy`.
        policy: String,
        /// The field at fault.
        field: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// The nested-story generator made a story that is not valid (a bug in the generator,
    /// reported rather than hidden).
    #[error("generating story {index}: the generated story is invalid")]
    GeneratedStoryInvalid {
        /// Index of the story in its stream.
        index: usize,
        /// Why.
        #[source]
        source: EpisodeError,
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
    #[error("{file}:{line}: not a variance record")]
    NotARecord {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// What the JSON reader said.
        #[source]
        source: serde_json::Error,
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

    /// This error, said to be about episode `episode` of a batch.
    pub(crate) fn in_episode(self, episode: &str) -> Self {
        Self::InEpisode {
            episode: episode.to_string(),
            source: Box::new(self),
        }
    }
}
