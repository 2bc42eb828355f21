//! Which furniture or object a noun phrase names, given the apartment and the moment.
//!
//! Furniture: the candidates are the pieces of the phrase's class — a bare head noun
//! ("cabinet", "table") covers its whole family (kitchen and bathroom cabinets too). A
//! room in the phrase keeps its pieces; ordinals pick from a numbered row (the row in the
//! agent's room when several match; "from the right" counts back from the end);
//! "one of the Xs" is the first X (of the agent's room when it has one); "the other X"
//! leaves out the Xs mentioned before. Otherwise these
//! filters apply in turn, each only if it leaves a candidate, until one is left:
//!
//! - in a narrative or scene (*situated*): the agent's (or paragraph's) room; pieces not in
//!   a numbered row ("the cabinet" is not one of eight kitchen cabinets); the exact class;
//!   the piece mentioned last;
//! - in a question (*named*, where the furniture is named by its class): pieces not in a
//!   numbered row; the exact class; the agent's room; the piece mentioned last.
//!
//! A definite phrase still left with several candidates is ambiguous (an error); an
//! indefinite one ("a cabinet") takes the first in scene order.
//!
//! Objects: the instance nearest the agent — in its room first — then the first in scene
//! order.

use super::apartment::Apartment;
use super::lexicon::{FurnitureDef, Noun, ObjectDef};
use super::numbers::Ordinal;
use super::phrase::{Det, Head, NounPhrase, Quantifier, Relative};

/// Where references are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Scene and narrative: the agent's surroundings come first.
    Situated,
    /// Questions: furniture is named by its class.
    Named,
}

/// What the reader knows at the moment a phrase is read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The room the agent (or the scene paragraph) is in.
    pub(crate) room: Option<usize>,
    /// Pieces mentioned so far, oldest first.
    pub(crate) mentioned: &'a [usize],
    /// The furniture noun last used ("the sixth one" means a sixth of those).
    pub(crate) last_noun: Option<&'static FurnitureDef>,
    /// The places last listed ("the latter").
    pub(crate) last_list: &'a [usize],
    /// How references are read.
    pub(crate) reading: Reading,
}

/// Why a phrase names no single piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unresolved {
    /// Nothing matches; the reason says what is missing.
    NotFound(String),
    /// Several pieces match.
    Ambiguous(Vec<usize>),
}

/// The furniture a phrase names: one piece, or several for "the third and fourth cabinets".
pub(crate) fn furniture(
    apartment: &Apartment,
    phrase: &NounPhrase,
    context: &Context<'_>,
) -> Result<Vec<usize>, Unresolved> {
    let noun = match phrase.head {
        Head::Noun(Noun::Furniture(f)) => f,
        Head::Elided => context.last_noun.ok_or_else(|| {
            Unresolved::NotFound("no furniture was named before it to refer back to".into())
        })?,
        Head::Latter | Head::Former => {
            let pick = if phrase.head == Head::Latter {
                context.last_list.last()
            } else {
                context.last_list.first()
            };
            return pick
                .map(|&p| vec![p])
                .ok_or_else(|| Unresolved::NotFound("no places were listed before it".into()));
        }
        Head::Relative(relative) => return in_row_relative(apartment, relative, context),
        Head::Them if context.last_list.is_empty() => {
            return Err(Unresolved::NotFound(
                "no places were listed before it".into(),
            ))
        }
        Head::Them => return Ok(context.last_list.to_vec()),
        Head::Noun(_) => return Err(Unresolved::NotFound("it is not furniture".into())),
    };
    let candidates = candidates(apartment, phrase, noun, context)?;
    let in_view = if phrase.everywhere {
        None
    } else {
        context.room
    };
    let in_room = |p: usize| Some(apartment.furniture[p].room) == in_view;
    if !phrase.ordinals.is_empty() {
        return in_row(apartment, &candidates, phrase, context);
    }
    let mut candidates = candidates;
    if phrase.one_of {
        keep_if_any(&mut candidates, in_room);
        return Ok(vec![candidates[0]]);
    }
    if phrase.quantifier.is_some() || (phrase.plural && phrase.count.is_none()) {
        // "all cabinets", "the remaining cabinets", "the coffee tables": every piece meant,
        // in the room in view when it has some.
        keep_if_any(&mut candidates, in_room);
        if phrase.quantifier == Some(Quantifier::Remaining) {
            // "the others are empty" when every piece was named: no piece.
            candidates.retain(|p| !context.mentioned.contains(p));
        }
        return Ok(candidates);
    }
    if phrase.plural {
        return Err(Unresolved::Ambiguous(candidates));
    }
    one_piece(apartment, phrase, noun, candidates, context, in_room)
}

/// The pieces of the phrase's class (its family, for a bare head noun), in its room, not
/// named before when it says "other".
fn candidates(
    apartment: &Apartment,
    phrase: &NounPhrase,
    noun: &FurnitureDef,
    context: &Context<'_>,
) -> Result<Vec<usize>, Unresolved> {
    let generic = noun.class == noun.family;
    let mut candidates: Vec<usize> = (0..apartment.furniture.len())
        .filter(|&p| {
            let def = apartment.furniture[p].def;
            if generic {
                def.family == noun.family
            } else {
                def.class == noun.class
            }
        })
        .collect();
    if let Some(room) = phrase.room {
        candidates.retain(|&p| apartment.rooms[apartment.furniture[p].room] == room);
    }
    if phrase.other {
        candidates.retain(|p| !context.mentioned.contains(p));
    }
    if candidates.is_empty() {
        return Err(Unresolved::NotFound(match phrase.room {
            Some(room) => format!("the scene has no {} in the {}", noun.class, room.id),
            None => format!("the scene has no {}", noun.class),
        }));
    }
    Ok(candidates)
}

/// The one piece a singular phrase names, by the filters of the module docs.
fn one_piece(
    apartment: &Apartment,
    phrase: &NounPhrase,
    noun: &FurnitureDef,
    mut candidates: Vec<usize>,
    context: &Context<'_>,
    in_room: impl Fn(usize) -> bool,
) -> Result<Vec<usize>, Unresolved> {
    let unnumbered = |p: usize| !apartment.is_numbered(p);
    let exact = |p: usize| apartment.furniture[p].def.class == noun.class;
    match context.reading {
        Reading::Situated => {
            keep_if_any(&mut candidates, &in_room);
            keep_if_any(&mut candidates, unnumbered);
            keep_if_any(&mut candidates, exact);
        }
        Reading::Named => {
            keep_if_any(&mut candidates, unnumbered);
            keep_if_any(&mut candidates, exact);
            keep_if_any(&mut candidates, &in_room);
        }
    }
    if candidates.len() > 1 {
        if let Some(&last) = context
            .mentioned
            .iter()
            .rev()
            .find(|p| candidates.contains(p))
        {
            candidates = vec![last];
        }
    }
    match candidates.as_slice() {
        [one] => Ok(vec![*one]),
        [first, ..] if phrase.det == Det::Indefinite => Ok(vec![*first]),
        _ => Err(Unresolved::Ambiguous(candidates)),
    }
}

/// The pieces a relative position names: in the row of the piece mentioned last, `step`
/// places on (`count` of them), or its only neighbour ("the one next to it").
fn in_row_relative(
    apartment: &Apartment,
    relative: Relative,
    context: &Context<'_>,
) -> Result<Vec<usize>, Unresolved> {
    let Some(&anchor) = context.mentioned.last() else {
        return Err(Unresolved::NotFound(
            "no piece was named before it to count from".into(),
        ));
    };
    let piece = &apartment.furniture[anchor];
    if let Some(noun) = relative.noun {
        if noun.family != piece.def.family {
            return Err(Unresolved::NotFound(format!(
                "the piece named before it is not a {}",
                noun.class
            )));
        }
    }
    let at = |n: i64| {
        apartment
            .furniture
            .iter()
            .position(|q| q.room == piece.room && q.def == piece.def && i64::from(q.number) == n)
    };
    let number = i64::from(piece.number);
    if relative.step == 0 {
        let neighbours: Vec<usize> = [number - 1, number + 1]
            .into_iter()
            .filter_map(at)
            .collect();
        return match neighbours.as_slice() {
            [one] => Ok(vec![*one]),
            [] => Err(Unresolved::NotFound(
                "the piece named before it has no neighbour".into(),
            )),
            _ => Err(Unresolved::Ambiguous(neighbours)),
        };
    }
    (1..=i64::from(relative.count))
        .map(|k| {
            let n = number + k * i64::from(relative.step);
            at(n).ok_or_else(|| {
                Unresolved::NotFound(format!("the row of {} ends before it", piece.def.class))
            })
        })
        .collect()
}

/// Keeps the candidates that pass `test`, unless none does.
fn keep_if_any(candidates: &mut Vec<usize>, test: impl Fn(usize) -> bool) {
    if candidates.iter().any(|&p| test(p)) {
        candidates.retain(|&p| test(p));
    }
}

/// The pieces at the phrase's ordinals in the numbered row its candidates form.
fn in_row(
    apartment: &Apartment,
    candidates: &[usize],
    phrase: &NounPhrase,
    context: &Context<'_>,
) -> Result<Vec<usize>, Unresolved> {
    let mut rows: Vec<(usize, &str)> = Vec::new();
    for &p in candidates.iter().filter(|&&p| apartment.is_numbered(p)) {
        let key = (
            apartment.furniture[p].room,
            apartment.furniture[p].def.class,
        );
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    if rows.len() > 1 {
        rows.retain(|(room, _)| Some(*room) == context.room);
    }
    let (room, class) = match rows.as_slice() {
        [row] => *row,
        [] => {
            return Err(Unresolved::NotFound(
                "no numbered row of such pieces".into(),
            ))
        }
        _ => return Err(Unresolved::Ambiguous(candidates.to_vec())),
    };
    let len = apartment.series_len(room, class);
    phrase
        .ordinals
        .iter()
        .map(|ordinal| {
            let n = match (*ordinal, phrase.from_right) {
                (Ordinal::FromEnd(n), _) | (Ordinal::Nth(n), true) => (len + 1).saturating_sub(n),
                (Ordinal::Nth(n), false) => n,
            };
            apartment
                .furniture
                .iter()
                .position(|q| q.room == room && q.def.class == class && q.number == n)
                .ok_or_else(|| Unresolved::NotFound(format!("the row has {len} pieces, not {n}")))
        })
        .collect()
}

/// The object instance of `def` a situated phrase ("walks towards the wine glass", "takes
/// a book out of it") means: one at the piece in focus first, then one in the agent's
/// room, then the first in scene order.
pub(crate) fn object(
    apartment: &Apartment,
    def: &'static ObjectDef,
    room: Option<usize>,
    at: Option<usize>,
) -> Option<usize> {
    let of_class = || (0..apartment.objects.len()).filter(|&o| apartment.objects[o].def == def);
    of_class()
        .find(|&o| Some(apartment.objects[o].at) == at)
        .or_else(|| {
            of_class().find(|&o| Some(apartment.furniture[apartment.objects[o].at].room) == room)
        })
        .or_else(|| of_class().next())
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
