//! Multi-agent episodes ("stories"): several agents enter and leave rooms, move objects
//! between containers and tell each other where objects are; questions ask where an
//! object really is, or what one agent thinks another thinks ... about it, to any depth.
//!
//! A story shares the `bip-episode/1` format with single-agent episodes (see
//! [`json`](crate::json)): its world is the same rooms, furniture and objects, and in
//! place of one `agent` and its `actions` it has `agents` and `events`. Like an
//! [`Episode`](crate::Episode), a [`Story`] is always valid: every name resolved, every
//! event possible in turn ([`StoryState`]), every question asked within the story.
//!
//! ```
//! use bip_episodes::{AnyEpisode, Event};
//!
//! let text = r#"{
//!   "format": "bip-episode/1",
//!   "world": {"rooms": ["patio"],
//!     "furniture": [{"id": "red_box", "room": "patio", "kind": "container"},
//!                   {"id": "blue_jar", "room": "patio", "kind": "container"}],
//!     "objects": [{"id": "pear", "at": "red_box"}]},
//!   "agents": [{"name": "Ann"}, {"name": "Bo"}],
//!   "events": [{"enter": {"agent": "Ann", "room": "patio"}},
//!              {"enter": {"agent": "Bo", "room": "patio"}},
//!              {"exit": {"agent": "Ann", "room": "patio"}},
//!              {"move": {"agent": "Bo", "object": "pear", "to": "blue_jar"}}],
//!   "questions": [{"options": [
//!       {"belief": {"of": ["Ann"], "object": "pear", "container": "red_box"}},
//!       {"belief": {"of": ["Ann"], "object": "pear", "container": "blue_jar"}}],
//!     "expected": "a"}]
//! }"#;
//! let AnyEpisode::Story(story) = AnyEpisode::from_json(text, "demo")? else { unreachable!() };
//! assert!(matches!(story.events()[3], Event::Move { .. }));
//! assert_eq!(story.questions()[0].order(), 1);
//! # Ok::<(), bip_episodes::EpisodeError>(())
//! ```

use std::collections::BTreeMap;

use crate::error::EpisodeError;
use crate::ids::{AgentId, RoomId};
use crate::world::World;

mod check;
mod event;
mod question;
mod state;

pub use event::Event;
pub use question::{NestedClaim, StoryOption, StoryQuestion};
pub use state::{StoryImpossible, StoryState};

pub(crate) use check::apply as apply_checked;

/// One agent of a story.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryAgent {
    /// Its name, unique in the story ("Logan").
    pub name: String,
    /// The room it starts in; `None` (the usual case) when it starts in no room.
    pub start: Option<RoomId>,
}

/// The parts of a story, not yet checked: what [`Story::new`] takes and
/// [`Story::into_parts`] gives back.
#[derive(Debug, Clone)]
pub struct StoryParts {
    /// Identifier.
    pub id: String,
    /// Free text for people.
    pub description: Option<String>,
    /// Labels for reports only ("length": "2"), never read by inference.
    pub tags: BTreeMap<String, String>,
    /// Rooms, containers and objects, and where the objects start.
    pub world: World,
    /// The agents, indexed by [`AgentId`].
    pub agents: Vec<StoryAgent>,
    /// What happens, in order.
    pub events: Vec<Event>,
    /// Questions about the story.
    pub questions: Vec<StoryQuestion>,
}

/// A whole multi-agent story, validated.
#[derive(Debug, Clone)]
pub struct Story {
    parts: StoryParts,
}

impl Story {
    /// Checks `parts` and makes them a story: the world is consistent, agent names are
    /// unique and non-empty, every event names what the story has and can happen in turn,
    /// and every question is asked within the story, has two or more options naming the
    /// story's agents, objects and furniture, and expects one of them.
    ///
    /// # Errors
    /// The first problem, as [`EpisodeError`] with the path of the part at fault in the
    /// terms of the file (`events[3]`, `questions[0].options[1].belief.of[0]`);
    /// [`EpisodeError::ImpossibleEvent`] for an event that cannot happen.
    pub fn new(parts: StoryParts) -> Result<Story, EpisodeError> {
        check::parts(&parts)?;
        Ok(Story { parts })
    }

    /// The parts, to change and check again with [`Story::new`].
    pub fn into_parts(self) -> StoryParts {
        self.parts
    }

    /// Identifier.
    pub fn id(&self) -> &str {
        &self.parts.id
    }

    /// Free text for people.
    pub fn description(&self) -> Option<&str> {
        self.parts.description.as_deref()
    }

    /// Labels for reports ("length", "deception", ...); never read by inference.
    pub fn tags(&self) -> &BTreeMap<String, String> {
        &self.parts.tags
    }

    /// Rooms, containers and objects, placed as at the start.
    pub fn world(&self) -> &World {
        &self.parts.world
    }

    /// The agents, indexed by [`AgentId`].
    pub fn agents(&self) -> &[StoryAgent] {
        &self.parts.agents
    }

    /// The agent called `name`.
    pub fn agent_by_name(&self, name: &str) -> Option<AgentId> {
        agent_by_name(&self.parts.agents, name)
    }

    /// The name of `agent`.
    ///
    /// # Panics
    /// If `agent` is not one of the story's.
    pub fn agent_name(&self, agent: AgentId) -> &str {
        &self.parts.agents[agent.index()].name
    }

    /// What happens, in order.
    pub fn events(&self) -> &[Event] {
        &self.parts.events
    }

    /// Questions about the story, in order.
    pub fn questions(&self) -> &[StoryQuestion] {
        &self.parts.questions
    }

    /// Whether anyone tells anyone anything (the story has claims, true or false).
    pub fn has_claims(&self) -> bool {
        self.events()
            .iter()
            .any(|e| matches!(e, Event::Claim { .. }))
    }

    /// The state before any event.
    pub fn initial_state(&self) -> StoryState {
        StoryState::initial(self.world(), self.agents())
    }

    /// The states before and after each event: `events().len() + 1` states.
    pub fn states(&self) -> Vec<StoryState> {
        let mut state = self.initial_state();
        let mut states = vec![state.clone()];
        for event in self.events() {
            if state.apply(self.world(), event).is_err() {
                unreachable!("story events are validated when the story is built");
            }
            states.push(state.clone());
        }
        states
    }
}

/// The agent of `agents` called `name`.
pub(crate) fn agent_by_name(agents: &[StoryAgent], name: &str) -> Option<AgentId> {
    agents.iter().position(|a| a.name == name).map(AgentId::new)
}
