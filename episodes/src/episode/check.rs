//! The checks behind [`Episode::new`](super::Episode::new), over typed parts; and the
//! checks the file reader shares with it, so that both say the same of the same problem.

use std::collections::HashMap;

use crate::action::Action;
use crate::error::EpisodeError;
use crate::ids::{ClassId, FurnitureId, RoomId};
use crate::layout::Place;
use crate::question::{option_letter, Expected, Proposition, Question};
use crate::state::State;
use crate::world::{FurnitureKind, World};

use super::{Agent, EpisodeParts};

/// Checks every part of an episode; see [`Episode::new`](super::Episode::new).
pub(super) fn parts(p: &EpisodeParts) -> Result<(), EpisodeError> {
    world(&p.world)?;
    agent(&p.world, &p.agent)?;
    replay(&p.world, p.agent.start, &p.actions)?;
    let mut seen = HashMap::new();
    for (k, starts) in p.alternatives.iter().enumerate() {
        let mut reading = p.world.clone();
        for (object, &start) in reading.objects.iter_mut().zip(starts) {
            object.start = start;
        }
        distinct_reading(&mut seen, &p.world, &reading, k)?;
        alternative(&p.world, &p.agent, starts, &p.actions, k)?;
    }
    questions(&p.world, p.actions.len(), &p.questions)
}

/// Records `id` as used by `field`, or says that it is empty or already used.
pub(crate) fn claim_id<'a>(
    seen: &mut HashMap<&'a str, String>,
    id: &'a str,
    field: String,
) -> Result<(), EpisodeError> {
    if id.is_empty() {
        return Err(EpisodeError::invalid(
            field,
            id,
            "is empty; ids must be non-empty",
        ));
    }
    if let Some(other) = seen.get(id) {
        return Err(EpisodeError::DuplicateId {
            field,
            value: crate::limits::quoted(id),
            other: other.clone(),
        });
    }
    seen.insert(id, field);
    Ok(())
}

/// Fields of an episode file written for people, which may hold line breaks; every other
/// string names something.
const FREE_TEXT: [&str; 3] = ["description", "text", "label"];

/// Refuses a name (an id, class, agent, or any string but [`FREE_TEXT`], object keys
/// included) holding a control character: echoed into a report, an error or a
/// VirtualHome program, a line break or an escape would forge lines there.
pub(crate) fn plain_names(value: &serde_json::Value, field: &str) -> Result<(), EpisodeError> {
    let refuse = |field: String, name: &str| {
        EpisodeError::invalid(field, name, "holds a control character; names must not")
    };
    match value {
        serde_json::Value::String(s) if s.chars().any(char::is_control) => {
            Err(refuse(field.to_string(), s))
        }
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| plain_names(v, &format!("{field}[{i}]"))),
        serde_json::Value::Object(map) => map.iter().try_for_each(|(key, v)| {
            if key.chars().any(char::is_control) {
                return Err(refuse(field.to_string(), key));
            }
            match (FREE_TEXT.contains(&key.as_str()), field.is_empty()) {
                (true, _) => Ok(()),
                (false, true) => plain_names(v, key),
                (false, false) => plain_names(v, &format!("{field}.{key}")),
            }
        }),
        _ => Ok(()),
    }
}

/// The error of a surface said to start open.
pub(crate) fn open_surface(field: String, name: &str) -> EpisodeError {
    EpisodeError::invalid(field, name, "is a surface; only containers open and close")
}

/// Applies action `index` to `state`, or names it and why it cannot happen.
pub(crate) fn apply(
    state: &mut State,
    world: &World,
    action: &Action,
    index: usize,
) -> Result<(), EpisodeError> {
    state
        .apply(world, action)
        .map_err(|why| EpisodeError::ImpossibleAction {
            index,
            action: action.describe(world),
            reason: why.describe(world),
            why,
        })
}

/// Checks what every question needs, whatever it asks, before its options: an id no
/// other question of the episode has (`ids` holds those seen, with their fields), `at`
/// within the `steps` taken (actions or events), and at least two options.
pub(crate) fn question_frame<'q>(
    ids: &mut HashMap<&'q str, String>,
    field: &str,
    id: &'q str,
    at: usize,
    steps: usize,
    options: usize,
) -> Result<(), EpisodeError> {
    if let Some(other) = ids.insert(id, field.to_string()) {
        return Err(EpisodeError::DuplicateId {
            field: format!("{field}.id"),
            value: id.to_string(),
            other,
        });
    }
    question_shape(field, at, steps, options)
}

/// Checks that question `field` is asked within `action_count` actions and has two or
/// more of its `options` options.
pub(crate) fn question_shape(
    field: &str,
    at: usize,
    action_count: usize,
    options: usize,
) -> Result<(), EpisodeError> {
    if at > action_count {
        return Err(EpisodeError::invalid(
            format!("{field}.at"),
            at.to_string(),
            format!("is after the end of the episode ({action_count} actions)"),
        ));
    }
    if options < 2 {
        return Err(EpisodeError::invalid(
            format!("{field}.options"),
            options.to_string(),
            "options given; a question needs at least two",
        ));
    }
    Ok(())
}

/// Checks that an expected option is one of the question's `options`.
pub(crate) fn expected_option(
    field: &str,
    expected: Option<Expected>,
    options: usize,
) -> Result<(), EpisodeError> {
    if let Some(Expected::Option(k)) = expected {
        if k >= options {
            return Err(EpisodeError::invalid(
                format!("{field}.expected"),
                option_letter(k),
                format!("is not one of the {options} options"),
            ));
        }
    }
    Ok(())
}

/// Checks that `index` is one of the `len` things of `kind` the world has.
pub(crate) fn within(
    index: usize,
    len: usize,
    kind: &'static str,
    field: impl FnOnce() -> String,
) -> Result<(), EpisodeError> {
    if index < len {
        Ok(())
    } else {
        Err(EpisodeError::ForeignId {
            field: field(),
            kind,
            index,
        })
    }
}

pub(crate) fn room(
    w: &World,
    r: RoomId,
    field: impl FnOnce() -> String,
) -> Result<(), EpisodeError> {
    within(r.index(), w.rooms.len(), "room", field)
}

pub(crate) fn furniture(
    w: &World,
    f: FurnitureId,
    field: impl FnOnce() -> String,
) -> Result<(), EpisodeError> {
    within(f.index(), w.furniture.len(), "furniture", field)
}

fn class(w: &World, c: ClassId, field: impl FnOnce() -> String) -> Result<(), EpisodeError> {
    within(c.index(), w.classes.len(), "object class", field)
}

/// Ids within the world, unique names, only containers open, and a layout over the
/// world's rooms and furniture in order.
pub(crate) fn world(w: &World) -> Result<(), EpisodeError> {
    if w.rooms.is_empty() {
        return Err(EpisodeError::invalid(
            "world.rooms",
            "[]",
            "is empty; a world needs at least one room",
        ));
    }
    let mut names = HashMap::new();
    for (i, r) in w.rooms.iter().enumerate() {
        claim_id(&mut names, &r.name, format!("world.rooms[{i}]"))?;
    }
    for (i, f) in w.furniture.iter().enumerate() {
        let field = format!("world.furniture[{i}]");
        claim_id(&mut names, &f.name, format!("{field}.id"))?;
        room(w, f.room, || format!("{field}.room"))?;
        within(
            f.class.index(),
            w.furniture_classes.len(),
            "furniture class",
            || format!("{field}.class"),
        )?;
        if f.open_at_start && f.kind == FurnitureKind::Surface {
            return Err(open_surface(format!("{field}.open"), &f.name));
        }
    }
    for (i, o) in w.objects.iter().enumerate() {
        let field = format!("world.objects[{i}]");
        claim_id(&mut names, &o.name, format!("{field}.id"))?;
        class(w, o.class, || format!("{field}.class"))?;
        furniture(w, o.start, || format!("{field}.at"))?;
    }
    let places = w
        .room_ids()
        .map(Place::Room)
        .chain(w.furniture_ids().map(Place::Furniture));
    if !w.layout.graph().node_weights().copied().eq(places) {
        return Err(EpisodeError::invalid(
            "world.doors",
            "the layout",
            "is not over this world's rooms and furniture",
        ));
    }
    Ok(())
}

fn agent(w: &World, agent: &Agent) -> Result<(), EpisodeError> {
    room(w, agent.start, || "agent.start".to_string())?;
    match &agent.goal_candidates {
        Some(goals) if goals.is_empty() => Err(EpisodeError::invalid(
            "agent.goals",
            "[]",
            "is empty; omit it to allow every class",
        )),
        Some(goals) => {
            let mut first = HashMap::new();
            goals.iter().enumerate().try_for_each(|(i, &goal)| {
                class(w, goal, || format!("agent.goals[{i}]"))?;
                match first.insert(goal, i) {
                    // A goal listed twice would weigh twice in the prior.
                    Some(j) => Err(EpisodeError::invalid(
                        format!("agent.goals[{i}]"),
                        w.class_name(goal),
                        format!("is listed twice (also agent.goals[{j}])"),
                    )),
                    None => Ok(()),
                }
            })
        }
        None => Ok(()),
    }
}

/// Records reading `k` of the world's objects (`reading`), or refuses it when it is the
/// world's own or an earlier reading's: a reading listed twice would count twice.
pub(crate) fn distinct_reading(
    seen: &mut HashMap<Vec<FurnitureId>, usize>,
    world: &World,
    reading: &World,
    k: usize,
) -> Result<(), EpisodeError> {
    let starts_of = |w: &World| -> Vec<FurnitureId> { w.objects.iter().map(|o| o.start).collect() };
    let starts = starts_of(reading);
    let repeated = |other| EpisodeError::RepeatedReading { index: k, other };
    if starts == starts_of(world) {
        return Err(repeated(None));
    }
    match seen.insert(starts, k) {
        Some(j) => Err(repeated(Some(j))),
        None => Ok(()),
    }
}

/// Replays `actions` from `start`, checking that each names what the world has and can
/// happen in turn.
pub(crate) fn replay(w: &World, start: RoomId, actions: &[Action]) -> Result<(), EpisodeError> {
    let mut state = State::initial(w, start);
    for (i, action) in actions.iter().enumerate() {
        let field = |part: &'static str| move || format!("actions[{i}].{part}");
        match *action {
            Action::WalkTo(Place::Room(r)) => room(w, r, field("walk_to"))?,
            Action::WalkTo(Place::Furniture(f)) => furniture(w, f, field("walk_to"))?,
            Action::Open(f) => furniture(w, f, field("open"))?,
            Action::Close(f) => furniture(w, f, field("close"))?,
            Action::Grab(o) => within(o.index(), w.objects.len(), "object", field("grab"))?,
            Action::Put { object, onto } => {
                within(
                    object.index(),
                    w.objects.len(),
                    "object",
                    field("put.object"),
                )?;
                furniture(w, onto, field("put.onto"))?;
            }
        }
        apply(&mut state, w, action, i)?;
    }
    Ok(())
}

/// Checks reading `k`: a start for every object, each furniture of the world, and the
/// actions possible in the world so placed.
fn alternative(
    w: &World,
    agent: &Agent,
    starts: &[FurnitureId],
    actions: &[Action],
    k: usize,
) -> Result<(), EpisodeError> {
    let field = format!("world.alternatives[{k}]");
    if starts.len() != w.objects.len() {
        return Err(EpisodeError::invalid(
            field,
            starts.len().to_string(),
            format!("starts given for {} objects", w.objects.len()),
        ));
    }
    let mut reading = w.clone();
    for (i, (object, &start)) in reading.objects.iter_mut().zip(starts).enumerate() {
        furniture(w, start, || format!("{field}[{i}]"))?;
        object.start = start;
    }
    replay(&reading, agent.start, actions).map_err(|source| EpisodeError::Reading {
        index: k,
        source: Box::new(source),
    })
}

fn questions(w: &World, action_count: usize, questions: &[Question]) -> Result<(), EpisodeError> {
    let mut ids = HashMap::new();
    for (i, q) in questions.iter().enumerate() {
        let field = format!("questions[{i}]");
        question_frame(&mut ids, &field, &q.id, q.at, action_count, q.options.len())?;
        for (j, option) in q.options.iter().enumerate() {
            let field = format!("{field}.options[{j}]");
            proposition(w, option.claim.about, &field)?;
            if let Some(given) = option.claim.given {
                proposition(w, given, &format!("{field}.given"))?;
            }
        }
        expected_option(&field, q.expected, q.options.len())?;
    }
    Ok(())
}

fn proposition(w: &World, p: Proposition, field: &str) -> Result<(), EpisodeError> {
    match p {
        Proposition::Goal(c) => class(w, c, || format!("{field}.goal")),
        Proposition::Belief {
            class: c, place, ..
        } => {
            class(w, c, || format!("{field}.belief.object"))?;
            furniture(w, place, || format!("{field}.belief.container"))
        }
    }
}
