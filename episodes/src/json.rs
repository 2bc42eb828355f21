//! The `bip-episode/1` JSON format: serde structs that mirror the file, and their
//! conversion to and from the validated [`Episode`].
//!
//! The file speaks in names ("fridge", "apple_2"); [`Episode::from_json`] resolves every
//! name once and replays every action, so an [`Episode`] is always consistent. Errors name
//! the JSON path of the offending field (`actions[3].open`) and its value.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::episode::{Agent, Episode};
use crate::error::EpisodeError;
use crate::ids::{ClassId, FurnitureId, RoomId};
use crate::layout::{Layout, Place};
use crate::question::{
    option_index, option_letter, AnswerOption, Claim, Expected, Proposition, Question,
};
use crate::question_type::QuestionLabel;
use crate::state::State;
use crate::world::{Furniture, FurnitureKind, Object, Room, World};

/// The value of the `format` field this version reads and writes.
pub const FORMAT: &str = "bip-episode/1";

/// An episode file as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeFile {
    /// Must be [`FORMAT`].
    pub format: String,
    /// Identifier; readers fall back to the file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Free text for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Rooms, doors, furniture and objects.
    pub world: WorldFile,
    /// The agent.
    pub agent: AgentFile,
    /// What the agent did, in order.
    #[serde(default)]
    pub actions: Vec<ActionFile>,
    /// Questions about the agent.
    #[serde(default)]
    pub questions: Vec<QuestionFile>,
}

/// The `world` object.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldFile {
    /// Room ids.
    pub rooms: Vec<String>,
    /// Doors between rooms; when absent every room opens onto every other at distance 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doors: Option<Vec<DoorFile>>,
    /// Containers and surfaces.
    pub furniture: Vec<FurnitureFile>,
    /// Objects and where they start.
    pub objects: Vec<ObjectFile>,
    /// Other readings of where objects start, when the source allows several worlds (a
    /// text that puts "a book on the coffee table" in a room with two). The world as
    /// written is the first reading; each alternative moves the objects it names.
    /// Inference weighs the readings equally a priori and marginalises over them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<AlternativeFile>,
}

/// One other reading of where objects start: `{"objects": {"book_1": "coffee_table_2"}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlternativeFile {
    /// Object id → the container or surface it starts at in this reading; objects not
    /// named start where the world says.
    pub objects: BTreeMap<String, String>,
}

/// A door: `["kitchen", "hall"]` (distance 1) or `{"between": [..], "distance": 2.5}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DoorFile {
    /// Two rooms at distance 1.
    Pair([String; 2]),
    /// Two rooms at a given walking distance.
    Weighted {
        /// The two rooms.
        between: [String; 2],
        /// Walking distance between their middles (positive).
        distance: f64,
    },
}

/// Container or surface, as written.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum KindFile {
    /// Must be opened.
    Container,
    /// Always visible.
    Surface,
}

/// One piece of furniture.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FurnitureFile {
    /// Unique id.
    pub id: String,
    /// Class; defaults to the id without a trailing `_N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The room it is in.
    pub room: String,
    /// Container or surface.
    pub kind: KindFile,
    /// Whether a container starts open.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
}

/// One object.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectFile {
    /// Unique id.
    pub id: String,
    /// Class; defaults to the id without a trailing `_N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The container or surface it starts in or on.
    pub at: String,
}

/// The agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFile {
    /// Name used in questions.
    pub name: String,
    /// Starting room.
    pub start: String,
    /// Classes it may be after; all classes when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goals: Option<Vec<String>>,
}

/// One action: `{"walk_to": "kitchen"}` (a room, furniture, or an object: the furniture it
/// is in or on then), `{"open": "fridge"}`, `{"close": "fridge"}`,
/// `{"grab": "apple_1"}`, `{"put": {"object": "apple_1", "onto": "kitchen_table"}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ActionFile {
    /// Walk to a room, furniture, or the furniture an object is at.
    WalkTo(String),
    /// Open a container.
    Open(String),
    /// Close a container.
    Close(String),
    /// Take an object.
    Grab(String),
    /// Put a held object at the current furniture.
    Put {
        /// The object.
        object: String,
        /// The furniture.
        onto: String,
    },
}

/// A belief: `{"object": "plate", "container": "fridge", "inside": true}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeliefFile {
    /// Object class.
    pub object: String,
    /// Container or surface id.
    pub container: String,
    /// Thinks it is there (`true`) or not (`false`).
    pub inside: bool,
}

/// A proposition: exactly one of `goal` (a class) and `belief`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropositionFile {
    /// "The agent is trying to get an object of this class."
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// "The agent thinks ... is (not) inside ...".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub belief: Option<BeliefFile>,
}

/// One option: a proposition (`goal` or `belief`), an optional condition and wording.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionFile {
    /// Wording for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Goal claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Belief claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub belief: Option<BeliefFile>,
    /// Condition the claim is evaluated under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<PropositionFile>,
}

/// One question.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionFile {
    /// Identifier; defaults to `q1`, `q2`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Label: an MMToM-QA type such as "1.2", or free text; reports only, never read by
    /// inference. Read into a [`QuestionLabel`] and written back as the same text.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Wording for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Number of actions seen when asked; defaults to all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<usize>,
    /// Two or more options, lettered a, b, ... in order.
    pub options: Vec<OptionFile>,
    /// Letter of the correct option, or `"unknowable"` when nothing the agent has done
    /// tells the options apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

/// The class an id implies when none is given: `apple_2` → `apple`, `book` → `book`.
pub fn default_class(id: &str) -> &str {
    match id.rsplit_once('_') {
        Some((stem, n))
            if !stem.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => id,
    }
}

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
            message: e.to_string(),
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
                found: format!("\"{}\"", file.format),
            });
        }
        let mut world = build_world(&file.world)?;
        add_named_classes(&mut world, &file);
        let agent = build_agent(&world, &file.agent)?;
        let actions = build_actions(&world, &agent, &file.actions)?;
        let alternatives = build_alternatives(&world, &agent, &file)?;
        let questions = build_questions(&world, actions.len(), &file.questions)?;
        Ok(Episode {
            id: file.id.unwrap_or_else(|| fallback_id.to_string()),
            description: file.description,
            world,
            alternatives,
            agent,
            actions,
            questions,
        })
    }

    /// The episode as a [`EpisodeFile`], ready to serialise.
    pub fn to_file(&self) -> EpisodeFile {
        let w = &self.world;
        let class_field =
            |id: &str, class: &str| (default_class(id) != class).then(|| class.to_string());
        let room_name = |r: RoomId| w.rooms[r.index()].name.clone();
        let mut doors = Vec::new();
        for edge in w.layout.graph().edge_indices() {
            if let Some((a, b)) = w.layout.graph().edge_endpoints(edge) {
                if let (Place::Room(a), Place::Room(b)) = (w.layout.graph()[a], w.layout.graph()[b])
                {
                    let between = [room_name(a), room_name(b)];
                    let distance = w.layout.graph()[edge];
                    doors.push(if distance == 1.0 {
                        DoorFile::Pair(between)
                    } else {
                        DoorFile::Weighted { between, distance }
                    });
                }
            }
        }
        let belief_file = |class: ClassId, place: FurnitureId, inside: bool| BeliefFile {
            object: w.class_name(class).to_string(),
            container: w.furniture(place).name.clone(),
            inside,
        };
        let proposition_file = |p: Proposition| match p {
            Proposition::Goal(c) => PropositionFile {
                goal: Some(w.class_name(c).to_string()),
                belief: None,
            },
            Proposition::Belief {
                class,
                place,
                inside,
            } => PropositionFile {
                goal: None,
                belief: Some(belief_file(class, place, inside)),
            },
        };
        EpisodeFile {
            format: FORMAT.to_string(),
            id: Some(self.id.clone()),
            description: self.description.clone(),
            world: WorldFile {
                rooms: w.rooms.iter().map(|r| r.name.clone()).collect(),
                doors: Some(doors),
                furniture: w
                    .furniture
                    .iter()
                    .map(|f| FurnitureFile {
                        id: f.name.clone(),
                        class: class_field(&f.name, &f.class),
                        room: room_name(f.room),
                        kind: match f.kind {
                            FurnitureKind::Container => KindFile::Container,
                            FurnitureKind::Surface => KindFile::Surface,
                        },
                        open: f.open_at_start,
                    })
                    .collect(),
                objects: w
                    .objects
                    .iter()
                    .map(|o| ObjectFile {
                        id: o.name.clone(),
                        class: class_field(&o.name, w.class_name(o.class)),
                        at: w.furniture(o.start).name.clone(),
                    })
                    .collect(),
                alternatives: self
                    .alternatives
                    .iter()
                    .map(|starts| AlternativeFile {
                        objects: w
                            .objects
                            .iter()
                            .zip(starts)
                            .filter(|(o, &start)| o.start != start)
                            .map(|(o, &start)| (o.name.clone(), w.furniture(start).name.clone()))
                            .collect(),
                    })
                    .collect(),
            },
            agent: AgentFile {
                name: self.agent.name.clone(),
                start: room_name(self.agent.start),
                goals: self
                    .agent
                    .goal_candidates
                    .as_ref()
                    .map(|cs| cs.iter().map(|c| w.class_name(*c).to_string()).collect()),
            },
            actions: self
                .actions
                .iter()
                .map(|a| match *a {
                    Action::WalkTo(p) => ActionFile::WalkTo(w.place_name(p).to_string()),
                    Action::Open(f) => ActionFile::Open(w.furniture(f).name.clone()),
                    Action::Close(f) => ActionFile::Close(w.furniture(f).name.clone()),
                    Action::Grab(o) => ActionFile::Grab(w.object(o).name.clone()),
                    Action::Put { object, onto } => ActionFile::Put {
                        object: w.object(object).name.clone(),
                        onto: w.furniture(onto).name.clone(),
                    },
                })
                .collect(),
            questions: self
                .questions
                .iter()
                .map(|q| QuestionFile {
                    id: Some(q.id.clone()),
                    label: q.label.as_ref().map(ToString::to_string),
                    text: q.text.clone(),
                    at: Some(q.at),
                    options: q
                        .options
                        .iter()
                        .map(|o| {
                            let about = proposition_file(o.claim.about);
                            OptionFile {
                                text: o.text.clone(),
                                goal: about.goal,
                                belief: about.belief,
                                given: o.claim.given.map(proposition_file),
                            }
                        })
                        .collect(),
                    expected: q.expected.map(Expected::label),
                })
                .collect(),
        }
    }

    /// The episode as pretty-printed `bip-episode/1` JSON.
    pub fn to_json(&self) -> String {
        // Serialising plain structs of strings, numbers and vectors cannot fail.
        serde_json::to_string_pretty(&self.to_file()).unwrap_or_default()
    }
}

/// Checks that every id in `ids` is new, recording it under `field`.
fn claim_ids<'a>(
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
            value: id.to_string(),
            other: other.clone(),
        });
    }
    seen.insert(id, field);
    Ok(())
}

fn build_world(file: &WorldFile) -> Result<World, EpisodeError> {
    let mut seen = HashMap::new();
    if file.rooms.is_empty() {
        return Err(EpisodeError::invalid(
            "world.rooms",
            "[]",
            "is empty; a world needs at least one room",
        ));
    }
    for (i, r) in file.rooms.iter().enumerate() {
        claim_ids(&mut seen, r, format!("world.rooms[{i}]"))?;
    }
    let room = |name: &str, field: String| {
        file.rooms
            .iter()
            .position(|r| r == name)
            .map(RoomId::new)
            .ok_or_else(|| EpisodeError::unknown(field, "room", name))
    };
    let mut furniture = Vec::with_capacity(file.furniture.len());
    for (i, f) in file.furniture.iter().enumerate() {
        claim_ids(&mut seen, &f.id, format!("world.furniture[{i}].id"))?;
        let kind = match f.kind {
            KindFile::Container => FurnitureKind::Container,
            KindFile::Surface => FurnitureKind::Surface,
        };
        if f.open && kind == FurnitureKind::Surface {
            return Err(EpisodeError::invalid(
                format!("world.furniture[{i}].open"),
                &f.id,
                "is a surface; only containers open and close",
            ));
        }
        furniture.push(Furniture {
            name: f.id.clone(),
            class: f
                .class
                .clone()
                .unwrap_or_else(|| default_class(&f.id).to_string()),
            room: room(&f.room, format!("world.furniture[{i}].room"))?,
            kind,
            open_at_start: f.open,
        });
    }
    let mut classes: Vec<String> = Vec::new();
    let mut objects = Vec::with_capacity(file.objects.len());
    for (i, o) in file.objects.iter().enumerate() {
        claim_ids(&mut seen, &o.id, format!("world.objects[{i}].id"))?;
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
        let class_name = o.class.as_deref().unwrap_or_else(|| default_class(&o.id));
        let class = match classes.iter().position(|c| c == class_name) {
            Some(c) => ClassId::new(c),
            None => {
                classes.push(class_name.to_string());
                ClassId::new(classes.len() - 1)
            }
        };
        objects.push(Object {
            name: o.id.clone(),
            class,
            start,
        });
    }
    let doors = match &file.doors {
        Some(doors) => doors
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let (between, distance) = match d {
                    DoorFile::Pair(between) => (between, 1.0),
                    DoorFile::Weighted { between, distance } => (between, *distance),
                };
                if !(distance.is_finite() && distance > 0.0) {
                    return Err(EpisodeError::invalid(
                        format!("world.doors[{i}].distance"),
                        distance.to_string(),
                        "must be a positive finite number",
                    ));
                }
                Ok((
                    room(&between[0], format!("world.doors[{i}]"))?,
                    room(&between[1], format!("world.doors[{i}]"))?,
                    distance,
                ))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => (0..file.rooms.len())
            .flat_map(|a| {
                (a + 1..file.rooms.len()).map(move |b| (RoomId::new(a), RoomId::new(b), 1.0))
            })
            .collect(),
    };
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
        layout,
    })
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
    for name in goals.chain(propositions.flatten()) {
        if !name.is_empty() && world.class_by_name(name).is_none() {
            world.classes.push(name.clone());
        }
    }
}

/// The other readings' object starts, each checked to name known objects and furniture
/// and to admit every action.
fn build_alternatives(
    world: &World,
    agent: &Agent,
    file: &EpisodeFile,
) -> Result<Vec<Vec<FurnitureId>>, EpisodeError> {
    let mut readings = Vec::with_capacity(file.world.alternatives.len());
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
        build_actions(&reading, agent, &file.actions).map_err(|source| {
            EpisodeError::invalid(
                format!("world.alternatives[{k}]"),
                "this reading",
                format!("does not admit the actions: {source}"),
            )
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
        Some(goals) => Some(
            goals
                .iter()
                .enumerate()
                .map(|(i, g)| class(world, g, format!("agent.goals[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
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
        let object = |name: &str, field: &str| {
            world.object_by_name(name).ok_or_else(|| {
                EpisodeError::unknown(format!("actions[{i}].{field}"), "object", name)
            })
        };
        let action = match file {
            ActionFile::WalkTo(name) => Action::WalkTo(walk_target(world, &state, name, i)?),
            ActionFile::Open(name) => {
                Action::Open(furniture(world, name, format!("actions[{i}].open"))?)
            }
            ActionFile::Close(name) => {
                Action::Close(furniture(world, name, format!("actions[{i}].close"))?)
            }
            ActionFile::Grab(name) => Action::Grab(object(name, "grab")?),
            ActionFile::Put { object: o, onto } => Action::Put {
                object: object(o, "put.object")?,
                onto: furniture(world, onto, format!("actions[{i}].put.onto"))?,
            },
        };
        state
            .apply(world, &action)
            .map_err(|why| EpisodeError::ImpossibleAction {
                index: i,
                action: action.describe(world),
                reason: why.describe(world),
            })?;
        actions.push(action);
    }
    Ok(actions)
}

/// Where `walk_to NAME` leads: a room, a piece of furniture, or the furniture an object
/// is in or on at that moment ("walks towards the wine").
fn walk_target(
    world: &World,
    state: &State,
    name: &str,
    index: usize,
) -> Result<Place, EpisodeError> {
    let field = || format!("actions[{index}].walk_to");
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
        let at = q.at.unwrap_or(action_count);
        if at > action_count {
            return Err(EpisodeError::invalid(
                format!("{field}.at"),
                at.to_string(),
                format!("is after the end of the episode ({action_count} actions)"),
            ));
        }
        if q.options.len() < 2 {
            return Err(EpisodeError::invalid(
                format!("{field}.options"),
                q.options.len().to_string(),
                "options given; a question needs at least two",
            ));
        }
        let options = q
            .options
            .iter()
            .enumerate()
            .map(|(j, o)| {
                let field = format!("{field}.options[{j}]");
                let about = build_proposition(world, o.goal.as_ref(), o.belief.as_ref(), &field)?;
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
            })
            .collect::<Result<Vec<_>, EpisodeError>>()?;
        let expected = q
            .expected
            .as_ref()
            .map(|letter| {
                if letter == Expected::UNKNOWABLE {
                    return Ok(Expected::Unknowable);
                }
                option_index(letter, options.len())
                    .map(Expected::Option)
                    .ok_or_else(|| {
                        EpisodeError::invalid(
                            format!("{field}.expected"),
                            letter,
                            format!(
                                "is neither \"{}\" nor one of the option letters a..{}",
                                Expected::UNKNOWABLE,
                                option_letter(options.len() - 1)
                            ),
                        )
                    })
            })
            .transpose()?;
        questions.push(Question {
            id,
            label: q.label.as_deref().map(QuestionLabel::parse),
            text: q.text.clone(),
            at,
            options,
            expected,
        });
    }
    Ok(questions)
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
