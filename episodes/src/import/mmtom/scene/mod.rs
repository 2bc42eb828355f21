//! The scene description ("What's inside the apartment: ...") read into the apartments it
//! may describe.
//!
//! Sentences are cut into clauses ([`chunk`]), and each clause is read on its own, keyed
//! on the nouns it names, whatever its verb:
//!
//! - rooms: a clause naming one room makes it the room the following clauses describe;
//!   indefinite furniture in a clause ("four cabinets", "a fridge") is added to the
//!   clause's room (each room, when it names several), or to the room described;
//!   furniture the clause places things on refers to pieces already there when the room
//!   has some ("a book lies on a desk"); other furniture phrases refer to pieces already
//!   there (a definite piece not listed yet is added);
//! - things go in or on the place a preposition after them leads to ("two apples are
//!   kept in the fridge", "chips in the desk as well as in the cabinet": one in each);
//!   otherwise the nearest place before them ("the fridge contains ...", "inside the
//!   fridge, there is ..."), or one after them with no preposition ("two plates occupy
//!   the second cabinet"); with no place in the clause, the place named last ("a cupcake
//!   is kept in it too", "another in the third cabinet");
//! - when that place is several pieces, "each", "both", "all", "every" put every thing
//!   on every piece, "respectively" pairs them in order, and "which", "with",
//!   "containing" mean the last piece; otherwise the text does not say which holds what;
//! - "empty", "nothing", "none of" say that pieces hold nothing, "no apple in the fridge"
//!   that a piece holds no apple; "but", "except" take pieces out of "all cabinets".
//!
//! Where the text allows several apartments — a singular piece that could be any of
//! several ("a book is on the kitchen table" in a kitchen with two), "one of the desks",
//! things spread over several pieces with nothing saying which holds what — the reader
//! follows every reading ([`Branch`]) to the end of the scene. Readings that contradict
//! what the text says is empty are dropped (unless every reading does), readings that put
//! the same classes in the same places count once, and at most [`MAX_READINGS`] are kept.
//! Every such choice is written down as a [`Note`].
//!
//! A count the text does not give ("several apples", "apples") is read as the least the
//! words allow — two, or one on each of several places — and noted: inference depends on
//! which classes are where, not on how many.

mod chunk;
mod clause;
mod spread;

use crate::import::{ImportError, Part};

use super::apartment::Apartment;
use super::lexicon::{FurnitureDef, ObjectDef};
use super::numbers::unliteral_count;
use super::text::{sentences, span_text, Sentence};
use crate::import::notes::{Note, Notes};

pub(super) use chunk::{CLAUSE_WORDS, NEGATIONS};
pub(super) use clause::{PLACE_PREPOSITIONS, RELATIVE_WORDS};

/// The most readings a scene keeps; further ones are left out, with a note.
pub(crate) const MAX_READINGS: usize = 32;

/// The most objects one phrase may introduce ("two hundred plates" is refused).
pub(crate) const MAX_COUNT: u32 = 100;

/// What a scene description says.
#[derive(Debug, Clone)]
pub(crate) struct SceneReading {
    /// Every apartment the text allows, at least one. They share rooms and furniture and
    /// list the same objects in the same order; only where objects start differs.
    pub(crate) readings: Vec<Apartment>,
    /// What the reader assumed.
    pub(crate) notes: Vec<Note>,
}

impl SceneReading {
    /// The first reading.
    pub(crate) fn first(&self) -> &Apartment {
        &self.readings[0]
    }
}

/// Reads a scene description.
///
/// # Errors
/// [`ImportError::Unreadable`] or [`ImportError::Ambiguous`] naming the sentence and the
/// phrase that could not be read in any reading.
pub(crate) fn read_scene(text: &str) -> Result<SceneReading, ImportError> {
    let mut reader = SceneReader {
        branches: vec![Branch::default()],
        shared: Shared::default(),
    };
    for sentence in sentences(text) {
        reader.sentence(&sentence)?;
    }
    Ok(reader.finish())
}

/// One reading of the scene so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Branch {
    /// The apartment as this reading has it.
    pub(super) apartment: Apartment,
    /// Pieces named so far (not those just declared), oldest first.
    pub(super) mentioned: Vec<usize>,
    /// The places last listed together ("the latter", "both of them").
    pub(super) last_list: Vec<usize>,
    /// The piece named last ("it").
    pub(super) last_place: Option<usize>,
    /// Whether the places listed last were meant one by one ("each of the microwave and
    /// cabinet 7: a plate").
    pub(super) last_each: bool,
    /// Pieces the text said hold nothing (`None`) or no object of a class.
    pub(super) empties: Vec<(usize, Option<&'static ObjectDef>, usize)>,
}

/// What every reading shares: the words read so far.
#[derive(Debug, Default)]
pub(super) struct Shared {
    /// The room the text is describing.
    pub(super) room: Option<usize>,
    /// The furniture noun used last ("the sixth one").
    pub(super) last_noun: Option<&'static FurnitureDef>,
    /// The object class named last ("another").
    pub(super) last_thing: Option<&'static ObjectDef>,
    /// The things placed last ("so does the stove").
    pub(super) last_things: Option<chunk::Things>,
    /// The rooms named last ("... and each has a cabinet").
    pub(super) last_rooms: Vec<usize>,
    /// The room named last, alone or in a phrase ("the sofa in the living room"), for
    /// "the coffee table there".
    pub(super) last_named_room: Option<usize>,
    /// What was assumed.
    pub(super) notes: Notes,
    /// The sentences read, for notes on emptiness found false.
    pub(super) sentences: Vec<String>,
}

struct SceneReader {
    branches: Vec<Branch>,
    shared: Shared,
}

impl SceneReader {
    fn sentence(&mut self, sentence: &Sentence) -> Result<(), ImportError> {
        if let Some(span) = unliteral_count(&sentence.tokens) {
            return Err(ImportError::Unreadable {
                part: Part::Scene,
                sentence: sentence.text.clone(),
                phrase: span_text(&sentence.tokens, span),
                reason: format!(
                    "a count not taken literally (write it in digits, at most {MAX_COUNT})"
                ),
            });
        }
        let index = self.shared.sentences.len();
        self.shared.sentences.push(sentence.text.clone());
        let clauses = chunk::clauses(sentence, &mut self.shared.last_thing);
        let mut continues = false;
        for clause in &clauses {
            if let Some(span) = clause.iter().find_map(|c| match c {
                chunk::Chunk::Unknown(span) => Some(span.clone()),
                _ => None,
            }) {
                return Err(ImportError::Unreadable {
                    part: Part::Scene,
                    sentence: sentence.text.clone(),
                    phrase: span_text(&sentence.tokens, span),
                    reason: "the lexicon knows no such thing".into(),
                });
            }
            let reading = clause::ClauseReading::new(sentence, index, clause, continues);
            self.clause(sentence, &reading)?;
            continues |= reading.names_a_place();
            if let Some(things) = clause.iter().rev().find_map(|c| match c {
                chunk::Chunk::Things(t) if !t.header => Some(t.clone()),
                _ => None,
            }) {
                self.shared.last_things = Some(things);
            }
        }
        Ok(())
    }

    /// Reads one clause in every reading; readings in which it cannot be read are dropped,
    /// unless it cannot be read in any.
    fn clause(
        &mut self,
        sentence: &Sentence,
        reading: &clause::ClauseReading<'_>,
    ) -> Result<(), ImportError> {
        let mut next = Vec::new();
        let mut first_error = None;
        let mut notes = Notes::default();
        let room_before = self.shared.room;
        for (k, branch) in std::mem::take(&mut self.branches).into_iter().enumerate() {
            self.shared.room = room_before;
            let mut branch_notes = Notes::default();
            match reading.apply(branch, &mut self.shared, &mut branch_notes) {
                Ok(branches) => next.extend(branches),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
            if k == 0 {
                notes = branch_notes;
            }
        }
        self.shared.notes.extend(notes);
        if next.is_empty() {
            return Err(first_error.unwrap_or_else(|| ImportError::Unreadable {
                part: Part::Scene,
                sentence: sentence.text.clone(),
                phrase: sentence.text.clone(),
                reason: "no reading of the scene admits it".into(),
            }));
        }
        dedupe_states(&mut next);
        if next.len() > MAX_READINGS {
            next.truncate(MAX_READINGS);
            self.shared.notes.add(
                Part::Scene,
                &sentence.text,
                format!("it allows more than {MAX_READINGS} readings; the first {MAX_READINGS} are kept"),
            );
        }
        self.branches = next;
        Ok(())
    }

    fn finish(mut self) -> SceneReading {
        // Readings that put something where the text says there is nothing give way to
        // those that do not; a contradiction every reading shares (the text puts an apple
        // in a cabinet it also calls empty) leaves the placements said outright standing.
        let violated = |b: &Branch| -> Vec<(usize, usize)> {
            b.empties
                .iter()
                .filter(|&&(piece, class, _)| {
                    b.apartment
                        .objects
                        .iter()
                        .any(|o| o.at == piece && class.is_none_or(|c| c == o.def))
                })
                .map(|&(piece, _, sentence)| (piece, sentence))
                .collect()
        };
        let fewest = self
            .branches
            .iter()
            .map(|b| violated(b).len())
            .min()
            .unwrap_or(0);
        let before = self.branches.len();
        self.branches.retain(|b| violated(b).len() == fewest);
        if self.branches.len() < before {
            self.shared.notes.add(
                Part::Scene,
                self.shared.sentences.last().map_or("", String::as_str),
                format!(
                    "{} of {before} readings put something where the text says there is nothing, and are dropped",
                    before - self.branches.len()
                ),
            );
        }
        if let Some(b) = self.branches.first() {
            let ids = b.apartment.furniture_ids();
            for (piece, sentence) in violated(b) {
                self.shared.notes.add(
                    Part::Scene,
                    &self.shared.sentences[sentence],
                    format!(
                        "it says {} holds nothing (of a kind) that the scene puts there; the placement said outright stands",
                        ids[piece]
                    ),
                );
            }
        }
        let mut readings: Vec<Apartment> = self.branches.into_iter().map(|b| b.apartment).collect();
        let mut seen = Vec::new();
        readings.retain(|a| {
            let key = a.placement();
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        SceneReading {
            readings,
            notes: self.shared.notes.into_vec(),
        }
    }
}

/// Keeps the first of readings that are alike in every way the rest of the text can
/// tell: where each class is, what was named and what was said to be empty.
fn dedupe_states(branches: &mut Vec<Branch>) {
    let mut seen = Vec::new();
    branches.retain(|b| {
        let mut empties: Vec<(usize, Option<&str>)> = b
            .empties
            .iter()
            .map(|&(p, c, _)| (p, c.map(|c| c.class)))
            .collect();
        empties.sort_unstable();
        let key = (
            b.apartment.placement(),
            b.mentioned.clone(),
            b.last_list.clone(),
            b.last_place,
            b.last_each,
            empties,
        );
        let new = !seen.contains(&key);
        if new {
            seen.push(key);
        }
        new
    });
}

#[cfg(test)]
#[path = "../scene_tests.rs"]
mod tests;
