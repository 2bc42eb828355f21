//! The action narrative ("Actions taken by NAME: ...") read into steps: what the agent
//! did, to which places, in order.
//!
//! The reader walks each sentence once, keeping a little state:
//!
//! - a *motion* verb ("strides", "makes her way") followed by a destination preposition
//!   ("towards", "to", "into", "for", "in the direction of"), or an *approach* verb
//!   ("approaches", "reaches", "interacts with") followed by a place,
//!   walks there; "and then towards the wine" keeps walking;
//! - *open* and *close* verbs wait for their object: the next place phrase, "it", or, when
//!   the clause ends first ("which he opens and then shuts"), the place in focus;
//!   "each", "both" and "them" spread them over the places just listed ("opening and
//!   closing each in turn");
//! - "is about to", "on the verge of", "preparing to" make the next opening an intention:
//!   the agent only walks to the container;
//! - "repeats this action with", "does the same with", "continues this pattern with" do
//!   the last openings and closings again on the places named, or, with no place, on
//!   the place in focus ("..., where he does the same");
//! - "followed by X" does the last openings and closings to X too, unless the clause
//!   says what is done to X ("followed by the stove, which she opens"); a place joined by
//!   "and" or a comma to one just acted on gets the same verb ("opens the microwave, and
//!   the stove");
//! - rooms after "in", "around", "from" ("continues his journey in the kitchen") are
//!   where the agent is, not where it goes; the first room so named is where it starts.
//!   Furniture there ("peeks inside the fridge") needs a verb the reader knows.
//!
//! A place phrase that no verb takes, an open or close with nothing to act on, or a word
//! after an article that the lexicon does not know where a place is expected, is an
//! error naming the sentence.

use crate::import::{ImportError, Part};

use super::apartment::Apartment;
use super::lexicon::{noun_at, FurnitureDef, Noun};
use super::phrase::{phrase_list, Head, Parse, PhraseList};
use super::resolve::{self, Context, Reading, Unresolved};
use super::steps::{Op, Step, Steps, Target};
use super::text::{sentences, span_text, Sentence, Token};
use super::verbs::{destination_at, intent_at, is_location_preposition, verb, verb_at, Verb};

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Motion {
    Still,
    Moving,
    Destination,
    Leaving,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    No,
    Said,
    With,
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
    let mut reader = Reader {
        apartment,
        agent: agent
            .to_lowercase()
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        start: None,
        room: None,
        steps: Steps::default(),
        focus: Vec::new(),
        last_noun: None,
        last_list: Vec::new(),
        mentioned: Vec::new(),
        pending: Vec::new(),
        intent: false,
        motion: Motion::Still,
        location: false,
        source: false,
        repeat: Repeat::No,
        following: false,
        sentence: 0,
        steps_before: 0,
    };
    let sentences = sentences(text);
    for (index, sentence) in sentences.iter().enumerate() {
        reader.sentence = index;
        reader.steps_before = reader.steps.len();
        reader.read(sentence)?;
    }
    let start = reader.start.ok_or_else(|| ImportError::Unreadable {
        part: Part::Narrative,
        sentence: text.trim().to_string(),
        phrase: agent.to_string(),
        reason: "the narrative does not say which room the agent starts in".into(),
    })?;
    Ok(Narrative {
        start,
        steps: reader.steps.into_vec(),
        sentences: sentences.into_iter().map(|s| s.text).collect(),
        mentioned: reader.mentioned,
    })
}

struct Reader<'a> {
    apartment: &'a Apartment,
    agent: Vec<String>,
    start: Option<usize>,
    room: Option<usize>,
    steps: Steps,
    focus: Vec<Target>,
    last_noun: Option<&'static FurnitureDef>,
    last_list: Vec<usize>,
    mentioned: Vec<usize>,
    pending: Vec<Op>,
    intent: bool,
    motion: Motion,
    location: bool,
    source: bool,
    repeat: Repeat,
    following: bool,
    sentence: usize,
    /// Steps when the sentence began: a later one was said in this sentence.
    steps_before: usize,
}

/// Words that are grammatical subjects, never places.
pub(super) const SUBJECTS: &[&str] = &["he", "she", "they", "him"];

/// Words after "to" that make it an infinitive ("proceeds to do the same").
const INFINITIVES: &[&str] = &["do", "perform", "carry"];

impl Reader<'_> {
    fn read(&mut self, sentence: &Sentence) -> Result<(), ImportError> {
        let tokens = &sentence.tokens;
        let word = |k: usize| tokens.get(k).and_then(Token::word);
        let mut i = 0;
        while i < tokens.len() {
            let Some(w) = word(i) else {
                self.end_clause(sentence, "")?;
                i += 1;
                continue;
            };
            if matches!(w, "his" | "her" | "their" | "its") {
                // "his kitchen tour": a possessive makes the noun after it a modifier.
                let skip = noun_at(tokens, i + 1)
                    .filter(|m| !matches!(m.noun, Noun::Object(_)))
                    .map_or(0, |m| m.len);
                i += 1 + skip;
                continue;
            }
            if self.agent.iter().any(|a| a == w) || SUBJECTS.contains(&w) {
                i += 1;
                continue;
            }
            if let Some(n) = intent_at(tokens, i).filter(|&n| verb_at(tokens, i + n).is_some()) {
                self.intent = true;
                i += n;
                continue;
            }
            if let Some((v, n)) = verb_at(tokens, i) {
                self.verb(v, sentence)?;
                i += n;
                continue;
            }
            if matches!(self.motion, Motion::Moving | Motion::Destination) {
                if let Some(n) = destination_at(tokens, i) {
                    let next = word(i + n);
                    let infinitive =
                        next.is_some_and(|v| verb(v).is_some() || INFINITIVES.contains(&v));
                    self.motion = if infinitive {
                        Motion::Still
                    } else {
                        Motion::Destination
                    };
                    i += n;
                    continue;
                }
            }
            if w == "with" && self.repeat != Repeat::No {
                self.repeat = Repeat::With;
                i += 1;
                continue;
            }
            if is_location_preposition(w) {
                self.location = true;
                self.source = w == "from";
                i += 1;
                continue;
            }
            if let Some(n) = distributive_at(tokens, i) {
                self.distributive(sentence, &span_text(tokens, i..i + n))?;
                i += n;
                continue;
            }
            if matches!(w, "it" | "which") {
                self.single(sentence, w)?;
                i += 1;
                continue;
            }
            match phrase_list(tokens, i) {
                Parse::Found(list) => {
                    i = list.span.end;
                    self.places(sentence, &list)?;
                }
                Parse::Unknown(span) if self.expects_place() => {
                    return Err(self.error(
                        sentence,
                        &span_text(tokens, span),
                        "the lexicon knows no such place",
                    ));
                }
                Parse::Unknown(_) | Parse::Nothing => i += 1,
            }
        }
        self.end_clause(sentence, "")?;
        self.motion = Motion::Still;
        self.intent = false;
        self.steps.settle();
        Ok(())
    }

    fn verb(&mut self, v: Verb, sentence: &Sentence) -> Result<(), ImportError> {
        match v {
            Verb::Open | Verb::Close | Verb::Grab => {
                self.location = false;
                self.motion = Motion::Still;
                let op = match (v, self.intent) {
                    (Verb::Open, true) | (Verb::Grab, true) => Op::IntendOpen,
                    (Verb::Open, false) => Op::Open,
                    (Verb::Grab, false) => Op::Grab,
                    _ => Op::Close,
                };
                if !(self.intent && v == Verb::Close) {
                    self.pending.push(op);
                }
                self.intent = false;
            }
            Verb::Motion | Verb::Approach | Verb::Depart => {
                self.flush(sentence, "")?;
                self.location = false;
                self.intent = false;
                self.motion = match v {
                    Verb::Motion => Motion::Moving,
                    Verb::Approach => Motion::Destination,
                    _ => Motion::Leaving,
                };
            }
            Verb::Repeat => {
                self.location = false;
                if self.repeat == Repeat::No {
                    self.repeat = Repeat::Said;
                }
            }
            Verb::Follow => {
                self.flush(sentence, "")?;
                self.location = false;
                self.motion = Motion::Still;
                self.repeat = Repeat::With;
                self.following = true;
            }
            Verb::Belief | Verb::Goal => {}
        }
        Ok(())
    }

    /// Whether an unknown phrase here would lose an action.
    fn expects_place(&self) -> bool {
        !self.pending.is_empty()
            || self.motion == Motion::Destination
            || self.repeat == Repeat::With
    }

    fn error(&self, sentence: &Sentence, phrase: &str, reason: &str) -> ImportError {
        ImportError::Unreadable {
            part: Part::Narrative,
            sentence: sentence.text.clone(),
            phrase: if phrase.is_empty() {
                sentence.text.clone()
            } else {
                phrase.to_string()
            },
            reason: reason.to_string(),
        }
    }

    /// A list of place phrases: whatever verb is waiting takes it.
    fn places(&mut self, sentence: &Sentence, list: &PhraseList) -> Result<(), ImportError> {
        let phrase = span_text(&sentence.tokens, list.span.clone());
        let targets = self.resolve(sentence, list)?;
        if self.location {
            // "is in the kitchen", "continues around the kitchen", "walks from the stove".
            self.location = false;
            let source = std::mem::take(&mut self.source);
            match (self.start, targets.as_slice()) {
                (None, [Target::Room(r)]) => {
                    self.start = Some(*r);
                    self.room = Some(*r);
                }
                (_, places) if !source && places.iter().any(|t| !matches!(t, Target::Room(_))) => {
                    let reason = "it says where the agent is, but no verb says what it does there";
                    return Err(self.error(sentence, &phrase, reason));
                }
                _ => {}
            }
            return Ok(());
        }
        if self.repeat == Repeat::With {
            self.repeat = Repeat::No;
            let ops = self.steps.template();
            self.push(sentence, &phrase, ops, targets.clone())?;
            if std::mem::take(&mut self.following) {
                self.steps.mark_tentative();
            }
        } else if !self.pending.is_empty() {
            let ops = std::mem::take(&mut self.pending);
            self.push(sentence, &phrase, ops, targets.clone())?;
        } else if self.motion == Motion::Destination {
            self.motion = Motion::Moving;
            self.push(sentence, &phrase, vec![Op::Walk], targets.clone())?;
        } else if self.motion == Motion::Leaving {
            self.motion = Motion::Still;
        } else if let Some(ops) = self.coordinated(sentence, list) {
            // "opens the microwave, and the stove": the verb before "and" goes on.
            self.push(sentence, &phrase, ops, targets.clone())?;
        } else {
            return Err(self.error(
                sentence,
                &phrase,
                "no verb says what the agent does with it",
            ));
        }
        self.focus = targets;
        Ok(())
    }

    /// The operations of this sentence's last step, when `list` is joined to it by "and"
    /// or a comma.
    fn coordinated(&self, sentence: &Sentence, list: &PhraseList) -> Option<Vec<Op>> {
        let before = list
            .span
            .start
            .checked_sub(1)
            .and_then(|k| sentence.tokens.get(k))?;
        let joined = before.is("and") || *before == Token::Comma;
        let last = self
            .steps
            .last()
            .filter(|_| self.steps.len() > self.steps_before)?;
        joined.then(|| last.ops.clone())
    }

    fn resolve(
        &mut self,
        sentence: &Sentence,
        list: &PhraseList,
    ) -> Result<Vec<Target>, ImportError> {
        let mut targets = Vec::new();
        let mut pieces = Vec::new();
        for item in &list.items {
            let phrase = span_text(&sentence.tokens, item.span.clone());
            match item.head {
                Head::Noun(Noun::Room(r)) => {
                    match self.apartment.rooms.iter().position(|x| *x == r) {
                        Some(room) => targets.push(Target::Room(room)),
                        None => {
                            return Err(self.error(sentence, &phrase, "the scene has no such room"))
                        }
                    }
                }
                Head::Noun(Noun::Object(o)) => {
                    match resolve::object(self.apartment, o, self.room) {
                        Some(object) => targets.push(Target::Object(object)),
                        None => {
                            return Err(self.error(
                                sentence,
                                &phrase,
                                "the scene has no such object",
                            ))
                        }
                    }
                }
                _ => {
                    let context = Context {
                        room: self.room,
                        mentioned: &self.mentioned,
                        last_noun: self.last_noun,
                        last_list: &self.last_list,
                        reading: Reading::Situated,
                    };
                    let found = resolve::furniture(self.apartment, item, &context).map_err(
                        |why| match why {
                            Unresolved::NotFound(reason) => self.error(sentence, &phrase, &reason),
                            Unresolved::Ambiguous(c) => {
                                let ids = self.apartment.furniture_ids();
                                ImportError::Ambiguous {
                                    part: Part::Narrative,
                                    sentence: sentence.text.clone(),
                                    phrase: phrase.clone(),
                                    candidates: c.iter().map(|&p| ids[p].clone()).collect(),
                                }
                            }
                        },
                    )?;
                    if let Head::Noun(Noun::Furniture(f)) = item.head {
                        self.last_noun = Some(f);
                    }
                    pieces.extend(found.iter().copied());
                    targets.extend(found.into_iter().map(Target::Furniture));
                }
            }
        }
        if !pieces.is_empty() {
            self.mentioned.extend(pieces.iter().copied());
            self.last_list = pieces;
        }
        Ok(targets)
    }

    /// "it" or "which".
    fn single(&mut self, sentence: &Sentence, word: &str) -> Result<(), ImportError> {
        let Some(&target) = self.focus.last() else {
            return if self.pending.is_empty() && self.motion != Motion::Destination {
                Ok(())
            } else {
                Err(self.error(sentence, word, "nothing has been named for it to refer to"))
            };
        };
        if !self.pending.is_empty() {
            let ops = std::mem::take(&mut self.pending);
            self.push(sentence, word, ops, vec![target])?;
        } else if self.motion == Motion::Destination {
            self.motion = Motion::Moving;
            self.push(sentence, word, vec![Op::Walk], vec![target])?;
        }
        Ok(())
    }

    /// "each", "both", "them": the waiting verbs apply to every place just listed.
    fn distributive(&mut self, sentence: &Sentence, phrase: &str) -> Result<(), ImportError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.focus.is_empty() {
            return Err(self.error(
                sentence,
                phrase,
                "nothing has been named for it to refer to",
            ));
        }
        let ops = std::mem::take(&mut self.pending);
        if self.steps.spread(&ops, &self.focus) {
            return Ok(());
        }
        let focus = self.focus.clone();
        self.push(sentence, phrase, ops, focus)
    }

    /// A clause ends: waiting verbs act on the place in focus, "the same" is done to it.
    fn end_clause(&mut self, sentence: &Sentence, phrase: &str) -> Result<(), ImportError> {
        self.flush(sentence, phrase)?;
        if self.repeat != Repeat::No {
            if self.repeat == Repeat::With {
                return Err(self.error(sentence, phrase, "\"with\" is not followed by a place"));
            }
            self.repeat = Repeat::No;
            if self.focus.is_empty() {
                return Err(self.error(sentence, phrase, "nothing has been done yet to do again"));
            }
            let (ops, focus) = (self.steps.template(), self.focus.clone());
            self.push(sentence, phrase, ops, focus)?;
        }
        self.location = false;
        Ok(())
    }

    fn flush(&mut self, sentence: &Sentence, phrase: &str) -> Result<(), ImportError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.focus.is_empty() {
            return Err(self.error(
                sentence,
                phrase,
                "the verb has no object and nothing is in focus",
            ));
        }
        let (ops, focus) = (std::mem::take(&mut self.pending), self.focus.clone());
        self.push(sentence, phrase, ops, focus)
    }

    fn push(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
        ops: Vec<Op>,
        targets: Vec<Target>,
    ) -> Result<(), ImportError> {
        if self.start.is_none() {
            return Err(self.error(
                sentence,
                phrase,
                "the agent acts before the narrative says which room it starts in",
            ));
        }
        if let Some(&last) = targets.last() {
            self.room = Some(self.room_of(last));
        }
        self.steps.push(ops, targets, self.sentence);
        Ok(())
    }

    fn room_of(&self, target: Target) -> usize {
        match target {
            Target::Room(r) => r,
            Target::Furniture(f) => self.apartment.furniture[f].room,
            Target::Object(o) => self.apartment.furniture[self.apartment.objects[o].at].room,
        }
    }
}

/// "each", "each one", "each of them", "both", "both of them", "them", "all of them":
/// how many tokens, if one starts at `i`.
fn distributive_at(tokens: &[Token], i: usize) -> Option<usize> {
    let word = |k: usize| tokens.get(i + k).and_then(Token::word);
    match (word(0)?, word(1), word(2)) {
        ("each" | "both" | "all", Some("of"), Some("them")) => Some(3),
        ("each", Some("one"), _) => Some(2),
        ("each", _, _) | ("them", _, _) => Some(1),
        ("both", next, _)
            if next.is_none_or(|n| noun_at(tokens, i + 1).is_none() && n != "the") =>
        {
            Some(1)
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "narrative_tests.rs"]
mod tests;
