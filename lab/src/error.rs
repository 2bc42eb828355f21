//! Errors of the lab: generating, evaluating, calibrating, studying.

use thiserror::Error;

use bip_engine::EngineError;
use bip_episodes::{EpisodeError, QuestionType};

/// Why a generation, evaluation, calibration or study could not go on.
///
/// A variant that wraps a cause keeps it as its [`source`](std::error::Error::source)
/// and does not repeat it in its own message: print the chain (`{:#}` of an
/// `anyhow::Error`) to see both.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LabError {
    /// Inference failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
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
        /// What was invalid: "world", "episode" or "themed episode".
        what: &'static str,
        /// Why.
        #[source]
        source: EpisodeError,
    },
    /// A theme refused a generated episode: the themed episode would not give it back
    /// exactly.
    #[error("generating episode {index}: it cannot be told in theme {theme}")]
    GeneratedUnthemed {
        /// Index of the episode in its stream.
        index: usize,
        /// The theme's id.
        theme: String,
        /// Why (boxed: theme errors are large, and rare).
        #[source]
        source: Box<bip_themes::ThemeError>,
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
    /// A calibration whose β is not a number in [0, [`MAX_BETA`](bip_engine::MAX_BETA)].
    #[error("beta: {} is not a number between 0 and 1e6", bip_episodes::limits::number(*beta))]
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
    /// A line of a run's file (after its header) is not a record.
    #[error("{file}:{line}: not a {format} record")]
    NotARecord {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// The run's format (`bip-variance/1`, `bip-study/1`).
        format: &'static str,
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
    /// A scored record whose figures no run could have written.
    #[error("{file}:{line}: {reason}")]
    InvalidRecord {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// What is impossible.
        reason: String,
    },
    /// A run's file that does not begin with its header line.
    #[error("{file}: no run line first (`{{\"run\": {{\"format\": \"{format}\", \"shard\": \"k/n\", \"plan\": ...}}}}`, as the run writes it)")]
    NoRunHeader {
        /// The file, as named by the caller.
        file: String,
        /// The format the header should name.
        format: &'static str,
    },
    /// A shard of another split or themes than the files before it.
    #[error("{file}: shard {shard} is not of the run of the files before it (another n or other themes)")]
    ShardMismatch {
        /// The file, as named by the caller.
        file: String,
        /// Its shard.
        shard: String,
    },
    /// A shard that an earlier file already holds.
    #[error("{file}: shard {shard} is already in an earlier file (the same shard twice?)")]
    RepeatedShard {
        /// The file, as named by the caller.
        file: String,
        /// Its shard.
        shard: String,
    },
    /// Shards of the run that no file holds.
    #[error("shard {missing} is missing: every shard 1..{n} of a run must be merged")]
    MissingShards {
        /// Shards in the run.
        n: usize,
        /// The missing ones, `k/n`, comma-separated.
        missing: String,
    },
    /// A record of a theme its run did not compare.
    #[error("{file}:{line}: theme \"{theme}\" is not among the themes of the file's run")]
    UnknownTheme {
        /// The file, as named by the caller.
        file: String,
        /// Its line (from 1).
        line: usize,
        /// The theme.
        theme: String,
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
    /// A results file written for another plan than the one given.
    #[error("{file}: written for another plan ({field} differs); give the plan that wrote it, or another output folder")]
    OtherPlan {
        /// The file, as named by the caller.
        file: String,
        /// The first field of the plan that differs.
        field: String,
    },
    /// Two questions of a study's items with one key, which would pair them wrongly.
    #[error("lines {first} and {line} both hold question {item} (in theme {theme}): questions must be named once")]
    RepeatedItem {
        /// The question (`episode/question`).
        item: String,
        /// The theme it was read in.
        theme: String,
        /// The first line holding it.
        first: usize,
        /// The line holding it again.
        line: usize,
    },
    /// A study whose results do not cover every question of every policy and theme.
    #[error("{missing} of {total} results are missing (the first: policy {policy}, theme {theme}, {item}); run the shards that have not finished")]
    IncompleteStudy {
        /// Results missing.
        missing: usize,
        /// Results the study needs.
        total: usize,
        /// The first missing one's policy.
        policy: String,
        /// Its theme.
        theme: String,
        /// Its question.
        item: String,
    },
}

/// This inference error, said to be about episode `episode` of a batch.
pub(crate) fn in_episode(error: EngineError, episode: &str) -> LabError {
    LabError::InEpisode {
        episode: episode.to_string(),
        source: Box::new(error),
    }
}
