//! Importers: episodes written in other formats, read into `bip-episode/1`.
//!
//! - [`mmtom`]: MMToM-QA text questions (scene description, action narrative, question with
//!   options), read deterministically by a lexicon and a small grammar, no language model.
//! - [`hitom`]: Hi-ToM stories (agents entering and leaving rooms, moving objects, telling
//!   each other where things are) and their nested-belief questions, read into stories
//!   (the multi-agent kind of `bip-episode/1`), keyed on the record's own containers.
//! - [`tomi`]: ToMi's Sally–Anne stories in the bAbI layout, with first- and second-order
//!   belief questions and questions of where an object is and was, read into stories.
//! - [`virtualhome`]: VirtualHome scene graphs and programs bound to them, with a report of
//!   every choice made; and episodes exported back to graphs and programs.
//!
//! Unreadable input is an [`ImportError`] naming the sentence and phrase at fault (a
//! [`virtualhome::VirtualHomeError`] naming the node, edge or script line); an importer
//! never guesses silently.

mod error;
pub mod hitom;
pub mod mmtom;
pub(crate) mod notes;
pub mod tomi;
pub mod virtualhome;

pub use error::{ImportError, Part};
pub use notes::Note;
