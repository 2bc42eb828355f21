//! Noun phrases: "the third cabinet from the left", "two bottles of wine", "the fifth,
//! fourth, and second kitchen cabinets", "one of the kitchen tables", "the sixth one",
//! "the kitchen sofa", "a bag of chips"; quantified ones ("all cabinets", "each of the
//! three cabinets", "none of the cabinets", "the remaining cabinets", "several apples");
//! positions relative to the last piece named ("the next one", "the one to its right");
//! and lists of them joined by commas, "and", "along with" and "as well as".
//!
//! A phrase is read, not resolved: which furniture "the cabinet" is depends on the scene
//! and on where the agent is, and is decided in [`super::resolve`].

use std::ops::Range;

mod parts;

use super::lexicon::{noun_at, FurnitureDef, Noun, RoomDef};
use super::numbers::{count_word, ordinal_word, Ordinal};
use super::text::Token;
use super::verbs::verb;

pub(super) use parts::VAGUE_COUNTS;

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
    /// A position relative to the piece named last ("the next one", "the one to its
    /// left", "the next two cabinets").
    Relative(Relative),
    /// "them" in "one of them": the places last listed.
    Them,
}

/// A position in a row relative to the piece named last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Relative {
    /// +1 for the next piece (to the right), −1 for the previous; 0 for either neighbour
    /// ("the one next to it").
    pub(crate) step: i32,
    /// How many pieces, going on in that direction ("the next two").
    pub(crate) count: u32,
    /// The noun, when the phrase names one ("the next cabinet").
    pub(crate) noun: Option<&'static FurnitureDef>,
}

/// A quantifier over pieces of furniture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quantifier {
    /// "all cabinets", "every cabinet", "both cabinets": every piece, one by one.
    All,
    /// "none of the cabinets", "no cabinet": every piece, said to hold nothing.
    NoneOf,
    /// "the remaining cabinets", "the rest of the cabinets", "the other cabinets": the
    /// pieces not named so far.
    Remaining,
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
    /// A quantifier over furniture ("all", "none of the", "the remaining").
    pub(crate) quantifier: Option<Quantifier>,
    /// A count word that gives no number ("several", "some", "a few"): at least two.
    pub(crate) vague: Option<&'static str>,
    /// "in the apartment": pieces anywhere, not only in the room in view.
    pub(crate) everywhere: bool,
    /// "the coffee table there": in the room named last.
    pub(crate) there: bool,
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
    let mut reader = PhraseReader::new(tokens, i);
    reader.determiner();
    if reader.det == Det::Definite && reader.quantifier.is_none() && !reader.one_of {
        if let Some((relative, end)) = parts::relative_at(tokens, reader.k) {
            return Parse::Found(reader.phrase(Head::Relative(relative), relative.count > 1, end));
        }
    }
    reader.count();
    reader.ordinals();
    reader.adjectives();
    let (head, plural) = match reader.head() {
        Ok(head) => head,
        Err(parse) => return parse,
    };
    let end = reader.k;
    let mut phrase = reader.phrase(head, plural, end);
    let end = parts::post_modifiers(tokens, end, &mut phrase);
    phrase.span = i..end;
    Parse::Found(phrase)
}

/// A noun phrase being read, left to right.
struct PhraseReader<'t> {
    tokens: &'t [Token],
    start: usize,
    /// The next token.
    k: usize,
    det: Det,
    count: Option<u32>,
    one_of: bool,
    other: bool,
    quantifier: Option<Quantifier>,
    vague: Option<&'static str>,
    ordinals: Vec<Ordinal>,
    from_right: bool,
    room: Option<&'static RoomDef>,
}

impl<'t> PhraseReader<'t> {
    fn new(tokens: &'t [Token], start: usize) -> Self {
        Self {
            tokens,
            start,
            k: start,
            det: Det::Bare,
            count: None,
            one_of: false,
            other: false,
            quantifier: None,
            vague: None,
            ordinals: Vec::new(),
            from_right: false,
            room: None,
        }
    }

    fn word(&self, k: usize) -> Option<&'t str> {
        self.tokens.get(k).and_then(Token::word)
    }

    fn phrase(&self, head: Head, plural: bool, end: usize) -> NounPhrase {
        NounPhrase {
            det: self.det,
            count: self.count,
            ordinals: self.ordinals.clone(),
            from_right: self.from_right,
            room: self.room,
            one_of: self.one_of,
            other: self.other,
            plural,
            quantifier: self.quantifier,
            vague: self.vague,
            everywhere: false,
            there: false,
            head,
            span: self.start..end,
        }
    }

    /// Quantifiers ("all", "none of the", "the remaining"), vague counts ("several"),
    /// articles and demonstratives, "one of the", "a couple of", "another".
    fn determiner(&mut self) {
        if let Some((q, n)) = parts::quantifier_at(self.tokens, self.k) {
            self.quantifier = Some(q);
            self.det = Det::Definite;
            self.k += n;
            return;
        }
        if let Some((w, n)) = parts::vague_at(self.tokens, self.k) {
            self.vague = Some(w);
            self.det = Det::Indefinite;
            self.k += n;
            return;
        }
        let k = self.k;
        let (det, skip, count) = match (self.word(k), self.word(k + 1), self.word(k + 2)) {
            (Some("the"), _, _) => (Det::Definite, 1, None),
            // "that" and "this" determine only a noun: "a cabinet that stores ...".
            (Some("this" | "that" | "these" | "those"), _, _)
                if noun_at(self.tokens, k + 1).is_some()
                    || self.word(k + 1).and_then(ordinal_word).is_some() =>
            {
                (Det::Definite, 1, None)
            }
            (Some("one"), Some("of"), Some("the" | "these" | "those")) => {
                self.one_of = true;
                (Det::Definite, 3, None)
            }
            (Some("one"), Some("of"), Some("them")) => {
                self.one_of = true;
                (Det::Definite, 3, None)
            }
            (Some("a" | "an"), Some("couple" | "pair"), Some("of")) => {
                (Det::Indefinite, 3, Some(2))
            }
            (Some("a" | "an" | "another"), Some("single"), _) => (Det::Indefinite, 2, Some(1)),
            (Some("a" | "an" | "another"), _, _) => (Det::Indefinite, 1, Some(1)),
            _ => return,
        };
        self.det = det;
        self.k += skip;
        self.count = count;
    }

    /// A number ("two", "3"), making a bare phrase indefinite.
    fn count(&mut self) {
        let Some(w) = self.word(self.k) else { return };
        // "one" is a number only before a noun: "the one to its right" is not.
        if w == "one" && noun_at(self.tokens, self.k + 1).is_none() {
            return;
        }
        if let Some(n) = number(w) {
            self.count = Some(n);
            if self.det == Det::Bare {
                self.det = Det::Indefinite;
            }
            self.k += 1;
        }
    }

    /// "other", "left"/"right" before a noun, and ordinals ("the fifth, fourth, and
    /// second", "the second to last").
    fn ordinals(&mut self) {
        if self.det == Det::Definite
            && self.quantifier.is_none()
            && self.word(self.k) == Some("other")
        {
            self.other = true;
            self.k += 1;
        }
        let before_noun =
            |r: &Self, k: usize| noun_at(r.tokens, k).is_some() || matches!(r.word(k), Some("one"));
        if self.det == Det::Definite && before_noun(self, self.k + 1) {
            match self.word(self.k) {
                Some("left") => self.ordinals.push(Ordinal::Nth(1)),
                Some("right") => self.ordinals.push(Ordinal::LAST),
                _ => {}
            }
            if !self.ordinals.is_empty() {
                self.k += 1;
                return;
            }
        }
        while let Some(o) = self.word(self.k).and_then(ordinal_word) {
            self.k += 1;
            let o = match (
                o,
                self.word(self.k),
                self.word(self.k + 1),
                self.word(self.k + 2),
            ) {
                (Ordinal::Nth(n), Some("to" | "from"), Some("last"), _) => {
                    self.k += 2;
                    Ordinal::FromEnd(n)
                }
                (Ordinal::Nth(n), Some("from"), Some("the"), Some("end")) => {
                    self.k += 3;
                    Ordinal::FromEnd(n)
                }
                (o, ..) => o,
            };
            self.ordinals.push(o);
            let sep = separator_before_ordinal(self.tokens, self.k);
            if sep == 0 {
                break;
            }
            self.k += sep;
        }
        // "the first two", "the last three cabinets": a run from one end of the row.
        let run = self
            .word(self.k)
            .and_then(count_word)
            .filter(|&n| (2..=12).contains(&n));
        if let (Some(n), [first]) = (run, self.ordinals.as_slice()) {
            let ordinals: Vec<Ordinal> = match first {
                Ordinal::Nth(1) => (1..=n).map(Ordinal::Nth).collect(),
                Ordinal::FromEnd(1) => (1..=n).rev().map(Ordinal::FromEnd).collect(),
                _ => return,
            };
            self.ordinals = ordinals;
            self.k += 1;
        }
    }

    /// Up to two adjectives before a noun ("a shiny red apple").
    fn adjectives(&mut self) {
        if self.det == Det::Bare {
            return;
        }
        let mut skipped = 0;
        while skipped < 2 && noun_at(self.tokens, self.k + skipped).is_none() {
            match self.word(self.k + skipped) {
                Some(w) if is_adjective(w) && self.word(self.k + skipped + 1).is_some() => {
                    skipped += 1
                }
                _ => break,
            }
        }
        if skipped > 0 && noun_at(self.tokens, self.k + skipped).is_some() {
            self.k += skipped;
        }
    }

    /// The head noun, or what stands for it ("one", "the latter", "the other", "them"),
    /// with whether it is plural; or why there is no phrase here.
    fn head(&mut self) -> Result<(Head, bool), Parse<NounPhrase>> {
        if let Some(m) = noun_at(self.tokens, self.k) {
            self.k += m.len;
            // "the kitchen sofa", "the living room's coffee table": a room names where
            // the furniture after it stands.
            if let Noun::Room(r) = m.noun {
                let possessive = usize::from(self.word(self.k) == Some("'s"));
                if let Some(next) = noun_at(self.tokens, self.k + possessive) {
                    if matches!(next.noun, Noun::Furniture(_)) {
                        self.room = Some(r);
                        self.k += possessive + next.len;
                        return Ok((Head::Noun(next.noun), next.plural));
                    }
                }
            }
            return Ok((Head::Noun(m.noun), m.plural));
        }
        let definite = self.det == Det::Definite;
        let word = self.word(self.k);
        let head = match word {
            _ if self.one_of && self.word(self.k - 1) == Some("them") => (Head::Them, false),
            Some("one" | "ones") if !self.ordinals.is_empty() || definite => {
                self.k += 1;
                (Head::Elided, word == Some("ones"))
            }
            _ if self.quantifier == Some(Quantifier::Remaining) && self.count.is_some() => {
                (Head::Elided, true)
            }
            Some("others" | "rest") if definite => {
                // "the others", "the rest": every piece of the kind not named yet.
                self.k += 1;
                self.quantifier = Some(Quantifier::Remaining);
                (Head::Elided, true)
            }
            Some("latter") if definite => {
                self.k += 1;
                (Head::Latter, false)
            }
            Some("former") if definite => {
                self.k += 1;
                (Head::Former, false)
            }
            // "on the other", "the other holds an apple": the other of the pieces named
            // last.
            next if self.other
                && next.is_none_or(|w| {
                    noun_at(self.tokens, self.k).is_none() && !is_adjective_before_noun(self, w)
                }) =>
            {
                (Head::Elided, false)
            }
            // "First, he walks...": an ordinal without article or noun is an adverb.
            _ if self.det == Det::Bare => return Err(Parse::Nothing),
            _ if !self.ordinals.is_empty() => (Head::Elided, self.ordinals.len() > 1),
            _ if self.quantifier.is_some() || self.vague.is_some() => return Err(Parse::Nothing),
            _ => {
                return Err(Parse::Unknown(
                    self.start..(self.k + 1).min(self.tokens.len()),
                ))
            }
        };
        Ok(head)
    }
}

/// Whether `w` at the reader's position is an adjective before a noun ("the other red
/// cabinet").
fn is_adjective_before_noun(reader: &PhraseReader<'_>, w: &str) -> bool {
    is_adjective(w) && noun_at(reader.tokens, reader.k + 1).is_some()
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
    // A list ends after its "and" (or "as well as", "plus"): in "an apple, a book and a
    // bag of chips, and a plate rests on the table" the plate starts a clause of its own.
    let mut closed = false;
    'items: loop {
        if closed {
            break;
        }
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
                // "a sofa and a cabinet, and the cabinet holds ...": a definite phrase
                // after indefinite ones starts a new clause.
                let new_clause = previous.det == Det::Indefinite && next.det == Det::Definite
                    // "in the dishwasher, a second one in ...": more things, not a place.
                    || (next.head == Head::Elided && next.det == Det::Indefinite);
                if anaphor || new_clause || next.kind_rank() != previous.kind_rank() {
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
                // Any joining word but a bare comma ends the list.
                closed = *sep != [","];
                continue 'items;
            }
        }
        break;
    }
    let k = settle(&mut items, closed, k);
    Parse::Found(PhraseList {
        items,
        both,
        span: i..k,
    })
}

/// Settles a list read to its end `k`, and returns where it ends now. Phrases joined by
/// bare commas with no "and" before the last ("the first cabinet holds a plate, the third
/// cabinet a cup", "a condiment bottle, an apple is in the third") are read one by one:
/// each clause around them still places them. An elided ordinal takes the noun of the
/// last phrase ("the sixth and the seventh kitchen cabinets").
fn settle(items: &mut Vec<NounPhrase>, closed: bool, k: usize) -> usize {
    let mut k = k;
    if items.len() > 1 && !closed {
        items.truncate(1);
        k = items[0].span.end;
    }
    if let Some(last) = items.last().cloned() {
        if let (Head::Noun(noun @ Noun::Furniture(_)), true) = (last.head, last.plural) {
            let elided = |i: &&mut NounPhrase| i.head == Head::Elided && !i.ordinals.is_empty();
            for item in items.iter_mut().filter(elided) {
                item.head = Head::Noun(noun);
                item.room = item.room.or(last.room);
            }
        }
    }
    k
}

fn matches_token(token: Option<&Token>, w: &str) -> bool {
    match token {
        Some(Token::Comma) => w == ",",
        Some(Token::Word(word)) => word == w,
        Some(Token::Break | Token::Dash) | None => false,
    }
}

#[cfg(test)]
#[path = "../phrase_tests.rs"]
mod tests;
