//! Errors from importing episodes written in other formats.

use std::fmt;

use thiserror::Error;

use crate::error::EpisodeError;
use crate::limits::quoted;

/// The part of a question text (MMToM-QA, Hi-ToM or ToMi) a problem is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Part {
    /// "What's inside the apartment: ..."
    Scene,
    /// "Actions taken by NAME: ..."
    Narrative,
    /// "Question: ..." and its options.
    Question,
    /// A Hi-ToM or ToMi story's numbered sentences.
    Story,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Scene => "scene",
            Part::Narrative => "narrative",
            Part::Question => "question",
            Part::Story => "story",
        })
    }
}

/// Why a question could not be imported. Every variant says where: the field, or the
/// sentence and the phrase in it that could not be read. [`ImportError::Episode`] keeps
/// what is invalid as its source: print the chain to see it.
#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum ImportError {
    /// The line is not a JSON object of the expected shape.
    #[error("not a question record: {message}")]
    Json {
        /// What is wrong with it.
        message: String,
    },
    /// A field of the record is missing or has a value that cannot be used.
    #[error("field \"{field}\": {reason}")]
    Field {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The question text lacks one of its parts.
    #[error("the text has no {part} (looked for \"{marker}\")")]
    MissingPart {
        /// The missing part.
        part: Part,
        /// The words that start it.
        marker: &'static str,
    },
    /// A sentence could not be read.
    #[error(
        "{part}: cannot read \"{}\" in \"{}\": {reason}",
        quoted(phrase),
        quoted(sentence)
    )]
    Unreadable {
        /// The part of the text.
        part: Part,
        /// The sentence, as written.
        sentence: String,
        /// The phrase at fault (the whole sentence when no smaller one is).
        phrase: String,
        /// Why.
        reason: String,
    },
    /// A phrase could mean several things and nothing in the text decides.
    #[error("{part}: \"{}\" in \"{}\" could be any of {}", quoted(phrase), quoted(sentence), candidates.join(", "))]
    Ambiguous {
        /// The part of the text.
        part: Part,
        /// The sentence, as written.
        sentence: String,
        /// The ambiguous phrase.
        phrase: String,
        /// Ids of what it could mean.
        candidates: Vec<String>,
    },
    /// The episode read from the text is not valid (an impossible action, an unknown class).
    /// The message names the sentence; the source says what is invalid.
    #[error("{}", sentence.as_ref().map_or_else(|| "the episode read is invalid".to_string(), |s| format!("\"{}\"", quoted(s))))]
    Episode {
        /// The sentence the invalid part came from, when known.
        sentence: Option<String>,
        /// What is invalid.
        source: EpisodeError,
    },
}
