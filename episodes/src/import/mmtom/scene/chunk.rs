//! A scene sentence cut into chunks — lists of rooms, of furniture ("places"), of objects
//! ("things"), unknown noun phrases, and the words between them — and the chunks cut into
//! clauses.
//!
//! Lists are read by the phrase grammar, so "a fridge, a stove and two cabinets" is one
//! chunk; an "and" or "while" that no list took joins clauses ("the fridge holds an apple
//! and the stove a salmon"), and so do semicolons, colons and dashes. A comma alone does
//! not: "Inside the fridge, there are two apples" is one clause.

use std::ops::Range;

use super::super::lexicon::{noun_at, plural, ObjectDef};
use super::super::numbers::{count_word, ordinal_word};
use super::super::phrase::{noun_phrase, phrase_list, NounPhrase, Parse, PhraseList, Quantifier};
use super::super::text::{Sentence, Token};

/// Words that deny the things after them ("no apples", "without any plates").
pub(in super::super) const NEGATIONS: &[&str] = &["no", "any", "without", "nor", "not"];

/// Words that start a new clause when no list took the "and" before them.
pub(in super::super) const CLAUSE_WORDS: &[&str] = &[
    "while",
    "whereas",
    "although",
    "though",
    "however",
    "meanwhile",
    "additionally",
    "furthermore",
    "moreover",
    "whilst",
];

/// Words after a quantified list of places that take pieces out of it ("all cabinets
/// but the third", "every cabinet except the first").
pub(super) const EXCEPTIONS: &[&str] = &[
    "but",
    "except",
    "apart",
    "other",
    "save",
    "excluding",
    "besides",
    "aside",
    "exception",
];

/// Nouns that name no room, furniture or object, and may follow an article in a scene
/// without being a thing the reader must know ("four rooms", "a cosy space", "the top
/// shelf of the fridge").
pub(in super::super) const GENERIC_NOUNS: &[&str] = &[
    "apartment",
    "house",
    "home",
    "flat",
    "residence",
    "dwelling",
    "household",
    "unit",
    "suite",
    "room",
    "rooms",
    "area",
    "areas",
    "space",
    "spaces",
    "spot",
    "place",
    "places",
    "corner",
    "part",
    "parts",
    "section",
    "sections",
    "left",
    "right",
    "middle",
    "center",
    "centre",
    "top",
    "bottom",
    "back",
    "front",
    "side",
    "interior",
    "inside",
    "following",
    "other",
    "rest",
    "same",
    "furniture",
    "furnishings",
    "appliance",
    "appliances",
    "item",
    "items",
    "thing",
    "things",
    "object",
    "objects",
    "stuff",
    "belongings",
    "contents",
    "essentials",
    "storage",
    "surface",
    "surfaces",
    "shelf",
    "shelves",
    "drawer",
    "drawers",
    "compartment",
    "compartments",
    "door",
    "view",
    "touch",
    "layout",
    "setup",
    "arrangement",
    "scene",
    "story",
    "description",
    "moment",
    "time",
    "way",
    "lot",
    "number",
    "total",
    "couple",
    "pair",
    "bit",
    "variety",
    "selection",
    "assortment",
    "collection",
    "range",
    "mix",
    "set",
    "array",
    "group",
    "row",
    "line",
    "bunch",
    "handful",
    "pile",
    "stack",
    "few",
    "nothing",
    "anything",
    "everything",
    "something",
    "one",
    "ones",
    "kind",
    "sort",
    "type",
    "piece",
    "pieces",
    "addition",
    "note",
];

/// One chunk of a sentence.
#[derive(Debug, Clone)]
pub(super) enum Chunk {
    /// A list of rooms.
    Rooms(PhraseList),
    /// A list of furniture.
    Places(PhraseList),
    /// A list of objects.
    Things(Things),
    /// Objects said not to be somewhere ("there is no apple in the fridge").
    Denied(PhraseList),
    /// A phrase whose noun the lexicon does not know ("a toaster"): its tokens.
    Unknown(Range<usize>),
    /// A word between phrases, lower-case.
    Word(String),
    /// A comma.
    Comma,
    /// A semicolon or colon.
    Break,
    /// A dash.
    Dash,
}

/// Objects to place, as written.
#[derive(Debug, Clone)]
pub(in super::super) struct Things {
    /// Each class with how many, `None` where the text gives no number ("several
    /// apples", "apples"), and the phrase that says so.
    pub(super) items: Vec<(&'static ObjectDef, Option<u32>, Range<usize>)>,
    /// The tokens they span.
    pub(super) span: Range<usize>,
    /// Whether they stand for more of the class named last ("another in the stove").
    pub(super) elided: bool,
    /// Whether they only announce elided things after them ("Wine glasses: two in the
    /// first cabinet, one on the table"), and are no objects of their own.
    pub(super) header: bool,
}

impl Chunk {
    /// Whether this is the word `w`.
    pub(super) fn is(&self, w: &str) -> bool {
        matches!(self, Chunk::Word(v) if v == w)
    }

    /// Whether this is a word of `words`.
    pub(super) fn is_any(&self, words: &[&str]) -> bool {
        matches!(self, Chunk::Word(v) if words.contains(&v.as_str()))
    }
}

/// The sentence cut into clauses of chunks. `last_thing` is the class named last before
/// the sentence, for "another" without a noun; an unknown noun phrase that the scene
/// cannot do without is returned as its span.
pub(super) fn clauses(
    sentence: &Sentence,
    last_thing: &mut Option<&'static ObjectDef>,
) -> Vec<Vec<Chunk>> {
    let mut chunks = chunks(sentence, last_thing);
    let aside = set_apart(&mut chunks);
    let mut out: Vec<Vec<Chunk>> = vec![Vec::new()];
    for (k, chunk) in chunks.iter().enumerate() {
        if starts_clause(&chunks, k) && out.last().is_some_and(|c| !c.is_empty()) {
            out.push(Vec::new());
        }
        if let Some(clause) = out.last_mut() {
            clause.push(chunk.clone());
        }
    }
    if !aside.is_empty() {
        out.push(aside);
    }
    out.retain(|c| !c.is_empty());
    out
}

/// Takes the phrase between the first two dashes out of `chunks` and returns it, so that
/// the clause around it reads as one; a single dash is a clause break.
fn set_apart(chunks: &mut Vec<Chunk>) -> Vec<Chunk> {
    let dashes: Vec<usize> = (0..chunks.len())
        .filter(|&k| matches!(chunks[k], Chunk::Dash))
        .collect();
    match dashes.as_slice() {
        [a, b, ..] => {
            let aside: Vec<Chunk> = chunks.drain(*a..=*b).collect();
            aside[1..aside.len() - 1].to_vec()
        }
        [a] => {
            chunks[*a] = Chunk::Break;
            Vec::new()
        }
        [] => Vec::new(),
    }
}

/// Whether chunk `k` begins a new clause.
fn starts_clause(chunks: &[Chunk], k: usize) -> bool {
    let chunk = &chunks[k];
    if matches!(chunk, Chunk::Break) {
        return true;
    }
    if chunk.is_any(CLAUSE_WORDS) {
        return true;
    }
    if chunk.is("but") {
        // "all cabinets but the third" takes pieces out; otherwise "but" joins clauses.
        let quantified = k.checked_sub(1).and_then(|j| chunks.get(j)).is_some_and(
            |c| matches!(c, Chunk::Places(l) if l.items.iter().any(|p| p.quantifier.is_some())),
        );
        return !quantified;
    }
    // An "and" no list took: "the fridge holds an apple and the stove a salmon"; but
    // "in the fridge and on the table" goes on naming places for the same things.
    chunk.is("and") && k > 0 && !names_more_places(chunks, k + 1)
}

/// Whether the chunks from `k` go on naming places for things named before: a
/// preposition and a place with no things of their own after them ("in the fridge and
/// on the table"), unlike "and on the sofa are two glasses".
fn names_more_places(chunks: &[Chunk], k: usize) -> bool {
    if !chunks
        .get(k)
        .is_some_and(|c| c.is_any(super::clause::PLACE_PREPOSITIONS))
    {
        return false;
    }
    !chunks[k..]
        .iter()
        .take_while(|c| !matches!(c, Chunk::Break) && !c.is("and"))
        .any(|c| matches!(c, Chunk::Things(_) | Chunk::Denied(_)))
}

/// The sentence cut into chunks.
fn chunks(sentence: &Sentence, last_thing: &mut Option<&'static ObjectDef>) -> Vec<Chunk> {
    let tokens = &sentence.tokens;
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Comma => {
                out.push(Chunk::Comma);
                i += 1;
                continue;
            }
            Token::Break => {
                out.push(Chunk::Break);
                i += 1;
                continue;
            }
            Token::Dash => {
                out.push(Chunk::Dash);
                i += 1;
                continue;
            }
            Token::Word(_) => {}
        }
        if let Some((count, n)) = last_thing.and_then(|last| elided_at(tokens, i, last)) {
            // "a plate sits in the dishwasher and another in the cabinet", "two in the
            // first cabinet, one on the table": more of the class named last.
            if let Some(def) = *last_thing {
                out.push(Chunk::Things(Things {
                    items: vec![(def, Some(count), i..i + n)],
                    span: i..i + n,
                    elided: true,
                    header: false,
                }));
            }
            i += n;
            continue;
        }
        match phrase_list(tokens, i) {
            Parse::Found(list) => {
                i = list.span.end;
                out.push(classify(tokens, list, last_thing));
            }
            Parse::Unknown(span) => {
                i = span.end;
                out.push(unknown(tokens, span));
            }
            Parse::Nothing => {
                out.push(Chunk::Word(
                    tokens[i].word().unwrap_or_default().to_string(),
                ));
                i += 1;
            }
        }
    }
    let mut out = split_subjects(out);
    mark_headers(&mut out);
    // "Chips? A bag in the microwave, ...": a sentence naming only a kind of thing
    // announces it.
    if let [Chunk::Things(t)] = out.as_mut_slice() {
        t.header = true;
    }
    out
}

/// A phrase whose noun the lexicon does not know: a word to pass over when its noun is
/// generic ("four rooms", "the only furniture") or a part of the furniture after it ("the
/// cushions of the sofa", "the exception of the sixth"), else [`Chunk::Unknown`].
fn unknown(tokens: &[Token], span: Range<usize>) -> Chunk {
    let words: Vec<&str> = span
        .clone()
        .skip(1)
        .filter_map(|k| tokens.get(k).and_then(Token::word))
        .collect();
    let after: Vec<&str> = tokens[span.end..]
        .iter()
        .take(2)
        .filter_map(Token::word)
        .collect();
    let generic = words
        .iter()
        .chain(&after)
        .any(|w| GENERIC_NOUNS.contains(w));
    let part_of = tokens.get(span.end).is_some_and(|t| t.is("of"))
        && matches!(noun_phrase(tokens, span.end + 1), Parse::Found(p) if !p.is_object() && !p.is_room());
    if generic || part_of {
        Chunk::Word(words.last().copied().unwrap_or_default().to_string())
    } else {
        Chunk::Unknown(span)
    }
}

/// Verbs that make the last place of a list after a preposition the subject of a new
/// clause: "a glass sits on the coffee table and the sofa is bare".
const SUBJECT_VERBS: &[&str] = &[
    "is", "are", "was", "were", "holds", "has", "contains", "stores", "houses", "remains", "stays",
    "stands", "looks", "sits", "lies", "keeps",
];

/// Splits the last place off a list that follows a preposition when a verb comes right
/// after it.
fn split_subjects(chunks: Vec<Chunk>) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for (k, chunk) in chunks.iter().enumerate() {
        let after_preposition = out
            .last()
            .is_some_and(|c| c.is_any(super::clause::PLACE_PREPOSITIONS));
        let verb_next = chunks.get(k + 1).is_some_and(|c| c.is_any(SUBJECT_VERBS));
        match chunk {
            Chunk::Places(list) if list.items.len() > 1 && after_preposition && verb_next => {
                let mut head = list.clone();
                let last = head.items.pop().expect("two or more items");
                head.span = head.span.start..head.items[head.items.len() - 1].span.end;
                let tail = PhraseList {
                    span: last.span.clone(),
                    items: vec![last],
                    both: false,
                };
                out.push(Chunk::Places(head));
                out.push(Chunk::Word("and".into()));
                out.push(Chunk::Places(tail));
            }
            _ => out.push(chunk.clone()),
        }
    }
    out
}

/// Marks things that only announce the class of elided ones after them ("Wine glasses:
/// two in the first cabinet, one on the table"): they are not objects of their own.
fn mark_headers(chunks: &mut [Chunk]) {
    let elided: Vec<&'static str> = chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::Things(t) if t.elided => t.items.first().map(|i| i.0.class),
            _ => None,
        })
        .collect();
    for chunk in chunks.iter_mut() {
        if let Chunk::Things(t) = chunk {
            let uncounted = t.items.iter().all(|(_, n, _)| n.is_none());
            if !t.elided && uncounted && t.items.iter().all(|i| elided.contains(&i.0.class)) {
                t.header = true;
            }
        }
    }
}

/// More things of the class named last, with no noun of their own: "another", "another
/// one", "one more", "two more", "a second one", "a third", "a bag" (of chips), "two
/// more bags", and a bare count before a preposition or verb ("one in the microwave",
/// "two are in the fridge"). Returns how many things and how many tokens.
fn elided_at(tokens: &[Token], i: usize, last: &'static ObjectDef) -> Option<(u32, usize)> {
    let word = |k: usize| tokens.get(i + k).and_then(Token::word);
    let ordinal = |w: Option<&str>| w.and_then(ordinal_word).is_some();
    let (count, mut n) = match (word(0)?, word(1)) {
        ("another", _) => (1, 1),
        ("a" | "an", w) if ordinal(w) => (1, 2),
        ("a" | "an", Some(w)) if is_measure_of(w, last) => (1, 1),
        (w, _) if w != "a" && w != "an" => (count_word(w)?, 1),
        _ => return None,
    };
    if word(n) == Some("more") {
        n += 1;
    }
    if word(n).is_some_and(|w| is_measure_of(w, last) || (w == "one" && count == 1)) {
        n += 1;
    }
    if word(n) == Some("more") {
        n += 1;
    }
    // "(two of them)": of the class named last; but "one of them has an apple" names a
    // piece of furniture.
    if word(n) == Some("of") && word(n + 1) == Some("them") && word(n + 2).is_none() {
        return Some((count, n + 2));
    }
    // A noun after it makes it a phrase of its own ("two apples", "one of the desks").
    let next = word(n);
    if noun_at(tokens, i + n).is_some() || matches!(next, Some("of" | "ones")) {
        return None;
    }
    // A bare "one" is a pronoun unless a place or "too" follows ("one finds two cupcakes"
    // is not one more of anything).
    let bare_one = word(0) == Some("one") && n == 1;
    let placed = next.is_none_or(|w| {
        super::clause::PLACE_PREPOSITIONS.contains(&w) || matches!(w, "too" | "as" | "also")
    });
    if bare_one && !placed {
        return None;
    }
    Some((count, n))
}

/// Whether `word` is the container a name of `def` is measured in ("bag" for "bag of
/// chips", "bottles" for "bottle of wine").
fn is_measure_of(word: &str, def: &ObjectDef) -> bool {
    def.names.iter().any(|name| {
        name.split_once(" of ")
            .is_some_and(|(measure, _)| word == measure || word == plural(measure))
    })
}

/// What kind of chunk a list is.
fn classify(
    tokens: &[Token],
    list: PhraseList,
    last_thing: &mut Option<&'static ObjectDef>,
) -> Chunk {
    let first = &list.items[0];
    if first.is_room() {
        return Chunk::Rooms(list);
    }
    if !first.is_object() {
        return Chunk::Places(list);
    }
    let negated = list
        .span
        .start
        .checked_sub(1)
        .and_then(|k| tokens[k].word())
        .is_some_and(|w| NEGATIONS.contains(&w))
        || first.quantifier == Some(Quantifier::NoneOf);
    if negated {
        return Chunk::Denied(list);
    }
    let items: Vec<_> = list
        .items
        .iter()
        .filter_map(|p| object_count(p).map(|(def, n)| (def, n, p.span.clone())))
        .collect();
    if let Some(&(def, _, _)) = items.last() {
        *last_thing = Some(def);
    }
    Chunk::Things(Things {
        items,
        span: list.span,
        elided: false,
        header: false,
    })
}

/// The class of an object phrase and how many it says: `None` when no number is given
/// for a plural ("apples", "several apples").
fn object_count(p: &NounPhrase) -> Option<(&'static ObjectDef, Option<u32>)> {
    use super::super::lexicon::Noun;
    use super::super::phrase::Head;
    let Head::Noun(Noun::Object(def)) = p.head else {
        return None;
    };
    let count = match (p.count, p.plural) {
        (Some(n), _) => Some(n),
        (None, false) => Some(1),
        (None, true) => None,
    };
    Some((def, count))
}
