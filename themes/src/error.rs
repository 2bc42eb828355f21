//! Why a theme could not be loaded or applied.

use bip_episodes::import::ImportError;
use bip_episodes::limits::quoted;
use bip_episodes::EpisodeError;

/// Why a theme could not be loaded or applied. Every variant names the field, form or
/// place at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ThemeError {
    /// The theme file is not JSON.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// Line of the error (from 1).
        line: usize,
        /// Column of the error (from 1).
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A field of the theme file is missing, unknown or malformed.
    #[error("{}: {reason}", quoted(path))]
    Field {
        /// JSON path of the field (`furniture.fridge.forms.refrigerator`).
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two different base words would get the same themed word, so the theme could not be
    /// undone.
    #[error(
        "not one-to-one: \"{}\" would stand for both {} and {}",
        quoted(form),
        quoted(first),
        quoted(second)
    )]
    NotOneToOne {
        /// The themed word.
        form: String,
        /// One base word or class it stands for.
        first: String,
        /// The other.
        second: String,
    },
    /// A themed word is a word of the base vocabulary for another class.
    #[error(
        "{}: \"{}\" already names {class} in the base vocabulary",
        quoted(path),
        quoted(form)
    )]
    Collision {
        /// JSON path of the themed word.
        path: String,
        /// The themed word.
        form: String,
        /// The base class it names.
        class: String,
    },
    /// A themed word is a word the MMToM-QA grammar reads (a verb, count, preposition...).
    #[error(
        "{}: \"{}\" is a word of the question grammar; choose another",
        quoted(path),
        quoted(word)
    )]
    Reserved {
        /// JSON path of the themed word.
        path: String,
        /// The word.
        word: String,
    },
    /// A theme file takes an id a built-in theme or another file already has.
    #[error("id \"{id}\" is already the id of {by}; give the theme another id")]
    TakenId {
        /// The id.
        id: String,
        /// What has it.
        by: String,
    },
    /// No one theme explains a text's words (`--theme auto`): two fit it equally, or the
    /// one whose words it has also holds words that theme replaces.
    #[error("cannot tell the theme: {reason}; name it with --theme")]
    Undetected {
        /// Why not.
        reason: String,
    },
    /// No theme has this name.
    #[error("no theme \"{name}\" (known: {known})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The themes there are.
        known: String,
    },
    /// Applying the theme could not be undone exactly: the input already uses a themed
    /// word, or themed words next to other words read as a different noun.
    #[error(
        "{}: the theme could not be undone: \"{}\" would come back as \"{}\"",
        quoted(location),
        quoted(original),
        quoted(round_trip)
    )]
    NotReversible {
        /// Where (a JSON path, or a character offset in text).
        location: String,
        /// The input there.
        original: String,
        /// What themed-then-unthemed text gives there.
        round_trip: String,
    },
    /// A question record (JSONL line) is malformed (its message and source are the
    /// import error's).
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The themed episode is not valid (its message and source are the episode error's).
    #[error(transparent)]
    Episode(#[from] EpisodeError),
}
