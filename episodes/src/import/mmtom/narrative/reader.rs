//! The narrative reader's walk through the tokens of each sentence, and its state: what
//! verb waits for a place, whether the agent is moving, what is in focus.

use crate::import::{ImportError, Part};

use super::super::apartment::Apartment;
use super::super::lexicon::{noun_at, FurnitureDef, Noun};
use super::super::numbers::{count_word, ordinal_word};
use super::super::phrase::{noun_phrase, phrase_list, Parse};
use super::super::steps::{Op, Step, Steps, Target};
use super::super::text::{span_text, Sentence, Token};
use super::super::verbs::{
    destination_at, intent_at, is_location_preposition, verb, verb_at, Verb,
};
use crate::import::notes::Notes;

/// Words that are grammatical subjects, never places.
pub(in super::super) const SUBJECTS: &[&str] = &["he", "she", "they", "him", "her"];

/// Words after "to" that make it an infinitive ("proceeds to do the same").
const INFINITIVES: &[&str] = &["do", "perform", "carry", "check", "see", "look", "try"];

/// Words that are not verbs: connectives, adverbs of time and manner, particles,
/// pronouns. Any other word the reader does not know, between places, is taken for a
/// verb ("makes a beeline for", "her next stop is").
const NOT_VERBS: &[&str] = &[
    "and",
    "or",
    "but",
    "then",
    "afterwards",
    "afterward",
    "after",
    "next",
    "later",
    "finally",
    "subsequently",
    "also",
    "again",
    "too",
    "once",
    "there",
    "here",
    "over",
    "up",
    "off",
    "back",
    "straight",
    "directly",
    "right",
    "away",
    "down",
    "out",
    "now",
    "first",
    "lastly",
    "thereafter",
    "meanwhile",
    "soon",
    "eventually",
    "just",
    "still",
    "even",
    "so",
    "as",
    "well",
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "their",
    "its",
    "it",
    "which",
    "who",
    "where",
    "when",
    "while",
    "before",
    "instead",
    "only",
    "same",
    "time",
    "turn",
    "one",
    "ones",
    "both",
    "each",
    "every",
    "all",
    "of",
    "with",
    "by",
    "at",
    "to",
    "from",
    "in",
    "on",
    "into",
    "onto",
    "towards",
    "toward",
    "for",
    "upon",
    "after",
    "following",
    "additionally",
    "moreover",
    "furthermore",
    "further",
    "likewise",
    "similarly",
    "however",
    "meantime",
    "thereupon",
    "promptly",
    "swiftly",
    "quickly",
    "slowly",
    "briefly",
    "carefully",
    "again",
];

/// Whether the agent is on its way somewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Motion {
    Still,
    /// A motion verb waits for its destination preposition.
    Moving,
    /// The next place is where the agent goes.
    Destination,
    /// "leaves the kitchen": the next place is left, not reached.
    Leaving,
}

/// Whether the last operations are to be done again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
    No,
    /// "does the same": on the places named, or on the place in focus.
    Said,
    /// "repeats this action with": on the places named next.
    With,
}

/// The reader's state.
pub(super) struct Reader<'a> {
    pub(super) apartment: &'a Apartment,
    agent: Vec<String>,
    pub(super) start: Option<usize>,
    pub(super) room: Option<usize>,
    pub(super) steps: Steps,
    pub(super) focus: Vec<Target>,
    pub(super) last_noun: Option<&'static FurnitureDef>,
    pub(super) last_list: Vec<usize>,
    pub(super) mentioned: Vec<usize>,
    pub(super) pending: Vec<Op>,
    pub(super) intent: bool,
    pub(super) motion: Motion,
    /// The destination was said with a preposition after no motion verb the reader knows
    /// ("waits for a moment"): an unknown phrase after it is passed over.
    pub(super) loose_destination: bool,
    pub(super) location: bool,
    pub(super) source: bool,
    pub(super) repeat: Repeat,
    pub(super) following: bool,
    /// A word taken for a verb the reader does not know came after the last place.
    pub(super) unknown_verb: bool,
    /// The next known verb is denied ("without closing any").
    negated: bool,
    /// The sentence says the places are taken one by one ("in turn", "each").
    pub(super) one_by_one: bool,
    pub(super) sentence: usize,
    /// Steps when the sentence began: a later one was said in this sentence.
    pub(super) steps_before: usize,
    pub(super) notes: Notes,
}

impl<'a> Reader<'a> {
    pub(super) fn new(apartment: &'a Apartment, agent: &str) -> Self {
        Self {
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
            loose_destination: false,
            location: false,
            source: false,
            repeat: Repeat::No,
            following: false,
            unknown_verb: false,
            negated: false,
            one_by_one: false,
            sentence: 0,
            steps_before: 0,
            notes: Notes::default(),
        }
    }

    /// The room the agent starts in, once known.
    pub(super) fn start(&self) -> Option<usize> {
        self.start
    }

    /// The steps, the furniture mentioned, and the notes.
    pub(super) fn finish(self) -> (Vec<Step>, Vec<usize>, Notes) {
        (self.steps.into_vec(), self.mentioned, self.notes)
    }

    /// Reads one sentence.
    pub(super) fn read(&mut self, index: usize, sentence: &Sentence) -> Result<(), ImportError> {
        self.sentence = index;
        self.steps_before = self.steps.len();
        self.unknown_verb = false;
        let tokens = &sentence.tokens;
        let words: Vec<&str> = tokens.iter().filter_map(Token::word).collect();
        self.one_by_one = words.windows(2).any(|w| {
            matches!(
                w,
                ["in", "turn"] | ["one", "by"] | ["one", "after"] | ["each", _] | ["every", _]
            )
        });
        if self.takes_the_last_places_one_by_one(&words) {
            // "She visits the first, third and fourth cabinets. At each one she opens it
            // and shuts it again": the verbs spread over the last sentence's places, as
            // they would within one sentence.
            self.steps_before -= 1;
        }
        let mut i = 0;
        while i < tokens.len() {
            i = self.token(sentence, i)?;
        }
        self.end_clause(sentence, "")?;
        self.motion = Motion::Still;
        self.intent = false;
        self.negated = false;
        self.steps.settle();
        Ok(())
    }

    /// Reads the token at `i`; returns where to go on.
    fn token(&mut self, sentence: &Sentence, i: usize) -> Result<usize, ImportError> {
        let tokens = &sentence.tokens;
        let word = |k: usize| tokens.get(k).and_then(Token::word);
        let Some(w) = word(i) else {
            // "does it again, this time with the stove": the places come after the comma.
            // (", in turn, with the second"), before any other verb.
            let with_next = tokens[i + 1..]
                .iter()
                .take_while(|t| **t != Token::Break)
                .filter_map(Token::word)
                .filter(|w| *w != "turn")
                .find(|w| *w == "with" || verb(w).is_some() || is_verb_like(w))
                == Some("with");
            if !(self.repeat == Repeat::Said && with_next) {
                self.end_clause(sentence, "")?;
            }
            return Ok(i + 1);
        };
        if matches!(w, "his" | "her" | "their" | "its") && noun_at(tokens, i + 1).is_some() {
            // "his kitchen tour": a possessive makes the noun after it a modifier.
            let skip = noun_at(tokens, i + 1)
                .filter(|m| !matches!(m.noun, Noun::Object(_)))
                .map_or(0, |m| m.len);
            return Ok(i + 1 + skip);
        }
        if self.agent.iter().any(|a| a == w) || SUBJECTS.contains(&w) || w == "'s" {
            return Ok(i + 1);
        }
        if let Some(n) = in_order_at(tokens, i) {
            // "in turn", "one after the other": not a place and not a motion.
            return Ok(i + n);
        }
        if matches!(w, "without" | "not" | "never" | "instead") {
            self.negated = true;
            return Ok(i + 1);
        }
        if let Some(n) = intent_at(tokens, i).filter(|&n| verb_at(tokens, i + n).is_some()) {
            self.intent = true;
            return Ok(i + n);
        }
        if let Some((v, n)) = verb_at(tokens, i) {
            let denied = std::mem::take(&mut self.negated);
            if !denied && !self.subject_is_not_the_agent(tokens, i) {
                self.verb(v, sentence)?;
            }
            return Ok(i + n);
        }
        if let Some(n) = destination_at(tokens, i) {
            let next = word(i + n);
            let infinitive = next.is_some_and(|v| verb(v).is_some() || INFINITIVES.contains(&v));
            if !infinitive && self.repeat != Repeat::With {
                self.flush(sentence, "")?;
                self.loose_destination =
                    !matches!(self.motion, Motion::Moving | Motion::Destination);
                self.motion = Motion::Destination;
                self.location = false;
            } else if infinitive {
                self.motion = Motion::Still;
            }
            return Ok(i + n);
        }
        if w == "with" && self.repeat != Repeat::No {
            self.repeat = Repeat::With;
            return Ok(i + 1);
        }
        if is_location_preposition(w) {
            self.location = true;
            self.source = w == "from";
            return Ok(i + 1);
        }
        if let Some(n) = distributive_at(tokens, i) {
            self.distributive(sentence, &span_text(tokens, i..i + n))?;
            return Ok(i + n);
        }
        if matches!(w, "it" | "which") {
            self.single(sentence, w)?;
            return Ok(i + 1);
        }
        self.phrase(sentence, i)
    }

    /// Reads a place phrase at `i`, or a word that is none.
    fn phrase(&mut self, sentence: &Sentence, i: usize) -> Result<usize, ImportError> {
        let tokens = &sentence.tokens;
        match phrase_list(tokens, i) {
            Parse::Found(list) => {
                self.places(sentence, &list)?;
                Ok(list.span.end)
            }
            Parse::Unknown(span) => {
                // "the handle of the microwave": a part of the furniture after it.
                let part_of = tokens.get(span.end).is_some_and(|t| t.is("of"))
                    && matches!(noun_phrase(tokens, span.end + 1), Parse::Found(p) if !p.is_object());
                if part_of {
                    return Ok(span.end + 1);
                }
                if self.pending == [Op::Grab] {
                    // "takes a moment", "takes a look": nothing is taken.
                    self.pending.clear();
                    return Ok(span.end);
                }
                if self.walks_within_its_room() {
                    // "goes to the living room and approaches the pillow", a thing the
                    // scene never listed: the agent moves about the room it is in, which
                    // the walk to the room already says.
                    let phrase = span_text(tokens, span.clone());
                    self.note(
                        sentence,
                        format!(
                            "\"{phrase}\" is nothing the scene lists: the agent stays in its room"
                        ),
                    );
                    self.motion = Motion::Still;
                    return Ok(span.end);
                }
                if self.expects_place() {
                    return Err(self.error(
                        sentence,
                        &span_text(tokens, span),
                        "the lexicon knows no such place",
                    ));
                }
                // Only the article is passed: the word after it may be a verb the reader
                // knows ("the same").
                Ok(i + 1)
            }
            Parse::Nothing => {
                let w = tokens[i].word().unwrap_or_default();
                if is_verb_like(w) {
                    self.unknown_verb = true;
                }
                Ok(i + 1)
            }
        }
    }

    /// Whether the verb at `i` has a subject other than the agent ("when the story
    /// opens").
    fn subject_is_not_the_agent(&self, tokens: &[Token], i: usize) -> bool {
        let word = |k: usize| tokens.get(k).and_then(Token::word);
        let (Some(before), Some(article)) = (
            i.checked_sub(1).and_then(word),
            i.checked_sub(2).and_then(word),
        ) else {
            return false;
        };
        matches!(article, "the" | "a" | "an")
            && noun_at(tokens, i - 1).is_none()
            && !self.agent.iter().any(|a| a == before)
    }

    fn verb(&mut self, v: Verb, sentence: &Sentence) -> Result<(), ImportError> {
        self.unknown_verb = false;
        self.loose_destination = false;
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
                self.loose_destination = false;
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
            // "tries the one to its right": a verb of wanting, in a narrative, goes there.
            Verb::Belief | Verb::Goal => self.unknown_verb = true,
        }
        Ok(())
    }

    /// The sentence opens by taking, one by one, the places the last step went to ("at
    /// each one", "at each of them", "in every one"), and that step went to several.
    fn takes_the_last_places_one_by_one(&self, words: &[&str]) -> bool {
        let opens = matches!(words, ["at" | "in" | "for", "each" | "every", ..]);
        opens
            && self
                .steps
                .last()
                .is_some_and(|last| last.targets.len() > 1 && last.targets == self.focus)
    }

    /// A walk with nothing to do at its end, after the narrative has put the agent in a
    /// room: its destination may be a thing in that room the scene never listed.
    fn walks_within_its_room(&self) -> bool {
        self.motion == Motion::Destination
            && self.pending.is_empty()
            && self.repeat == Repeat::No
            && self.room.is_some()
    }

    /// Whether an unknown phrase here would lose an action.
    pub(super) fn expects_place(&self) -> bool {
        !self.pending.is_empty()
            || (self.motion == Motion::Destination && !self.loose_destination)
            || self.repeat == Repeat::With
    }

    pub(super) fn error(&self, sentence: &Sentence, phrase: &str, reason: &str) -> ImportError {
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

    pub(super) fn note(&mut self, sentence: &Sentence, reading: impl Into<String>) {
        self.notes.add(Part::Narrative, &sentence.text, reading);
    }
}

/// Phrases that say things happen one after another ("in turn", "one after the other",
/// "one by one", "in succession"): how many tokens, if one starts at `i`.
fn in_order_at(tokens: &[Token], i: usize) -> Option<usize> {
    const PHRASES: &[&[&str]] = &[
        &["in", "turn"],
        &["one", "after", "the", "other"],
        &["one", "after", "another"],
        &["one", "by", "one"],
        &["in", "succession"],
        &["in", "sequence"],
    ];
    PHRASES
        .iter()
        .find(|p| {
            p.iter()
                .enumerate()
                .all(|(k, w)| tokens.get(i + k).is_some_and(|t| t.is(w)))
        })
        .map(|p| p.len())
}

/// Whether a word the reader does not know stands where a verb would.
pub(super) fn is_verb_like(w: &str) -> bool {
    !NOT_VERBS.contains(&w)
        && !w.ends_with("ly")
        && count_word(w).is_none()
        && ordinal_word(w).is_none()
        && !w.chars().all(|c| c.is_ascii_digit())
}

/// "each", "each one", "each of them", "each (every) one of them", "every one", "both",
/// "both of them", "them", "all of them":
/// how many tokens, if one starts at `i`.
fn distributive_at(tokens: &[Token], i: usize) -> Option<usize> {
    let word = |k: usize| tokens.get(i + k).and_then(Token::word);
    // "the two of them", "all three of them".
    if matches!(word(0)?, "the" | "all")
        && word(1).and_then(count_word).is_some()
        && word(2) == Some("of")
        && word(3) == Some("them")
    {
        return Some(4);
    }
    // "each one of them", "every one of them".
    if matches!(word(0)?, "each" | "every")
        && word(1) == Some("one")
        && word(2) == Some("of")
        && word(3) == Some("them")
    {
        return Some(4);
    }
    match (word(0)?, word(1), word(2)) {
        ("each" | "both" | "all", Some("of"), Some("them")) => Some(3),
        // "each one of the first three cabinets" is a phrase of its own.
        ("each" | "every", Some("one"), Some("of")) => None,
        ("each" | "every", Some("one"), _) => Some(2),
        // "each of the first three cabinets" is a phrase of its own.
        ("each", Some("of"), _) => None,
        ("each", _, _) | ("them", _, _) => Some(1),
        ("both", next, _)
            if next.is_none_or(|n| noun_at(tokens, i + 1).is_none() && n != "the") =>
        {
            Some(1)
        }
        _ => None,
    }
}
