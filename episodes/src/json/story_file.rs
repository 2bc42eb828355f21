//! The multi-agent form of `bip-episode/1` as written: serde structs that mirror the JSON.
//!
//! A story file has the same `format`, `id`, `description` and `world` as a single-agent
//! episode file; in place of `agent` and `actions` it has `agents` and `events`, and its
//! questions' options claim nested beliefs (`"belief": {"of": ["A", "B"], ...}`: A thinks
//! B thinks ...) or where an object really is (`"location"`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::file::{QuestionFile, WorldFile};

/// A story file as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoryFile {
    /// Must be [`FORMAT`](super::FORMAT).
    pub format: String,
    /// Identifier; readers fall back to the file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Free text for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Labels for reports only (`{"length": "2"}`); never read by inference.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Rooms, containers (furniture) and objects, and where the objects start.
    pub world: WorldFile,
    /// The agents, each named once.
    pub agents: Vec<StoryAgentFile>,
    /// What happens, in order.
    #[serde(default)]
    pub events: Vec<EventFile>,
    /// Questions about the story.
    #[serde(default)]
    pub questions: Vec<StoryQuestionFile>,
}

/// One agent: `{"name": "Logan"}`, optionally with the room it starts in.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoryAgentFile {
    /// Its name, unique in the story; events and questions refer to it.
    pub name: String,
    /// The room it starts in; absent when it starts in no room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
}

/// One event: `{"enter": {"agent": "Ann", "room": "patio"}}`,
/// `{"exit": {"agent": "Ann", "room": "patio"}}`,
/// `{"move": {"agent": "Ann", "object": "pear", "to": "red_box"}}`,
/// `{"claim": {"speaker": "Ann", "object": "pear", "container": "red_box"}}` (public: heard
/// by everyone in Ann's room) or with `"listener": "Bo"` (private: heard by Bo only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum EventFile {
    /// The agent goes into the room.
    Enter {
        /// Who.
        agent: String,
        /// Where to.
        room: String,
    },
    /// The agent leaves the room it is in.
    Exit {
        /// Who.
        agent: String,
        /// The room.
        room: String,
    },
    /// The agent moves an object into a container of its room.
    Move {
        /// Who.
        agent: String,
        /// What.
        object: String,
        /// The container.
        to: String,
    },
    /// The speaker says where an object is.
    Claim {
        /// Who speaks.
        speaker: String,
        /// The object.
        object: String,
        /// Where the speaker says it is.
        container: String,
        /// The one listener of a private claim; absent for a public one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        listener: Option<String>,
    },
}

/// A nested belief: `{"of": ["Ann", "Bo"], "object": "pear", "container": "red_box"}` is
/// "Ann thinks Bo thinks the pear is in the red_box"; `"inside": false` denies it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NestedBeliefFile {
    /// Whose belief, outermost first; at least one agent.
    pub of: Vec<String>,
    /// The object.
    pub object: String,
    /// The container.
    pub container: String,
    /// Whether the belief is that it is there (default) or is not.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub inside: bool,
}

/// Where an object really is: `{"object": "pear", "container": "red_box"}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocationFile {
    /// The object.
    pub object: String,
    /// The container.
    pub container: String,
    /// Whether the claim is that it is there (default) or is not.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub inside: bool,
}

/// One option: exactly one of `belief` and `location`, and optional wording.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoryOptionFile {
    /// Wording for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A nested belief.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub belief: Option<NestedBeliefFile>,
    /// Where the object really is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<LocationFile>,
}

/// One question about a story.
pub type StoryQuestionFile = QuestionFile<StoryOptionFile>;

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}
