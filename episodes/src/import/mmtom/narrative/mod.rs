//! The action narrative ("Actions taken by NAME: ...") read into steps: what the agent
//! did, to which places, in order.
//!
//! The reader walks each sentence once, keyed on the places it names (rooms, furniture,
//! objects) and on the few verbs that change what happens there (open, close, take),
//! tolerant of every other word:
//!
//! - a place after a destination preposition ("to", "towards", "into", "for", "over to",
//!   "in the direction of"), whatever the verb, or after a verb the reader does not know
//!   ("makes a beeline for the fridge", "her next stop is the stove", "his destination:
//!   the microwave"), is walked to; so is the object of an approach verb ("approaches",
//!   "visits", "reaches");
//! - *open*, *close* and *take* verbs wait for their object: the next place phrase, "it",
//!   or, when the clause ends first ("which he opens and then shuts"), the place in focus;
//!   "each", "both" and "them" spread them over the places just listed ("opening and
//!   closing each in turn"); a place followed by them in the passive ("the fridge is
//!   opened and then closed by him") is their object;
//! - a place named with no verb of its own continues the last thing done ("she visits
//!   the fridge and afterwards the microwave", "he opens the second cabinet, then the next
//!   one", "Then the second.");
//! - "is about to", "on the verge of", "reaches for" make the next opening an intention:
//!   the agent only walks to the container;
//! - "repeats this action with", "does the same with", "does it again, this time with",
//!   "gives the seventh the same treatment" do the last openings and closings again on
//!   the places named, or, with no place, on the place in focus;
//! - "followed by X" does the last openings and closings to X too, unless the clause says
//!   what is done to X;
//! - rooms after "in", "around", "from" ("continues his journey in the kitchen") are where
//!   the agent is, not where it goes; the first room so named, or named before anything
//!   is done ("Jamal's starting point is the bathroom"), is where it starts. Furniture
//!   there ("peeks inside the fridge") needs a verb the reader knows;
//! - a verb after "without", "not" or "never" ("without closing any") is not done, and
//!   one whose subject is not the agent ("when the story opens") is not the agent's.
//!
//! A place phrase that nothing can be done with, an open or close with nothing to act
//! on, or a word after an article that the lexicon does not know where a place is
//! expected, is an error naming the sentence. Choices the text leaves open (which of two
//! coffee tables) are made by the rules of [`super::resolve`] and written down as notes.

mod places;
mod reader;

use crate::import::{ImportError, Part};

use super::apartment::Apartment;
use super::steps::Step;
use super::text::sentences;
use crate::import::notes::Note;

pub(super) use reader::SUBJECTS;

/// A narrative read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Narrative {
    /// The room the agent starts in.
    pub(crate) start: usize,
    /// What it did.
    pub(crate) steps: Vec<Step>,
    /// The sentences, as written.
    pub(crate) sentences: Vec<String>,
    /// Furniture mentioned, oldest first.
    pub(crate) mentioned: Vec<usize>,
    /// What the reader assumed.
    pub(crate) notes: Vec<Note>,
}

/// Reads the narrative of `agent` in `apartment`.
///
/// # Errors
/// [`ImportError::Unreadable`] or [`ImportError::Ambiguous`] naming the sentence.
pub(crate) fn read_narrative(
    text: &str,
    agent: &str,
    apartment: &Apartment,
) -> Result<Narrative, ImportError> {
    let mut reader = reader::Reader::new(apartment, agent);
    let sentences = sentences(text);
    for (index, sentence) in sentences.iter().enumerate() {
        reader.read(index, sentence)?;
    }
    let start = reader.start().ok_or_else(|| ImportError::Unreadable {
        part: Part::Narrative,
        sentence: text.trim().to_string(),
        phrase: agent.to_string(),
        reason: "the narrative does not say which room the agent starts in".into(),
    })?;
    let (steps, mentioned, notes) = reader.finish();
    Ok(Narrative {
        start,
        steps,
        sentences: sentences.into_iter().map(|s| s.text).collect(),
        mentioned,
        notes: notes.into_vec(),
    })
}

#[cfg(test)]
#[path = "../narrative_tests.rs"]
mod tests;
