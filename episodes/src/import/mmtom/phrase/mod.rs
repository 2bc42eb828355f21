//! Noun phrases: "the third cabinet from the left", "two bottles of wine", "the fifth,
//! fourth, and second kitchen cabinets", "one of the kitchen tables", "the sixth one",
//! "the kitchen sofa", "a bag of chips", and lists of them joined by commas, "and",
//! "along with" and "as well as".
//!
//! A phrase is read, not resolved: which furniture "the cabinet" is depends on the scene
//! and on where the agent is, and is decided in [`super::resolve`].

use std::ops::Range;

use super::lexicon::{noun_at, Noun, RoomDef};
use super::numbers::{count_word, ordinal_word, Ordinal};
use super::text::Token;
use super::verbs::verb;

/// How a phrase is determined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Det {
    /// "the", "this": a thing already known.
    Definite,
    /// "a", "two", "another": new things, or any one of them.
    Indefinite,
    /// No determiner ("kitchen table" inside "a stove, kitchen table, and fridge").
    Bare,
}

/// What a phrase is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Head {
    /// A noun from the lexicon.
    Noun(Noun),
    /// An ordinal without its noun ("the fourth", "the sixth one"): the noun is the one
    /// last mentioned.
    Elided,
    /// "the latter": the last of the places just listed.
    Latter,
    /// "the former": the first of the places just listed.
    Former,
}

/// One noun phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NounPhrase {
    /// Its determiner.
    pub(crate) det: Det,
    /// How many things it introduces, when it says ("two apples" → 2, "a plate" → 1).
    pub(crate) count: Option<u32>,
    /// Positions in a row ("the fifth, fourth, and second cabinets").
    pub(crate) ordinals: Vec<Ordinal>,
    /// Whether the row is counted from the right.
    pub(crate) from_right: bool,
    /// A room named inside the phrase ("the kitchen sofa", "the cabinet in the bedroom").
    pub(crate) room: Option<&'static RoomDef>,
    /// "one of the kitchen tables".
    pub(crate) one_of: bool,
    /// "the other kitchen table": one not mentioned yet.
    pub(crate) other: bool,
    /// Whether the noun is plural.
    pub(crate) plural: bool,
    /// What it names.
    pub(crate) head: Head,
    /// Where it is in the sentence's tokens.
    pub(crate) span: Range<usize>,
}

impl NounPhrase {
    /// Whether this phrase names objects (as opposed to rooms or furniture).
    pub(crate) fn is_object(&self) -> bool {
        matches!(self.head, Head::Noun(Noun::Object(_)))
    }

    /// Whether this phrase names rooms.
    pub(crate) fn is_room(&self) -> bool {
        matches!(self.head, Head::Noun(Noun::Room(_)))
    }

    fn kind_rank(&self) -> u8 {
        match self.head {
            Head::Noun(Noun::Object(_)) => 0,
            Head::Noun(Noun::Room(_)) => 1,
            _ => 2,
        }
    }
}

/// The result of trying to read a phrase at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parse<T> {
    /// A phrase was read.
    Found(T),
    /// A determiner or count is followed by words the lexicon does not know
    /// ("a toaster"): the span of what was read.
    Unknown(Range<usize>),
    /// Nothing like a noun phrase starts here.
    Nothing,
}

/// Words that end a run of adjectives: they are grammar, not descriptions.
pub(super) const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "of", "with", "and", "or", "but", "on", "in", "inside", "to", "towards",
    "into", "from", "at", "by", "for", "is", "are", "was", "were", "be", "it", "them", "which",
    "that", "there", "he", "she", "they", "his", "her", "their", "its", "then", "as", "while",
    "each", "both", "one", "ones", "same", "this", "these", "those", "another",
];

/// Reads one noun phrase starting at `tokens[i]`.
pub(crate) fn noun_phrase(tokens: &[Token], i: usize) -> Parse<NounPhrase> {
    let word = |k: usize| tokens.get(k).and_then(Token::word);
    let mut k = i;
    let mut det = Det::Bare;
    let mut count = None;
    let mut one_of = false;
    match word(k) {
        Some("the" | "this" | "that" | "these" | "those") => {
            det = Det::Definite;
            k += 1;
        }
        Some("one") if word(k + 1) == Some("of") && word(k + 2) == Some("the") => {
            det = Det::Definite;
            one_of = true;
            k += 3;
        }
        Some("a" | "an")
            if matches!(word(k + 1), Some("couple" | "pair")) && word(k + 2) == Some("of") =>
        {
            det = Det::Indefinite;
            count = Some(2);
            k += 3;
        }
        Some("a" | "an" | "another") => {
            det = Det::Indefinite;
            count = Some(1);
            k += 1;
            if word(k) == Some("single") {
                k += 1;
            }
        }
        _ => {}
    }
    let counted = |w: &&str| *w != "one" || det != Det::Bare || noun_at(tokens, k + 1).is_some();
    if let Some(n) = word(k).filter(counted).and_then(number) {
        count = Some(n);
        if det == Det::Bare {
            det = Det::Indefinite;
        }
        k += 1;
    }
    let other = det == Det::Definite && word(k) == Some("other");
    if other {
        k += 1;
    }
    let mut ordinals = Vec::new();
    while let Some(o) = word(k).and_then(ordinal_word) {
        ordinals.push(o);
        k += 1;
        let sep = separator_before_ordinal(tokens, k);
        if sep == 0 {
            break;
        }
        k += sep;
    }
    let mut skipped = 0;
    while det != Det::Bare && skipped < 2 && noun_at(tokens, k).is_none() {
        match word(k) {
            Some(w) if is_adjective(w) && word(k + 1).is_some() => {
                skipped += 1;
                k += 1;
            }
            _ => break,
        }
    }
    if skipped > 0 && noun_at(tokens, k).is_none() {
        k -= skipped;
    }
    let mut room = None;
    let (head, plural) = match noun_at(tokens, k) {
        Some(m) => {
            k += m.len;
            match (m.noun, noun_at(tokens, k)) {
                (Noun::Room(r), Some(next)) if matches!(next.noun, Noun::Furniture(_)) => {
                    room = Some(r);
                    k += next.len;
                    (Head::Noun(next.noun), next.plural)
                }
                (noun, _) => (Head::Noun(noun), m.plural),
            }
        }
        None => match word(k) {
            Some("one" | "ones") if !ordinals.is_empty() || det == Det::Definite => {
                k += 1;
                (Head::Elided, word(k - 1) == Some("ones"))
            }
            Some("latter") if det == Det::Definite => {
                k += 1;
                (Head::Latter, false)
            }
            Some("former") if det == Det::Definite => {
                k += 1;
                (Head::Former, false)
            }
            // "First, he walks...": an ordinal without article or noun is an adverb.
            _ if det == Det::Bare => return Parse::Nothing,
            _ if !ordinals.is_empty() => (Head::Elided, ordinals.len() > 1),
            _ if det != Det::Bare => return Parse::Unknown(i..(k + 1).min(tokens.len())),
            _ => return Parse::Nothing,
        },
    };
    let mut phrase = NounPhrase {
        det,
        count,
        ordinals,
        from_right: false,
        room,
        one_of,
        other,
        plural,
        head,
        span: i..k,
    };
    k = post_modifiers(tokens, k, &mut phrase);
    phrase.span = i..k;
    Parse::Found(phrase)
}

/// A count word that is a number ("two", "3"), not an article.
fn number(word: &str) -> Option<u32> {
    match word {
        "a" | "an" | "another" | "single" => None,
        w => count_word(w),
    }
}

fn is_adjective(word: &str) -> bool {
    !FUNCTION_WORDS.contains(&word)
        && verb(word).is_none()
        && ordinal_word(word).is_none()
        && count_word(word).is_none()
}

/// Tokens joining two ordinals ("fifth, fourth, and second"): 0 when none.
fn separator_before_ordinal(tokens: &[Token], k: usize) -> usize {
    let is_ordinal = |j: usize| {
        tokens
            .get(j)
            .and_then(Token::word)
            .and_then(ordinal_word)
            .is_some()
    };
    let comma = |j: usize| tokens.get(j) == Some(&Token::Comma);
    let and = |j: usize| tokens.get(j).is_some_and(|t| t.is("and"));
    if comma(k) && and(k + 1) && is_ordinal(k + 2) {
        2
    } else if (comma(k) || and(k)) && is_ordinal(k + 1) {
        1
    } else {
        0
    }
}

/// Reads "from the left", "(from left to right)", "counting from the right" and, after
/// furniture, "in the bedroom".
fn post_modifiers(tokens: &[Token], mut k: usize, phrase: &mut NounPhrase) -> usize {
    let word = |j: usize| tokens.get(j).and_then(Token::word);
    let opened = tokens.get(k) == Some(&Token::Comma)
        && matches!(word(k + 1), Some("from" | "counting" | "starting"));
    let mut j = if opened { k + 1 } else { k };
    if matches!(word(j), Some("counting" | "starting")) {
        j += 1;
    }
    if word(j) == Some("from") {
        let mut m = j + 1;
        if word(m) == Some("the") {
            m += 1;
        }
        if let Some(side @ ("left" | "right")) = word(m) {
            m += 1;
            if word(m) == Some("to") && matches!(word(m + 1), Some("left" | "right")) {
                m += 2;
            }
            phrase.from_right = side == "right";
            k = if opened && tokens.get(m) == Some(&Token::Comma) {
                m + 1
            } else {
                m
            };
        }
    }
    let is_furniture = matches!(phrase.head, Head::Noun(Noun::Furniture(_)) | Head::Elided);
    if is_furniture && phrase.room.is_none() && word(k) == Some("in") {
        let at = if word(k + 1) == Some("the") {
            k + 2
        } else {
            k + 1
        };
        if let Some(m) = noun_at(tokens, at) {
            if let Noun::Room(r) = m.noun {
                phrase.room = Some(r);
                return at + m.len;
            }
        }
    }
    k
}

/// A list of phrases of one kind (objects, rooms, or furniture), and whether it was
/// introduced by "both".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PhraseList {
    /// The phrases, in order.
    pub(crate) items: Vec<NounPhrase>,
    /// "Both the microwave and the stove ...": the list is meant one by one.
    pub(crate) both: bool,
    /// The tokens the list spans.
    pub(crate) span: Range<usize>,
}

/// Separators of list items: "," "and" ", and" "along with" "as well as" "plus".
const SEPARATORS: &[&[&str]] = &[
    &[",", "and"],
    &[",", "as", "well", "as"],
    &[",", "along", "with"],
    &[",", "together", "with"],
    &[",", "plus"],
    &["and"],
    &[","],
    &["as", "well", "as"],
    &["along", "with"],
    &["together", "with"],
    &["plus"],
];

/// Reads a list of noun phrases of one kind starting at `tokens[i]`.
pub(crate) fn phrase_list(tokens: &[Token], i: usize) -> Parse<PhraseList> {
    let both = matches!(tokens.get(i).and_then(Token::word), Some("both"));
    let start = if both { i + 1 } else { i };
    let first = match noun_phrase(tokens, start) {
        Parse::Found(p) => p,
        Parse::Unknown(span) => return Parse::Unknown(span),
        Parse::Nothing => return Parse::Nothing,
    };
    let mut k = first.span.end;
    let mut items = vec![first];
    'items: loop {
        for sep in SEPARATORS {
            if !sep
                .iter()
                .enumerate()
                .all(|(j, w)| matches_token(tokens.get(k + j), w))
            {
                continue;
            }
            // "A plate is in the microwave, and the fridge contains ...": after a single
            // item, ", and" joins clauses, not list items.
            if sep.starts_with(&[",", "and"]) && items.len() < 2 {
                continue;
            }
            if let Parse::Found(mut next) = noun_phrase(tokens, k + sep.len()) {
                let previous = &items[items.len() - 1];
                let anaphor = matches!(next.head, Head::Latter | Head::Former);
                if anaphor || next.kind_rank() != previous.kind_rank() {
                    break 'items;
                }
                if next.det == Det::Bare && next.ordinals.is_empty() {
                    next.det = previous.det;
                    if previous.det == Det::Indefinite && next.count.is_none() {
                        next.count = Some(1);
                    }
                }
                k = next.span.end;
                items.push(next);
                continue 'items;
            }
        }
        break;
    }
    Parse::Found(PhraseList {
        items,
        both,
        span: i..k,
    })
}

fn matches_token(token: Option<&Token>, w: &str) -> bool {
    match token {
        Some(Token::Comma) => w == ",",
        Some(Token::Word(word)) => word == w,
        None => false,
    }
}

#[cfg(test)]
#[path = "phrase_tests.rs"]
mod tests;
