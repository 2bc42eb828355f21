//! Reading: an [`EpisodeFile`] resolved and replayed into a validated [`Episode`].

use std::collections::{HashMap, HashSet};

use crate::action::Action;
use crate::episode::check::{
    apply, claim_id, distinct_reading, open_surface, plain_names, question_shape, replay,
};
use crate::episode::{Agent, Episode, EpisodeParts};
use crate::error::EpisodeError;
use crate::ids::{ClassId, FurnitureClassId, FurnitureId, RoomId};
use crate::layout::{Layout, Place};
use crate::limits::MAX_DOOR_DISTANCE;
use crate::question::{
    option_index, option_letter, AnswerOption, Claim, Expected, Proposition, Question,
};
use crate::question_type::QuestionLabel;
use crate::state::State;
use crate::world::{Furniture, FurnitureKind, Object, Room, World};

use super::file::*;

impl Episode {
    /// Reads and validates an episode from `bip-episode/1` JSON text.
    ///
    /// `fallback_id` names the episode when the file has no `id` (callers pass the file stem).
    ///
    /// # Errors
    /// [`EpisodeError::Json`] with line and column for malformed text, otherwise the first
    /// invalid field, unknown id or impossible action, with its JSON path.
    pub fn from_json(text: &str, fallback_id: &str) -> Result<Episode, EpisodeError> {
        let file: EpisodeFile = serde_json::from_str(text).map_err(|e| EpisodeError::Json {
            line: e.line(),
            column: e.column(),
            message: crate::limits::json_message(&e),
        })?;
        Episode::from_file(file, fallback_id)
    }

    /// Validates an already-parsed [`EpisodeFile`].
    ///
    /// # Errors
    /// As [`Episode::from_json`], less the JSON syntax errors.
    pub fn from_file(file: EpisodeFile, fallback_id: &str) -> Result<Episode, EpisodeError> {
        if file.format != FORMAT {
            return Err(EpisodeError::Format {
                expected: FORMAT,
                found: format!("\"{}\"", crate::limits::quoted(&file.format)),
            });
        }
        if let Ok(value) = serde_json::to_value(&file) {
            plain_names(&value, "")?;
        }
        let mut world = build_world(&file.world)?;
        add_named_classes(&mut world, &file);
        let agent = build_agent(&world, &file.agent)?;
        let actions = build_actions(&world, &agent, &file.actions)?;
        let alternatives = build_alternatives(&world, &agent, &file, &actions)?;
        let questions = build_questions(&world, actions.len(), &file.questions)?;
        Ok(Episode::from_valid_parts(EpisodeParts {
            id: file.id.unwrap_or_else(|| fallback_id.to_string()),
            description: file.description,
            world,
            alternatives,
            agent,
            actions,
            questions,
        }))
    }
}

pub(crate) fn build_world(file: &WorldFile) -> Result<World, EpisodeError> {
    let places = file.rooms.len().saturating_add(file.furniture.len());
    if places > crate::limits::max_places() {
        return Err(EpisodeError::TooLarge {
            field: "world".into(),
            what: "places (rooms and furniture)",
            count: places,
            limit: crate::limits::max_places(),
            flag: "--max-places",
        });
    }
    let mut seen = HashMap::new();
    if file.rooms.is_empty() {
        return Err(EpisodeError::invalid(
            "world.rooms",
            "[]",
            "is empty; a world needs at least one room",
        ));
    }
    for (i, r) in file.rooms.iter().enumerate() {
        claim_id(&mut seen, r, format!("world.rooms[{i}]"))?;
    }
    let room = |name: &str, field: String| {
        file.rooms
            .iter()
            .position(|r| r == name)
            .map(RoomId::new)
            .ok_or_else(|| EpisodeError::unknown(field, "room", name))
    };
    let (furniture, furniture_classes) = build_furniture(file, &mut seen, &room)?;
    let (objects, classes) = build_objects(file, &mut seen, &furniture)?;
    let doors = build_doors(file, &room)?;
    let furniture_rooms: Vec<RoomId> = furniture.iter().map(|f| f.room).collect();
    let layout = Layout::new(file.rooms.len(), &furniture_rooms, &doors).map_err(|r| {
        EpisodeError::invalid(
            "world.doors",
            &file.rooms[r.index()],
            format!("cannot be reached from \"{}\"; add a door", file.rooms[0]),
        )
    })?;
    Ok(World {
        rooms: file
            .rooms
            .iter()
            .map(|name| Room { name: name.clone() })
            .collect(),
        furniture,
        objects,
        classes,
        furniture_classes,
        layout,
    })
}

/// The id of `name` in `names`, added at the end when it is new: classes are numbered in
/// order of first appearance.
fn intern(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
}

type RoomOf<'a> = dyn Fn(&str, String) -> Result<RoomId, EpisodeError> + 'a;

/// The furniture of `file` and the furniture classes, in order of first appearance.
fn build_furniture<'a>(
    file: &'a WorldFile,
    seen: &mut HashMap<&'a str, String>,
    room: &RoomOf<'_>,
) -> Result<(Vec<Furniture>, Vec<String>), EpisodeError> {
    let mut furniture = Vec::with_capacity(file.furniture.len());
    let mut classes = Vec::new();
    for (i, f) in file.furniture.iter().enumerate() {
        claim_id(seen, &f.id, format!("world.furniture[{i}].id"))?;
        let kind = match f.kind {
            KindFile::Container => FurnitureKind::Container,
            KindFile::Surface => FurnitureKind::Surface,
        };
        if f.open && kind == FurnitureKind::Surface {
            return Err(open_surface(format!("world.furniture[{i}].open"), &f.id));
        }
        let class = f.class.as_deref().unwrap_or_else(|| default_class(&f.id));
        furniture.push(Furniture {
            name: f.id.clone(),
            class: FurnitureClassId::new(intern(&mut classes, class)),
            room: room(&f.room, format!("world.furniture[{i}].room"))?,
            kind,
            open_at_start: f.open,
        });
    }
    Ok((furniture, classes))
}

/// The objects of `file` and the object classes, in order of first appearance.
fn build_objects<'a>(
    file: &'a WorldFile,
    seen: &mut HashMap<&'a str, String>,
    furniture: &[Furniture],
) -> Result<(Vec<Object>, Vec<String>), EpisodeError> {
    let mut classes = Vec::new();
    let mut objects = Vec::with_capacity(file.objects.len());
    for (i, o) in file.objects.iter().enumerate() {
        claim_id(seen, &o.id, format!("world.objects[{i}].id"))?;
        let field = format!("world.objects[{i}].at");
        let start = match furniture.iter().position(|f| f.name == o.at) {
            Some(f) => FurnitureId::new(f),
            None if file.rooms.contains(&o.at) => {
                return Err(EpisodeError::invalid(
                    field,
                    &o.at,
                    "is a room; objects lie in a container or on a surface of a room",
                ))
            }
            None => return Err(EpisodeError::unknown(field, "furniture", &o.at)),
        };
        let class = o.class.as_deref().unwrap_or_else(|| default_class(&o.id));
        objects.push(Object {
            name: o.id.clone(),
            class: ClassId::new(intern(&mut classes, class)),
            start,
        });
    }
    Ok((objects, classes))
}

/// The doors as written, or every pair of rooms at distance 1 when there are none.
fn build_doors(
    file: &WorldFile,
    room: &RoomOf<'_>,
) -> Result<Vec<(RoomId, RoomId, f64)>, EpisodeError> {
    let Some(doors) = &file.doors else {
        let rooms = file.rooms.len();
        return Ok((0..rooms)
            .flat_map(|a| (a + 1..rooms).map(move |b| (RoomId::new(a), RoomId::new(b), 1.0)))
            .collect());
    };
    doors
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let (between, distance) = match d {
                DoorFile::Pair(between) => (between, 1.0),
                DoorFile::Weighted { between, distance } => (between, *distance),
            };
            if !(distance > 0.0 && distance <= MAX_DOOR_DISTANCE) {
                return Err(EpisodeError::invalid(
                    format!("world.doors[{i}].distance"),
                    crate::limits::number(distance),
                    format!("must be a number > 0 and ≤ {MAX_DOOR_DISTANCE:e}"),
                ));
            }
            Ok((
                room(&between[0], format!("world.doors[{i}]"))?,
                room(&between[1], format!("world.doors[{i}]"))?,
                distance,
            ))
        })
        .collect()
}

/// Adds the classes that the agent's goals and the questions name but no object has: an
/// agent may want, or think about, something the world does not contain.
fn add_named_classes(world: &mut World, file: &EpisodeFile) {
    let goals = file.agent.goals.iter().flatten();
    let propositions = file.questions.iter().flat_map(|q| {
        q.options.iter().flat_map(|o| {
            let given = o.given.as_ref();
            [
                o.goal.as_ref(),
                o.belief.as_ref().map(|b| &b.object),
                given.and_then(|g| g.goal.as_ref()),
                given.and_then(|g| g.belief.as_ref()).map(|b| &b.object),
            ]
        })
    });
    // A set, not a lookup per name: a file may name hundreds of thousands.
    let mut known: HashSet<String> = world.classes.iter().cloned().collect();
    for name in goals.chain(propositions.flatten()) {
        if !name.is_empty() && known.insert(name.clone()) {
            world.classes.push(name.clone());
        }
    }
}

/// The other readings' object starts, each checked to name known objects and furniture
/// and to admit every action: as written (a walk to an object resolved in that reading),
/// and as resolved in the first reading, which is how [`Episode::readings`] replays them.
fn build_alternatives(
    world: &World,
    agent: &Agent,
    file: &EpisodeFile,
    actions: &[Action],
) -> Result<Vec<Vec<FurnitureId>>, EpisodeError> {
    let count = file.world.alternatives.len().saturating_add(1);
    if count > crate::limits::max_readings() {
        return Err(EpisodeError::TooLarge {
            field: "world.alternatives".into(),
            what: "readings of the world (the world as written and its alternatives)",
            count,
            limit: crate::limits::max_readings(),
            flag: "--max-readings",
        });
    }
    let mut readings = Vec::with_capacity(file.world.alternatives.len());
    let mut seen = HashMap::new();
    for (k, alternative) in file.world.alternatives.iter().enumerate() {
        let field = format!("world.alternatives[{k}].objects");
        let mut reading = world.clone();
        for (object, at) in &alternative.objects {
            let o = world
                .object_by_name(object)
                .ok_or_else(|| EpisodeError::unknown(field.clone(), "object", object))?;
            let start = furniture(world, at, format!("{field}.{object}"))?;
            reading.objects[o.index()].start = start;
        }
        // Before the replay, which costs the most.
        distinct_reading(&mut seen, world, &reading, k)?;
        build_actions(&reading, agent, &file.actions)
            .and_then(|_| replay(&reading, agent.start, actions))
            .map_err(|source| EpisodeError::Reading {
                index: k,
                source: Box::new(source),
            })?;
        readings.push(reading.objects.iter().map(|o| o.start).collect());
    }
    Ok(readings)
}

fn class(world: &World, name: &str, field: String) -> Result<ClassId, EpisodeError> {
    world
        .class_by_name(name)
        .ok_or_else(|| EpisodeError::unknown(field, "object class", name))
}

fn build_agent(world: &World, file: &AgentFile) -> Result<Agent, EpisodeError> {
    let start = match world.place_by_name(&file.start) {
        Some(Place::Room(r)) => r,
        Some(Place::Furniture(_)) => {
            return Err(EpisodeError::invalid(
                "agent.start",
                &file.start,
                "is furniture; the agent starts in a room",
            ))
        }
        None => return Err(EpisodeError::unknown("agent.start", "room", &file.start)),
    };
    let goal_candidates = match &file.goals {
        Some(goals) if goals.is_empty() => {
            return Err(EpisodeError::invalid(
                "agent.goals",
                "[]",
                "is empty; omit it to allow every class",
            ))
        }
        Some(goals) => {
            let ids: HashMap<&str, ClassId> = world
                .classes
                .iter()
                .enumerate()
                .map(|(i, name)| (name.as_str(), ClassId::new(i)))
                .collect();
            // A goal listed twice would weigh twice in the prior.
            let mut first: HashMap<&str, usize> = HashMap::new();
            let mut candidates = Vec::with_capacity(goals.len());
            for (i, g) in goals.iter().enumerate() {
                let field = format!("agent.goals[{i}]");
                if let Some(j) = first.insert(g.as_str(), i) {
                    let why = format!("is listed twice (also agent.goals[{j}])");
                    return Err(EpisodeError::invalid(field, g, &why));
                }
                let id = ids
                    .get(g.as_str())
                    .copied()
                    .ok_or_else(|| EpisodeError::unknown(field, "object class", g))?;
                candidates.push(id);
            }
            Some(candidates)
        }
        None => None,
    };
    Ok(Agent {
        name: file.name.clone(),
        start,
        goal_candidates,
    })
}

fn furniture(world: &World, name: &str, field: String) -> Result<FurnitureId, EpisodeError> {
    world
        .furniture_by_name(name)
        .ok_or_else(|| EpisodeError::unknown(field, "furniture", name))
}

fn build_actions(
    world: &World,
    agent: &Agent,
    files: &[ActionFile],
) -> Result<Vec<Action>, EpisodeError> {
    let mut state = State::initial(world, agent.start);
    let mut actions = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let action = resolve_action(world, &state, file, &format!("actions[{i}]"))?;
        apply(&mut state, world, &action, i)?;
        actions.push(action);
    }
    Ok(actions)
}

impl Action {
    /// Resolves an action as the episode format writes it (`{"walk_to": "fridge"}`) in
    /// `world`, at `state` (a walk to an object leads to where the object is then).
    /// Whether the action can happen is not checked: sessions do that when it is pushed.
    ///
    /// # Errors
    /// [`EpisodeError::UnknownId`] naming the field (`action.open`) for a name `world`
    /// lacks; [`EpisodeError::Invalid`] for a walk to an object the agent holds.
    pub fn from_file(
        file: &ActionFile,
        world: &World,
        state: &State,
    ) -> Result<Action, EpisodeError> {
        resolve_action(world, state, file, "action")
    }
}

/// The action `file`, at JSON path `field`.
fn resolve_action(
    world: &World,
    state: &State,
    file: &ActionFile,
    field: &str,
) -> Result<Action, EpisodeError> {
    let object = |name: &str, part: &str| {
        world
            .object_by_name(name)
            .ok_or_else(|| EpisodeError::unknown(format!("{field}.{part}"), "object", name))
    };
    Ok(match file {
        ActionFile::WalkTo(name) => Action::WalkTo(walk_target(world, state, name, field)?),
        ActionFile::Open(name) => Action::Open(furniture(world, name, format!("{field}.open"))?),
        ActionFile::Close(name) => Action::Close(furniture(world, name, format!("{field}.close"))?),
        ActionFile::Grab(name) => Action::Grab(object(name, "grab")?),
        ActionFile::Put { object: o, onto } => Action::Put {
            object: object(o, "put.object")?,
            onto: furniture(world, onto, format!("{field}.put.onto"))?,
        },
    })
}

/// Where `walk_to NAME` leads: a room, a piece of furniture, or the furniture an object
/// is in or on at that moment ("walks towards the wine").
fn walk_target(
    world: &World,
    state: &State,
    name: &str,
    field: &str,
) -> Result<Place, EpisodeError> {
    let field = || format!("{field}.walk_to");
    if let Some(place) = world.place_by_name(name) {
        return Ok(place);
    }
    let object = world
        .object_by_name(name)
        .ok_or_else(|| EpisodeError::unknown(field(), "room, furniture or object", name))?;
    match state.object_at[object.index()] {
        Some(furniture) => Ok(Place::Furniture(furniture)),
        None => Err(EpisodeError::invalid(
            field(),
            name,
            "is held by the agent; walk to a place instead",
        )),
    }
}

fn build_proposition(
    world: &World,
    goal: Option<&String>,
    belief: Option<&BeliefFile>,
    field: &str,
) -> Result<Proposition, EpisodeError> {
    match (goal, belief) {
        (Some(g), None) => Ok(Proposition::Goal(class(world, g, format!("{field}.goal"))?)),
        (None, Some(b)) => Ok(Proposition::Belief {
            class: class(world, &b.object, format!("{field}.belief.object"))?,
            place: furniture(world, &b.container, format!("{field}.belief.container"))?,
            inside: b.inside,
        }),
        (Some(_), Some(_)) => Err(EpisodeError::invalid(
            field,
            "goal and belief",
            "has both; give exactly one",
        )),
        (None, None) => Err(EpisodeError::invalid(
            field,
            "{}",
            "has neither \"goal\" nor \"belief\"",
        )),
    }
}

fn build_questions(
    world: &World,
    action_count: usize,
    files: &[QuestionFile],
) -> Result<Vec<Question>, EpisodeError> {
    let mut ids = HashMap::new();
    let mut questions = Vec::with_capacity(files.len());
    for (i, q) in files.iter().enumerate() {
        let field = format!("questions[{i}]");
        let id = q.id.clone().unwrap_or_else(|| format!("q{}", i + 1));
        if let Some(other) = ids.insert(id.clone(), field.clone()) {
            return Err(EpisodeError::DuplicateId {
                field: format!("{field}.id"),
                value: id,
                other,
            });
        }
        questions.push(build_question(world, action_count, q, &field, id)?);
    }
    Ok(questions)
}

impl Question {
    /// Resolves a question as the episode format writes it against `world`, for an
    /// episode of `action_count` actions (its `at` defaults to all of them); its id
    /// defaults to `q1`.
    ///
    /// # Errors
    /// As the questions of [`Episode::from_json`], with paths under `question`.
    pub fn from_file(
        file: &QuestionFile,
        world: &World,
        action_count: usize,
    ) -> Result<Question, EpisodeError> {
        let id = file.id.clone().unwrap_or_else(|| "q1".to_string());
        build_question(world, action_count, file, "question", id)
    }
}

/// The question `q`, at JSON path `field`, named `id`.
fn build_question(
    world: &World,
    action_count: usize,
    q: &QuestionFile,
    field: &str,
    id: String,
) -> Result<Question, EpisodeError> {
    let at = q.at.unwrap_or(action_count);
    question_shape(field, at, action_count, q.options.len())?;
    let options = q
        .options
        .iter()
        .enumerate()
        .map(|(j, o)| build_option(world, o, &format!("{field}.options[{j}]")))
        .collect::<Result<Vec<_>, EpisodeError>>()?;
    let expected = q
        .expected
        .as_deref()
        .map(|letter| build_expected(letter, options.len(), field))
        .transpose()?;
    Ok(Question {
        id,
        label: q.label.as_deref().map(QuestionLabel::parse),
        text: q.text.clone(),
        at,
        options,
        expected,
    })
}

fn build_option(world: &World, o: &OptionFile, field: &str) -> Result<AnswerOption, EpisodeError> {
    let about = build_proposition(world, o.goal.as_ref(), o.belief.as_ref(), field)?;
    let given = o
        .given
        .as_ref()
        .map(|g| {
            build_proposition(
                world,
                g.goal.as_ref(),
                g.belief.as_ref(),
                &format!("{field}.given"),
            )
        })
        .transpose()?;
    Ok(AnswerOption {
        text: o.text.clone(),
        claim: Claim { about, given },
    })
}

/// The expected answer `letter` of question `field`, which has `options` options.
pub(crate) fn build_expected(
    letter: &str,
    options: usize,
    field: &str,
) -> Result<Expected, EpisodeError> {
    if letter == Expected::UNKNOWABLE {
        return Ok(Expected::Unknowable);
    }
    option_index(letter, options)
        .map(Expected::Option)
        .ok_or_else(|| {
            EpisodeError::invalid(
                format!("{field}.expected"),
                letter,
                format!(
                    "is neither \"{}\" nor one of the option letters a..{}",
                    Expected::UNKNOWABLE,
                    option_letter(options - 1)
                ),
            )
        })
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
