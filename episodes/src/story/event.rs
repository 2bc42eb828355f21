//! What happens in a story: agents enter and leave rooms, move objects, and claim where
//! objects are.

use crate::ids::{AgentId, FurnitureId, ObjectId, RoomId};
use crate::world::World;

use super::StoryAgent;

/// One event of a [`Story`](crate::Story).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// The agent goes into a room (leaving the one it was in, if any). While there it
    /// witnesses everything in the room.
    Enter {
        /// Who.
        agent: AgentId,
        /// Where to.
        room: RoomId,
    },
    /// The agent leaves the room it is in for no room; it stops witnessing the room.
    Exit {
        /// Who.
        agent: AgentId,
        /// The room it leaves (the one it is in).
        room: RoomId,
    },
    /// The agent moves an object, in its room, into a container of its room.
    Move {
        /// Who.
        agent: AgentId,
        /// What.
        object: ObjectId,
        /// Where to.
        to: FurnitureId,
    },
    /// The speaker says that the object is at `place`: to one listener (private), or to
    /// everyone in the speaker's room (public, `listener: None`). A claim may be false;
    /// it changes nothing in the world, and nothing in the speaker's own belief.
    Claim {
        /// Who speaks.
        speaker: AgentId,
        /// What the claim is about.
        object: ObjectId,
        /// Where the speaker says it is.
        place: FurnitureId,
        /// The one listener of a private claim; `None` for a public one.
        listener: Option<AgentId>,
    },
}

impl Event {
    /// A short human-readable form, e.g. `Ann moves potato to red_box`.
    ///
    /// # Panics
    /// If the event names an agent, room, object or furniture the story does not have.
    pub fn describe(&self, world: &World, agents: &[StoryAgent]) -> String {
        let name = |a: AgentId| agents[a.index()].name.as_str();
        let place = |f: FurnitureId| world.furniture(f).name.as_str();
        match *self {
            Event::Enter { agent, room } => {
                format!("{} enters {}", name(agent), world.room(room).name)
            }
            Event::Exit { agent, room } => {
                format!("{} leaves {}", name(agent), world.room(room).name)
            }
            Event::Move { agent, object, to } => format!(
                "{} moves {} to {}",
                name(agent),
                world.object(object).name,
                place(to)
            ),
            Event::Claim {
                speaker,
                object,
                place: at,
                listener,
            } => {
                let to = listener.map_or_else(|| "everyone".to_string(), |l| name(l).to_string());
                format!(
                    "{} tells {to}: {} is in {}",
                    name(speaker),
                    world.object(object).name,
                    place(at)
                )
            }
        }
    }

    /// The agents the event names, in order (mover, speaker, listener).
    pub fn agents(&self) -> Vec<AgentId> {
        match *self {
            Event::Enter { agent, .. } | Event::Exit { agent, .. } | Event::Move { agent, .. } => {
                vec![agent]
            }
            Event::Claim {
                speaker, listener, ..
            } => std::iter::once(speaker).chain(listener).collect(),
        }
    }
}
