//! The question ("Question: If NAME has been trying to get a plate, which one ... ?
//! (a) ... (b) ...") read into a `bip-episode/1` question.
//!
//! Options are found by their markers `(a)`, `(b)`, ...; each option's first sentence is
//! a claim. A condition is the clause after a leading "If", "Assuming", "Suppose",
//! "Given that" or "Provided that", up to its comma. A claim with a belief verb
//! ("thinks", "believes", "assumes") is a belief: the first object phrase after the verb
//! is its class, the first furniture phrase after that its container (named by class:
//! see [`super::resolve`]), and it is negated when the clause holds an odd number of
//! negations ("there isn't", "is not", "does not think ... not"). A claim with a goal verb
//! ("has been trying to get", "is looking for", "wants") is a goal: the first object
//! phrase after the verb. Anything else is an error: the reader never falls back on the
//! option's position, the question type or the wording pattern.

use crate::json::{BeliefFile, OptionFile, PropositionFile, QuestionFile};

use crate::import::{ImportError, Part};

use super::apartment::Apartment;
use super::lexicon::Noun;
use super::phrase::{noun_phrase, Head, Parse};
use super::resolve::{self, Context, Unresolved};
use super::text::{sentences, span_text, tokenize, Token};
use super::verbs::{is_negation, verb, Verb};

/// Words that open a condition clause.
pub(super) const CONDITIONS: &[&str] = &[
    "if",
    "assuming",
    "assume",
    "suppose",
    "supposing",
    "given",
    "provided",
    "providing",
    "presuming",
    "presume",
    "say",
    "imagine",
    "considering",
    "granted",
];

/// Reads a question: `text` is what follows "Question:".
///
/// # Errors
/// [`ImportError::Unreadable`] naming the option or condition that is not a goal or a
/// belief, or the answer that is not an option letter.
pub(crate) fn read_question(
    text: &str,
    apartment: &Apartment,
    context: &Context<'_>,
    expected: Option<&str>,
    label: Option<&str>,
) -> Result<QuestionFile, ImportError> {
    let error = |phrase: &str, reason: &str| ImportError::Unreadable {
        part: Part::Question,
        sentence: text.trim().to_string(),
        phrase: phrase.to_string(),
        reason: reason.to_string(),
    };
    let markers = option_markers(text);
    if markers.len() < 2 {
        return Err(error(
            text.trim(),
            "a question needs options marked (a), (b), ...",
        ));
    }
    let stem = &text[..markers[0].0];
    let given = condition(stem, apartment, context)?;
    let asks_goal = asks_for_a_goal(stem);
    let mut options = Vec::with_capacity(markers.len());
    for (k, &(_, start)) in markers.iter().enumerate() {
        let end = markers.get(k + 1).map_or(text.len(), |m| m.0);
        let option = first_sentence(&text[start..end]);
        let claim = match claim(option, apartment, context) {
            // "What is Ana after? (a) a cupcake (b) a book": the stem says what kind.
            Err(_) if asks_goal && is_bare_object(option) => goal_claim(option, apartment)?,
            result => result?,
        };
        options.push(OptionFile {
            text: Some(option.to_string()),
            goal: claim.goal,
            belief: claim.belief,
            given: given.clone(),
        });
    }
    let expected = match expected {
        Some(letter) => {
            let letter = letter.trim().to_lowercase();
            let valid = letter.len() == 1
                && letter.as_bytes()[0] >= b'a'
                && usize::from(letter.as_bytes()[0] - b'a') < options.len();
            if !valid {
                return Err(ImportError::Field {
                    field: "answer",
                    reason: format!(
                        "\"{letter}\" is not one of the {} option letters",
                        options.len()
                    ),
                });
            }
            Some(letter)
        }
        None => None,
    };
    Ok(QuestionFile {
        id: Some("q1".into()),
        label: label.map(str::to_string),
        text: Some(text.trim().to_string()),
        at: None,
        options,
        expected,
    })
}

/// Positions of `(a)`, `(b)`, ... (either case) in order: (start of the marker, start of
/// the option).
fn option_markers(text: &str) -> Vec<(usize, usize)> {
    let mut markers = Vec::new();
    let mut from = 0;
    for (lower, upper) in ('a'..='z').zip('A'..='Z') {
        let find = |letter: char| text[from..].find(&format!("({letter})"));
        let at = match (find(lower), find(upper)) {
            (Some(l), Some(u)) => l.min(u),
            (Some(at), None) | (None, Some(at)) => at,
            (None, None) => break,
        };
        markers.push((from + at, from + at + 3));
        from += at + 3;
    }
    markers
}

/// The text up to and including its first sentence stop.
fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'?' | b'!') && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            return &text[..=i];
        }
    }
    text
}

/// The condition of a stem: the claim it states before asking — the clause after a
/// condition word ("If Mark has been trying to get a plate, which one ...", "Which is more
/// likely, given that Mark wants a plate?", "Say Hannah wants a cupcake."), up to its
/// comma or the end of its sentence, or a sentence stating a goal or belief outright
/// ("James has been trying to get a remote control. Given that, which ...?"). A clause
/// that states no goal or belief about an object is no condition.
fn condition(
    stem: &str,
    apartment: &Apartment,
    context: &Context<'_>,
) -> Result<Option<PropositionFile>, ImportError> {
    for sentence in sentences(stem) {
        let tokens = &sentence.tokens;
        let (start, end) = match tokens
            .iter()
            .position(|t| t.word().is_some_and(|w| CONDITIONS.contains(&w)))
        {
            Some(at) => {
                let mut start = at + 1;
                while tokens
                    .get(start)
                    .is_some_and(|t| t.is("that") || t.is("we"))
                {
                    start += 1;
                }
                let end = tokens[start..]
                    .iter()
                    .position(|t| t.word().is_none())
                    .map_or(tokens.len(), |p| p + start);
                (start, end)
            }
            // A premise, not a question.
            None if !sentence.text.ends_with('?') => (0, tokens.len()),
            None => continue,
        };
        if !states_a_claim(&tokens[start..end]) {
            continue;
        }
        let clause = span_text(tokens, start..end);
        let claim = claim(&clause, apartment, context)?;
        return Ok(Some(PropositionFile {
            goal: claim.goal,
            belief: claim.belief,
        }));
    }
    Ok(None)
}

/// Whether tokens state a goal or a belief about an object ("has been trying to get a
/// plate", "is after a plate", "thinks the plate is in the fridge").
fn states_a_claim(tokens: &[Token]) -> bool {
    let verb_at = tokens.iter().enumerate().position(|(k, t)| {
        matches!(t.word().and_then(verb), Some(Verb::Goal | Verb::Belief))
            || (t.is("after")
                && k > 0
                && tokens[k - 1]
                    .word()
                    .is_some_and(|w| matches!(w, "is" | "was" | "be" | "'s")))
    });
    verb_at.is_some_and(|v| {
        phrases_after(tokens, v + 1)
            .iter()
            .any(|(_, p)| p.is_object())
    })
}

/// Whether the stem asks what the agent wants ("What is Ana after?", "What is she
/// looking for?") without naming it.
fn asks_for_a_goal(stem: &str) -> bool {
    sentences(stem).iter().any(|s| {
        s.text.ends_with('?')
            && s.tokens
                .iter()
                .any(|t| t.is("after") || matches!(t.word().and_then(verb), Some(Verb::Goal)))
            && !states_a_claim(&s.tokens)
    })
}

/// Whether an option is an object phrase and nothing else ("a cupcake", "A salmon.").
fn is_bare_object(option: &str) -> bool {
    let tokens = tokenize(option);
    matches!(noun_phrase(&tokens, 0), Parse::Found(p) if p.is_object() && p.span.end == tokens.len())
}

/// The goal an option of a goal question names.
fn goal_claim(option: &str, apartment: &Apartment) -> Result<PropositionFile, ImportError> {
    let tokens = tokenize(option);
    let Parse::Found(phrase) = noun_phrase(&tokens, 0) else {
        return Err(ImportError::Unreadable {
            part: Part::Question,
            sentence: option.to_string(),
            phrase: option.to_string(),
            reason: "the option names no object".into(),
        });
    };
    let goal = class(&phrase, &tokens, apartment).map_err(|reason| ImportError::Unreadable {
        part: Part::Question,
        sentence: option.to_string(),
        phrase: option.to_string(),
        reason,
    })?;
    Ok(PropositionFile {
        goal: Some(goal),
        belief: None,
    })
}

/// A goal or belief claim from one clause.
fn claim(
    text: &str,
    apartment: &Apartment,
    context: &Context<'_>,
) -> Result<PropositionFile, ImportError> {
    let error = |phrase: &str, reason: &str| ImportError::Unreadable {
        part: Part::Question,
        sentence: text.to_string(),
        phrase: phrase.to_string(),
        reason: reason.to_string(),
    };
    let tokens = tokenize(text);
    let verb_at = |kind: Verb| {
        tokens
            .iter()
            .position(|t| t.word().and_then(verb) == Some(kind))
    };
    let negations = tokens
        .iter()
        .filter(|t| t.word().is_some_and(is_negation))
        .count();
    let things = phrases_after(&tokens, 0);
    let object_after = |v: usize| {
        things
            .iter()
            .find(|(at, p)| *at > v && p.is_object())
            .cloned()
    };
    if let Some(v) = verb_at(Verb::Belief) {
        let (_, object) =
            object_after(v).ok_or_else(|| error(text, "the belief names no object"))?;
        // "thinks the apple is in the fridge", "believes the stove holds no salmon".
        let place = things
            .iter()
            .find(|(k, p)| *k > v && !p.is_object() && !p.is_room())
            .ok_or_else(|| error(text, "the belief names no container or surface"))?;
        let phrase = span_text(&tokens, place.1.span.clone());
        let piece = match resolve::furniture(apartment, &place.1, context) {
            Ok(pieces) if pieces.len() == 1 => pieces[0],
            Ok(_) => return Err(error(&phrase, "a belief is about one place")),
            Err(Unresolved::NotFound(why)) => return Err(error(&phrase, &why)),
            Err(Unresolved::Ambiguous(c)) => {
                let ids = apartment.furniture_ids();
                return Err(ImportError::Ambiguous {
                    part: Part::Question,
                    sentence: text.to_string(),
                    phrase,
                    candidates: c.iter().map(|&p| ids[p].clone()).collect(),
                });
            }
        };
        return Ok(PropositionFile {
            goal: None,
            belief: Some(BeliefFile {
                object: class(&object, &tokens, apartment).map_err(|why| error(text, &why))?,
                container: apartment.furniture_ids()[piece].clone(),
                inside: negations % 2 == 0,
            }),
        });
    }
    let goal_verb = verb_at(Verb::Goal).or_else(|| tokens.iter().position(|t| t.is("after")));
    if let Some(v) = goal_verb {
        if negations > 0 {
            return Err(error(
                text,
                "a goal the agent does not have cannot be stated as a claim",
            ));
        }
        let (_, object) = object_after(v).ok_or_else(|| error(text, "the goal names no object"))?;
        return Ok(PropositionFile {
            goal: Some(class(&object, &tokens, apartment).map_err(|why| error(text, &why))?),
            belief: None,
        });
    }
    Err(error(
        text,
        "it states neither a goal (\"has been trying to get\") nor a belief (\"thinks\")",
    ))
}

/// Every noun phrase of a clause with its start, left to right.
fn phrases_after(tokens: &[Token], from: usize) -> Vec<(usize, super::phrase::NounPhrase)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < tokens.len() {
        match noun_phrase(tokens, i) {
            Parse::Found(p) => {
                i = p.span.end;
                out.push((p.span.start, p));
            }
            _ => i += 1,
        }
    }
    out
}

/// The class an object phrase names. The scene need not contain one: an agent may want,
/// or think about, something the apartment lacks.
fn class(
    phrase: &super::phrase::NounPhrase,
    tokens: &[Token],
    _apartment: &Apartment,
) -> Result<String, String> {
    match phrase.head {
        Head::Noun(Noun::Object(o)) => Ok(o.class.to_string()),
        _ => Err(format!(
            "\"{}\" names no object the reader knows",
            span_text(tokens, phrase.span.clone())
        )),
    }
}

#[cfg(test)]
#[path = "question_tests.rs"]
mod tests;
