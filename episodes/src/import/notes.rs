//! What a text reader assumed where the text left it a choice: which of two coffee
//! tables, how many "several apples" are, which verb a place named in a list inherits, a
//! sentence of a story taken to say nothing about where anyone or anything is. Every
//! assumption is written down, so that a user can see how a question was read
//! (`bip import mmtom|hitom --report`).

use serde::Serialize;

use crate::import::Part;

/// One assumption of the reader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The part of the text it is about.
    pub part: Part,
    /// The sentence, as written.
    pub sentence: String,
    /// How it was read.
    pub reading: String,
}

/// Notes of one part of a text, without repeats, in the order first made.
#[derive(Debug, Clone, Default)]
pub(crate) struct Notes {
    notes: Vec<Note>,
}

impl Notes {
    /// Records that `sentence` of `part` was read as `reading`, unless already recorded.
    pub(crate) fn add(&mut self, part: Part, sentence: &str, reading: impl Into<String>) {
        let note = Note {
            part,
            sentence: sentence.to_string(),
            reading: reading.into(),
        };
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Appends `other`'s notes that are new.
    pub(crate) fn extend(&mut self, other: Notes) {
        for note in other.notes {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
    }

    /// The notes, in order.
    pub(crate) fn into_vec(self) -> Vec<Note> {
        self.notes
    }
}
