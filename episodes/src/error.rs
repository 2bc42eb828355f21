//! Errors from reading and validating episodes.

use thiserror::Error;

use crate::limits::quoted;
use crate::state::Impossible;
use crate::story::StoryImpossible;

/// Why an episode could not be read. Every variant names where the problem is.
#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum EpisodeError {
    /// The text is not valid JSON or does not have the episode's shape.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What serde found wrong.
        message: String,
    },
    /// The `format` field is missing or names another format.
    #[error("format: expected \"{expected}\", found {found}")]
    Format {
        /// The supported format.
        expected: &'static str,
        /// What the file says.
        found: String,
    },
    /// A field refers to something the world does not have.
    #[error("{field}: unknown {kind} \"{value}\"")]
    UnknownId {
        /// JSON path of the field, e.g. `actions[3].open`.
        field: String,
        /// What kind of thing was expected ("room", "furniture", ...).
        kind: &'static str,
        /// The offending value.
        value: String,
    },
    /// Two things share one id.
    #[error("{field}: id \"{value}\" is already used by {other}")]
    DuplicateId {
        /// JSON path of the second use.
        field: String,
        /// The repeated id.
        value: String,
        /// The first use.
        other: String,
    },
    /// A value is well-formed but not allowed (a long value is quoted shortened, see
    /// [`quoted`]).
    #[error("{field}: \"{value}\" {reason}")]
    Invalid {
        /// JSON path of the field.
        field: String,
        /// The offending value.
        value: String,
        /// Why it is not allowed.
        reason: String,
    },
    /// An id of an episode built from parts ([`Episode::new`](crate::Episode::new)) that
    /// the world does not have: a position past the end of its list.
    #[error("{field}: no {kind} #{index} in this world")]
    ForeignId {
        /// Path of the part, in the terms of the episode file (`actions[3].open`).
        field: String,
        /// What kind of thing ("room", "furniture", ...).
        kind: &'static str,
        /// The position the id gives.
        index: usize,
    },
    /// A reading of where objects start that the world already has: its own, or an
    /// earlier one of `world.alternatives` (`other`); it would count twice.
    #[error("world.alternatives[{index}]: the same reading as {}; list each reading once", match other {
        Some(k) => format!("world.alternatives[{k}]"),
        None => "the world's own".to_string(),
    })]
    RepeatedReading {
        /// Position of the reading in `world.alternatives`.
        index: usize,
        /// The earlier reading it repeats, `None` for the world's own.
        other: Option<usize>,
    },
    /// Another reading of where objects start in which the actions cannot happen.
    #[error("world.alternatives[{index}]: this reading does not admit the actions")]
    Reading {
        /// Position of the reading in `world.alternatives`.
        index: usize,
        /// The action that cannot happen in it.
        #[source]
        source: Box<EpisodeError>,
    },
    /// The input is larger than a limit on what bip allocates or computes for it
    /// ([`limits`](crate::limits)).
    #[error("{field}: {count} {what} exceed the limit of {limit} (raise it with {flag})")]
    TooLarge {
        /// JSON path of the part, e.g. `world`.
        field: String,
        /// What is counted ("places (rooms and furniture)").
        what: &'static str,
        /// How many the input has.
        count: usize,
        /// The limit.
        limit: usize,
        /// The `bip` flag that raises it.
        flag: &'static str,
    },
    /// An action that cannot happen in the state the earlier actions led to.
    #[error("actions[{index}] ({action}): impossible: {reason}")]
    ImpossibleAction {
        /// Position in `actions`.
        index: usize,
        /// The action as written.
        action: String,
        /// Why it cannot happen, in the world's names.
        reason: String,
        /// Why it cannot happen, to branch on.
        why: Impossible,
    },
    /// An event of a story that cannot happen in the state the earlier events led to.
    #[error("events[{index}] ({event}): impossible: {reason}")]
    ImpossibleEvent {
        /// Position in `events`.
        index: usize,
        /// The event as written.
        event: String,
        /// Why it cannot happen, in the story's names.
        reason: String,
        /// Why it cannot happen, to branch on.
        why: StoryImpossible,
    },
}

impl EpisodeError {
    pub(crate) fn invalid(
        field: impl Into<String>,
        value: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self::Invalid {
            field: field.into(),
            value: quoted(&value.into()),
            reason: reason.into(),
        }
    }

    pub(crate) fn unknown(
        field: impl Into<String>,
        kind: &'static str,
        value: impl Into<String>,
    ) -> Self {
        Self::UnknownId {
            field: field.into(),
            kind,
            value: quoted(&value.into()),
        }
    }
}
