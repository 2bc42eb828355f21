//! The parts of a noun phrase around its noun: quantifiers ("all", "none of the", "the
//! remaining"), counts that give no number ("several"), positions relative to the piece
//! named last ("the next one", "the one to its right"), and what follows the noun ("from
//! the left", "in the bedroom", "in the apartment", "number 4").

use super::super::lexicon::{noun_at, FurnitureDef, Noun};
use super::super::numbers::{count_word, Ordinal};
use super::super::text::Token;
use super::{Head, NounPhrase, Quantifier, Relative};

/// Count words that give no number: the things are there, at least two of them.
pub(in super::super) const VAGUE_COUNTS: &[&[&str]] = &[
    &["several"],
    &["some"],
    &["many"],
    &["multiple"],
    &["various"],
    &["numerous"],
    &["a", "few"],
    &["few"],
    &["a", "number", "of"],
    &["a", "bunch", "of"],
    &["a", "handful", "of"],
    &["a", "collection", "of"],
    &["a", "set", "of"],
    &["a", "stack", "of"],
    &["a", "pile", "of"],
    &["a", "group", "of"],
    &["a", "selection", "of"],
    &["an", "assortment", "of"],
    &["a", "variety", "of"],
    &["lots", "of"],
    &["a", "lot", "of"],
    &["plenty", "of"],
];

/// The quantifier starting at `tokens[k]` and how many tokens it spans, when furniture
/// follows ("all of the cabinets", "each of the three cabinets", "no cabinet", "the
/// remaining ones"); "the other kitchen table" is one piece, not a quantifier.
pub(super) fn quantifier_at(tokens: &[Token], k: usize) -> Option<(Quantifier, usize)> {
    let word = |j: usize| tokens.get(k + j).and_then(Token::word);
    let of_the = |j: usize| {
        let mut n = usize::from(word(j) == Some("of"));
        if matches!(word(j + n), Some("the" | "these" | "those")) {
            n += 1;
        }
        n
    };
    let (q, n) = match word(0)? {
        "all" | "both" => (Quantifier::All, 1 + of_the(1)),
        "every" | "each" => {
            // "every one of the cabinets", "each of the three cabinets".
            let one = usize::from(word(1) == Some("one") && word(2) == Some("of"));
            (Quantifier::All, 1 + one + of_the(1 + one))
        }
        "none" | "neither" if word(1) == Some("of") => (Quantifier::NoneOf, 1 + of_the(1)),
        "no" => (Quantifier::NoneOf, 1),
        "the" if matches!(word(1), Some("remaining" | "other")) => (Quantifier::Remaining, 2),
        "the" if word(1) == Some("rest") && word(2) == Some("of") => (
            Quantifier::Remaining,
            3 + usize::from(word(3) == Some("the")),
        ),
        _ => return None,
    };
    let counted = usize::from(word(n).and_then(count_word).is_some() && word(n) != Some("a"));
    let noun = noun_at(tokens, k + n + counted);
    let furniture = noun.is_some_and(|m| matches!(m.noun, Noun::Furniture(_)));
    let singular_other = word(1) == Some("other") && noun.is_some_and(|m| !m.plural);
    // "the remaining ones", "the remaining two": of the kind named last.
    let ones = q == Quantifier::Remaining
        && (word(n + counted) == Some("ones") || (counted == 1 && noun.is_none()));
    ((furniture || ones) && !singular_other).then_some((q, n))
}

/// The vague count starting at `tokens[k]`, before a plural noun: its word and length.
pub(super) fn vague_at(tokens: &[Token], k: usize) -> Option<(&'static str, usize)> {
    let words = VAGUE_COUNTS.iter().find(|words| {
        words
            .iter()
            .enumerate()
            .all(|(j, w)| tokens.get(k + j).is_some_and(|t| t.is(w)))
    })?;
    let n = words.len();
    if !noun_at(tokens, k + n).is_some_and(|m| m.plural) {
        return None;
    }
    let head = words.iter().find(|w| !matches!(**w, "a" | "an" | "of"));
    Some((head.copied().unwrap_or(words[0]), n))
}

/// A position relative to the piece named last, read after "the": "next one", "next
/// two cabinets", "next" ending a clause, "following one", "previous one", "one to its
/// right", "cabinet to the left of it", "one after that", "one next to it". Returns it
/// and where it ends.
pub(super) fn relative_at(tokens: &[Token], k: usize) -> Option<(Relative, usize)> {
    let word = |j: usize| tokens.get(j).and_then(Token::word);
    let furniture = |j: usize| {
        noun_at(tokens, j).and_then(|m| match m.noun {
            Noun::Furniture(f) => Some((f, m.len)),
            _ => None,
        })
    };
    let step = match word(k)? {
        "next" | "following" | "subsequent" => Some(1),
        "previous" | "preceding" => Some(-1),
        _ => None,
    };
    if let Some(step) = step {
        // "the next (two) (ones | cabinets)"
        let mut j = k + 1;
        if word(j).is_none() {
            // "... then the next.", "before moving on to the next"
            return Some((relative(step, None, None), j));
        }
        let count = word(j).and_then(count_word).filter(|_| {
            matches!(word(j + 1), Some("ones"))
                || furniture(j + 1).is_some()
                || tokens.get(j + 1).is_none_or(|t| t.word().is_none())
        });
        if let (Some(n), None) = (count, word(j + 1)) {
            // "the next two."
            return Some((relative(step, Some(n), None), j + 1));
        }
        if count.is_some() {
            j += 1;
        }
        if let Some((f, len)) = furniture(j) {
            return Some((relative(step, count, Some(f)), j + len));
        }
        if matches!(word(j), Some("one" | "ones")) {
            return Some((relative(step, count, None), j + 1));
        }
        return None;
    }
    // "the (one | cabinet) (immediately) to its right", "... after it", "... next to it"
    let (noun, mut j) = match (word(k), furniture(k)) {
        (Some("one"), _) => (None, k + 1),
        (_, Some((f, len))) => (Some(f), k + len),
        _ => return None,
    };
    if matches!(word(j), Some("immediately" | "directly" | "just" | "right"))
        && matches!(
            word(j + 1),
            Some("to" | "after" | "before" | "next" | "beside")
        )
    {
        j += 1;
    }
    let pronoun = |j: usize| matches!(word(j), Some("it" | "that" | "this" | "them" | "those"));
    let side = |w: Option<&str>| match w {
        Some("right") => Some(1),
        Some("left") => Some(-1),
        _ => None,
    };
    if word(j) == Some("to") && matches!(word(j + 1), Some("its" | "their")) {
        let step = side(word(j + 2))?;
        return Some((relative(step, None, noun), j + 3));
    }
    if word(j) == Some("to")
        && word(j + 1) == Some("the")
        && word(j + 3) == Some("of")
        && pronoun(j + 4)
    {
        let step = side(word(j + 2))?;
        return Some((relative(step, None, noun), j + 5));
    }
    // "the one after that"; but "the stove after that" is a time, not a place.
    let one = noun.is_none();
    let (step, len) = match (word(j), word(j + 1)) {
        (Some("after"), _) if one && pronoun(j + 1) => (1, 2),
        (Some("before"), _) if one && pronoun(j + 1) => (-1, 2),
        (Some("next" | "adjacent"), Some("to")) if pronoun(j + 2) => (0, 3),
        (Some("beside"), _) if pronoun(j + 1) => (0, 2),
        _ => return None,
    };
    Some((relative(step, None, noun), j + len))
}

/// "cabinet number 4", "cabinet no. 4", "cabinet one", "cabinets 3 and 4", "kitchen
/// cabinets 1, 3 and 6": pieces named by their number in the row. Returns where the
/// phrase ends.
fn numbered(tokens: &[Token], start: usize, phrase: &mut NounPhrase) -> usize {
    let word = |j: usize| tokens.get(j).and_then(Token::word);
    let said = matches!(word(start), Some("number" | "no" | "numbers"));
    let k = start + usize::from(said);
    // Digits always number a piece ("desk 2"); words only in a row of cabinets ("cabinet
    // one holds ..."), since "the fridge one finds" is no number.
    let cabinets = matches!(phrase.head, Head::Noun(Noun::Furniture(f)) if f.family == "cabinet");
    let number = |j: usize| {
        let w = word(j)?;
        let digits = w.chars().all(|c| c.is_ascii_digit());
        count_word(w).filter(|&n| n > 0 && (digits || said || cabinets) && w != "a")
    };
    let mut numbers = Vec::new();
    let mut j = k;
    while let Some(n) = number(j) {
        // "cabinet two plates" is no number: a noun after it makes it a count.
        if noun_at(tokens, j + 1).is_some() {
            break;
        }
        numbers.push(n);
        j += 1;
        let comma = tokens.get(j) == Some(&Token::Comma);
        let and = |at: usize| word(at) == Some("and");
        match (comma, and(j), and(j + 1)) {
            (true, _, true) if number(j + 2).is_some() => j += 2,
            (true, _, _) | (false, true, _) if number(j + 1).is_some() => j += 1,
            _ => break,
        }
        if !phrase.plural {
            break;
        }
    }
    if numbers.is_empty() {
        return start;
    }
    phrase.ordinals = numbers.into_iter().map(Ordinal::Nth).collect();
    phrase.det = super::Det::Definite;
    j
}

fn relative(step: i32, count: Option<u32>, noun: Option<&'static FurnitureDef>) -> Relative {
    Relative {
        step,
        count: count.unwrap_or(1).max(1),
        noun,
    }
}

/// Reads what follows the noun: "from the left", "(from left to right)", "counting from
/// the right", "number 4"; and after furniture, "in the bedroom" or "in the apartment".
/// Returns where the phrase ends.
pub(super) fn post_modifiers(tokens: &[Token], mut k: usize, phrase: &mut NounPhrase) -> usize {
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
    if is_furniture && phrase.ordinals.is_empty() && phrase.det != super::Det::Indefinite {
        // "the cabinet fourth from the left"
        let ordinal = word(k).and_then(super::super::numbers::ordinal_word);
        if let (Some(o), Some("from")) = (ordinal, word(k + 1)) {
            phrase.ordinals.push(o);
            return post_modifiers(tokens, k + 1, phrase);
        }
        k = numbered(tokens, k, phrase);
    }
    if is_furniture && phrase.room.is_none() && word(k) == Some("there") {
        phrase.there = true;
        return k + 1;
    }
    if is_furniture && phrase.room.is_none() && word(k) == Some("in") {
        let at = if word(k + 1) == Some("the") {
            k + 2
        } else {
            k + 1
        };
        if matches!(word(at), Some("apartment" | "house" | "home" | "flat")) {
            phrase.everywhere = true;
            return at + 1;
        }
        if let Some(m) = noun_at(tokens, at) {
            if let Noun::Room(r) = m.noun {
                phrase.room = Some(r);
                return at + m.len;
            }
        }
    }
    k
}
