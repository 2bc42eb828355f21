//! Importers: episodes written in other formats, read into `bip-episode/1`.
//!
//! - [`mmtom`]: MMToM-QA text questions (scene description, action narrative, question with
//!   options), read deterministically by a lexicon and a small grammar, no language model.
//!
//! Unreadable input is an [`ImportError`] naming the sentence and phrase at fault; an
//! importer never guesses.

mod error;
pub mod mmtom;

pub use error::{ImportError, Part};
