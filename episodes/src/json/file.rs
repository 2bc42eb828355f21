//! The `bip-episode/1` file as written: serde structs that mirror the JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
///
/// `goal` and `belief` repeat [`PropositionFile`]'s fields on purpose: serde cannot
/// flatten a struct into one that denies unknown fields, and options must reject them.
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

/// One question, with options of type `O`: an episode's ([`OptionFile`], the default) or
/// a story's ([`StoryOptionFile`](super::StoryOptionFile)).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionFile<O = OptionFile> {
    /// Identifier; defaults to `q1`, `q2`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Label: an MMToM-QA type such as "1.2", an order ("order 2"), or free text; reports
    /// only, never read by inference. Read into a [`QuestionLabel`](crate::QuestionLabel)
    /// and written back as the same text.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Wording for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Number of actions (in a story, events) seen when asked; defaults to all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<usize>,
    /// Two or more options, lettered a, b, ... in order.
    pub options: Vec<O>,
    /// Letter of the correct option, or, in an episode, `"unknowable"` when nothing the
    /// agent has done tells the options apart.
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
