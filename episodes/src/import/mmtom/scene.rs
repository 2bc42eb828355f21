//! The scene description ("What's inside the apartment: ...") read into an [`Apartment`].
//!
//! Each sentence is cut into chunks: lists of rooms, of furniture ("places") and of
//! objects ("things"), and the words between them. A sentence naming one room sets the
//! room the following sentences describe, and its indefinite furniture ("four cabinets",
//! "a fridge") is added to that room; other furniture phrases refer to pieces already
//! there (a definite piece not listed yet is added). Each list of things is put in or on
//! a place:
//!
//! - the place after it, when a preposition of place leads there ("... are placed on the
//!   coffee table", "there is a cupcake in the stove");
//! - otherwise the nearest place before it in the sentence ("The fridge contains ...",
//!   "Inside the fridge, there is ...", "a sofa with a book on it"), or, in a sentence
//!   naming no place, the place "it" stands for ("Inside it, there are two apples").
//!
//! A definite piece among several alike that nothing singles out is the first of them
//! ("the kitchen table" in a kitchen with two tables); "the other kitchen table" is the one
//! not mentioned yet.
//!
//! When that place is a list, "each" and "both" put every thing in every place ("The
//! microwave and the stove each contain a salmon"), "respectively" pairs them in order,
//! and "which"/"with"/"containing" mean the last place; anything else is ambiguous.
//! "Empty" says nothing new and is skipped, and so are denied things ("there is no apple
//! in the fridge").

use crate::import::{ImportError, Part};

use super::apartment::Apartment;
use super::lexicon::{FurnitureDef, Noun};
use super::phrase::{phrase_list, Det, Head, NounPhrase, Parse, PhraseList};
use super::resolve::{self, Context, Reading, Unresolved};
use super::text::{sentences, span_text, Sentence, Token};

/// Words that may follow an article without being a thing of the apartment.
pub(super) const NOT_THINGS: &[&str] = &[
    "apartment",
    "house",
    "home",
    "flat",
    "left",
    "right",
    "following",
    "other",
    "rest",
    "same",
];

/// Words that deny the things after them ("no apples", "without any plates").
pub(super) const NEGATIONS: &[&str] = &["no", "any", "without", "nor"];

/// Prepositions that put things in or on the place after them.
pub(super) const PLACE_PREPOSITIONS: &[&str] = &[
    "in", "inside", "on", "within", "into", "onto", "atop", "upon",
];

/// Words that start a new clause: a place after them is not where the things before are.
pub(super) const CLAUSE_WORDS: &[&str] = &[
    "and", "while", "but", "whereas", "however", "or", "although", "whilst",
];

/// Words between a list of places and its things that mean "the last of them".
pub(super) const RELATIVE_WORDS: &[&str] = &[
    "which",
    "that",
    "with",
    "containing",
    "housing",
    "holding",
    "where",
    "whose",
    "storing",
];

#[derive(Debug)]
enum Chunk {
    Rooms(PhraseList),
    Places {
        list: PhraseList,
        pieces: Vec<usize>,
    },
    Things(PhraseList),
    Word(String),
    Comma,
}

/// Reads a scene description.
///
/// # Errors
/// [`ImportError::Unreadable`] or [`ImportError::Ambiguous`] naming the sentence and the
/// phrase that could not be placed.
pub(crate) fn read_scene(text: &str) -> Result<Apartment, ImportError> {
    let mut reader = SceneReader::default();
    for sentence in sentences(text) {
        reader.sentence(&sentence)?;
    }
    Ok(reader.apartment)
}

#[derive(Default)]
struct SceneReader {
    apartment: Apartment,
    room: Option<usize>,
    last_noun: Option<&'static FurnitureDef>,
    last_list: Vec<usize>,
    mentioned: Vec<usize>,
}

impl SceneReader {
    fn sentence(&mut self, sentence: &Sentence) -> Result<(), ImportError> {
        let error = |phrase: &str, reason: String| ImportError::Unreadable {
            part: Part::Scene,
            sentence: sentence.text.clone(),
            phrase: phrase.to_string(),
            reason,
        };
        let mut chunks = chunks(sentence).map_err(|span| {
            error(
                &span_text(&sentence.tokens, span),
                "the lexicon knows no such thing".into(),
            )
        })?;
        let mut rooms = Vec::new();
        for chunk in &chunks {
            if let Chunk::Rooms(list) = chunk {
                for item in &list.items {
                    if let Head::Noun(Noun::Room(r)) = item.head {
                        let index = self.apartment.room(r);
                        if !rooms.contains(&index) {
                            rooms.push(index);
                        }
                    }
                }
            }
        }
        let inventory = rooms.len() == 1;
        match rooms.as_slice() {
            [one] => self.room = Some(*one),
            [] => {}
            _ => self.room = None,
        }
        for chunk in &mut chunks {
            if let Chunk::Places { list, pieces } = chunk {
                for item in &list.items {
                    let found = self.place(item, inventory).map_err(|reason| match reason {
                        Unresolved::NotFound(why) => {
                            error(&span_text(&sentence.tokens, item.span.clone()), why)
                        }
                        Unresolved::Ambiguous(c) => ImportError::Ambiguous {
                            part: Part::Scene,
                            sentence: sentence.text.clone(),
                            phrase: span_text(&sentence.tokens, item.span.clone()),
                            candidates: self.names(&c),
                        },
                    })?;
                    pieces.extend(found);
                }
                self.last_list = pieces.clone();
            }
        }
        for c in 0..chunks.len() {
            if let Chunk::Things(list) = &chunks[c] {
                let last_place = self.last_list.last().copied();
                let placed = place_things(&chunks, c, last_place).map_err(|reason| {
                    error(&span_text(&sentence.tokens, list.span.clone()), reason)
                })?;
                for (item, piece) in placed {
                    let def = match item.head {
                        Head::Noun(Noun::Object(o)) => o,
                        _ => continue,
                    };
                    let count = match (item.count, item.plural) {
                        (Some(n), _) => n,
                        (None, false) => 1,
                        (None, true) => {
                            return Err(error(
                                &span_text(&sentence.tokens, item.span.clone()),
                                "how many is not said".into(),
                            ))
                        }
                    };
                    for _ in 0..count {
                        self.apartment.add_object(def, piece);
                    }
                }
            }
        }
        Ok(())
    }

    /// The pieces a furniture phrase declares or refers to.
    fn place(&mut self, item: &NounPhrase, inventory: bool) -> Result<Vec<usize>, Unresolved> {
        let room = match (item.room, self.room) {
            (Some(r), _) => Some(self.apartment.room(r)),
            (None, r) => r,
        };
        let noun = match item.head {
            Head::Noun(Noun::Furniture(f)) => Some(f),
            _ => None,
        };
        let declares =
            inventory && item.det == Det::Indefinite && item.ordinals.is_empty() && !item.one_of;
        let pieces = match (noun, room) {
            (Some(f), Some(room)) if declares => {
                let def = f.in_room(self.apartment.rooms[room].id);
                let count = item.count.unwrap_or(1);
                self.apartment.add_furniture(def, room, count)
            }
            _ => {
                let context = Context {
                    room,
                    mentioned: &self.mentioned,
                    last_noun: self.last_noun,
                    last_list: &self.last_list,
                    reading: Reading::Situated,
                };
                let found = resolve::furniture(&self.apartment, item, &context);
                match (found, noun, room) {
                    (Err(Unresolved::Ambiguous(c)), _, _)
                        if item.det == Det::Definite && !item.plural =>
                    {
                        vec![c[0]]
                    }
                    (Err(Unresolved::NotFound(_)), Some(f), Some(room))
                        if item.ordinals.is_empty() && !item.one_of && !item.plural =>
                    {
                        let def = f.in_room(self.apartment.rooms[room].id);
                        self.apartment.add_furniture(def, room, 1)
                    }
                    (Err(Unresolved::NotFound(why)), _, None) => {
                        return Err(Unresolved::NotFound(format!(
                            "{why}; no room has been described yet"
                        )))
                    }
                    (result, _, _) => result?,
                }
            }
        };
        if !declares {
            self.mentioned.extend(pieces.iter().copied());
        }
        if let Some(f) = noun {
            self.last_noun = Some(f);
        }
        Ok(pieces)
    }

    fn names(&self, pieces: &[usize]) -> Vec<String> {
        let ids = self.apartment.furniture_ids();
        pieces.iter().map(|&p| ids[p].clone()).collect()
    }
}

/// The sentence cut into chunks, or the span of an unknown noun phrase.
fn chunks(sentence: &Sentence) -> Result<Vec<Chunk>, std::ops::Range<usize>> {
    let tokens = &sentence.tokens;
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == Token::Comma {
            out.push(Chunk::Comma);
            i += 1;
            continue;
        }
        match phrase_list(tokens, i) {
            Parse::Found(list) => {
                let negated = i
                    .checked_sub(1)
                    .and_then(|k| tokens[k].word())
                    .is_some_and(|w| NEGATIONS.contains(&w));
                i = list.span.end;
                out.push(if list.items[0].is_room() {
                    Chunk::Rooms(list)
                } else if list.items[0].is_object() && negated {
                    // "there is no apple in the fridge": nothing to add.
                    Chunk::Word(String::new())
                } else if list.items[0].is_object() {
                    Chunk::Things(list)
                } else {
                    Chunk::Places {
                        list,
                        pieces: Vec::new(),
                    }
                });
            }
            Parse::Unknown(span) => {
                let known = span
                    .clone()
                    .skip(1)
                    .filter_map(|k| tokens.get(k).and_then(Token::word))
                    .any(|w| NOT_THINGS.contains(&w));
                if !known {
                    return Err(span);
                }
                out.push(Chunk::Word(String::new()));
                i = span.end;
            }
            Parse::Nothing => {
                out.push(Chunk::Word(
                    tokens[i].word().unwrap_or_default().to_string(),
                ));
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Where the things of chunk `c` are: pairs of (thing phrase, piece).
fn place_things(
    chunks: &[Chunk],
    c: usize,
    last_place: Option<usize>,
) -> Result<Vec<(&NounPhrase, usize)>, String> {
    let Chunk::Things(things) = &chunks[c] else {
        return Ok(Vec::new());
    };
    let one_place = |piece: usize| things.items.iter().map(|t| (t, piece)).collect::<Vec<_>>();
    // A preposition of place after the things leads to their place.
    let mut k = c + 1;
    while k < chunks.len() {
        match &chunks[k] {
            Chunk::Word(w) if PLACE_PREPOSITIONS.contains(&w.as_str()) => match chunks.get(k + 1) {
                Some(Chunk::Places { pieces, .. }) => {
                    return match pieces.as_slice() {
                        [piece] => Ok(one_place(*piece)),
                        _ => Err("they are said to be in several places at once".into()),
                    }
                }
                Some(Chunk::Word(w)) if matches!(w.as_str(), "it" | "them" | "which") => break,
                _ => k += 1,
            },
            Chunk::Word(w) if CLAUSE_WORDS.contains(&w.as_str()) => break,
            Chunk::Word(_) | Chunk::Comma => k += 1,
            _ => break,
        }
    }
    // Otherwise the nearest place before them, or the last place of an earlier sentence
    // when "it" stands for it ("Inside it, there are two apples").
    let Some(p) = (0..c)
        .rev()
        .find(|&k| matches!(chunks[k], Chunk::Places { .. }))
    else {
        let it = chunks[..c]
            .iter()
            .any(|x| matches!(x, Chunk::Word(w) if w == "it"));
        return match last_place {
            Some(piece) if it => Ok(one_place(piece)),
            _ => Err("no place is named for them".into()),
        };
    };
    let Chunk::Places { list, pieces } = &chunks[p] else {
        return Err("no place is named for them".into());
    };
    let between = |w: &[&str]| {
        chunks[p + 1..c]
            .iter()
            .any(|x| matches!(x, Chunk::Word(v) if w.contains(&v.as_str())))
    };
    let respectively = chunks[c + 1..]
        .iter()
        .take_while(|x| !matches!(x, Chunk::Word(w) if CLAUSE_WORDS.contains(&w.as_str())))
        .any(|x| matches!(x, Chunk::Word(w) if w == "respectively"));
    match pieces.as_slice() {
        [piece] => Ok(one_place(*piece)),
        _ if respectively => {
            if things.items.len() != pieces.len() {
                return Err(format!(
                    "\"respectively\" pairs {} things with {} places",
                    things.items.len(),
                    pieces.len()
                ));
            }
            Ok(things.items.iter().zip(pieces.iter().copied()).collect())
        }
        _ if between(&["each"]) || list.both => Ok(pieces
            .iter()
            .flat_map(|&piece| things.items.iter().map(move |t| (t, piece)))
            .collect()),
        [.., last] if between(RELATIVE_WORDS) => Ok(one_place(*last)),
        _ => Err("several places are named before them and nothing says which holds what".into()),
    }
}

#[cfg(test)]
#[path = "scene_tests.rs"]
mod tests;
