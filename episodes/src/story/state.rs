//! The changing state of a story: who is in which room, where every object is, and the
//! order in which agents last left a room.

use crate::ids::{AgentId, FurnitureId, ObjectId, RoomId};
use crate::world::World;

use super::{Event, StoryAgent};

/// Who is where and where everything is, at one moment of a story.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoryState {
    /// The room each agent is in (indexed by agent); `None` while in no room.
    pub agent_room: Vec<Option<RoomId>>,
    /// Where each object is (indexed by object).
    pub object_at: Vec<FurnitureId>,
    /// When each agent last left a room: the position of that exit among the events;
    /// `None` if it has not left one. Everyone knows this order.
    pub last_exit: Vec<Option<usize>>,
    /// Events applied so far.
    pub steps: usize,
}

/// Why an event cannot happen in a state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoryImpossible {
    /// Entering the room the agent is already in.
    AlreadyIn(AgentId, RoomId),
    /// Leaving a room the agent is not in.
    NotIn(AgentId, RoomId),
    /// Moving an object while in no room.
    Outside(AgentId),
    /// Moving an object that is in another room than the mover.
    ObjectElsewhere(ObjectId, RoomId),
    /// Moving an object into a container of another room than the mover's.
    ContainerElsewhere(FurnitureId, RoomId),
    /// A private claim to oneself.
    ToSelf(AgentId),
}

impl StoryImpossible {
    /// A sentence naming the cause, with the story's names.
    ///
    /// # Panics
    /// If the cause names something the story does not have.
    pub fn describe(&self, world: &World, agents: &[StoryAgent]) -> String {
        let agent = |a: &AgentId| agents[a.index()].name.clone();
        let room = |r: &RoomId| world.room(*r).name.clone();
        match self {
            Self::AlreadyIn(a, r) => format!("{} is already in {}", agent(a), room(r)),
            Self::NotIn(a, r) => format!("{} is not in {}", agent(a), room(r)),
            Self::Outside(a) => format!("{} is in no room", agent(a)),
            Self::ObjectElsewhere(o, r) => format!(
                "{} is in another room than the mover ({})",
                world.object(*o).name,
                room(r)
            ),
            Self::ContainerElsewhere(f, r) => format!(
                "{} is in another room than the mover ({})",
                world.furniture(*f).name,
                room(r)
            ),
            Self::ToSelf(a) => format!("{} tells itself", agent(a)),
        }
    }
}

impl StoryState {
    /// The state before any event: agents in their starting rooms (or none), objects
    /// where the world puts them.
    pub fn initial(world: &World, agents: &[StoryAgent]) -> Self {
        Self {
            agent_room: agents.iter().map(|a| a.start).collect(),
            object_at: world.objects.iter().map(|o| o.start).collect(),
            last_exit: vec![None; agents.len()],
            steps: 0,
        }
    }

    /// The room `object` is in now.
    ///
    /// # Panics
    /// If `object` is not an object of `world`, the world the state is of.
    pub fn object_room(&self, world: &World, object: ObjectId) -> RoomId {
        world.furniture(self.object_at[object.index()]).room
    }

    /// Whether every agent of `agents` is in `room` (true of no agents).
    ///
    /// # Panics
    /// If an agent is not one of the story's.
    pub fn all_in(&self, agents: &[AgentId], room: RoomId) -> bool {
        agents
            .iter()
            .all(|a| self.agent_room[a.index()] == Some(room))
    }

    /// Who hears `event`: a private claim's listener, or everyone in a public claim's
    /// speaker's room but the speaker; no one for other events.
    pub fn hearers(&self, event: &Event) -> Vec<AgentId> {
        match *event {
            Event::Claim {
                listener: Some(l), ..
            } => vec![l],
            Event::Claim {
                speaker,
                listener: None,
                ..
            } => match self.agent_room.get(speaker.index()).copied().flatten() {
                Some(room) => (0..self.agent_room.len())
                    .map(AgentId::new)
                    .filter(|&a| a != speaker && self.agent_room[a.index()] == Some(room))
                    .collect(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Whether `a` last left a room after `b` did (an agent that never left one left
    /// before everyone who did).
    ///
    /// # Panics
    /// If either is not one of the story's agents.
    pub fn left_later(&self, a: AgentId, b: AgentId) -> bool {
        self.last_exit[a.index()] > self.last_exit[b.index()]
    }

    /// Checks that `event` can happen now, without changing anything.
    ///
    /// # Panics
    /// If the event names something the story (whose state this is) does not have.
    pub fn check(&self, world: &World, event: &Event) -> Result<(), StoryImpossible> {
        let room_of = |a: AgentId| self.agent_room[a.index()];
        match *event {
            Event::Enter { agent, room } if room_of(agent) == Some(room) => {
                Err(StoryImpossible::AlreadyIn(agent, room))
            }
            Event::Exit { agent, room } if room_of(agent) != Some(room) => {
                Err(StoryImpossible::NotIn(agent, room))
            }
            Event::Move { agent, object, to } => {
                let here = room_of(agent).ok_or(StoryImpossible::Outside(agent))?;
                if self.object_room(world, object) != here {
                    return Err(StoryImpossible::ObjectElsewhere(object, here));
                }
                if world.furniture(to).room != here {
                    return Err(StoryImpossible::ContainerElsewhere(to, here));
                }
                Ok(())
            }
            Event::Claim {
                speaker,
                listener: Some(l),
                ..
            } if l == speaker => Err(StoryImpossible::ToSelf(speaker)),
            _ => Ok(()),
        }
    }

    /// Applies `event`, or says why it cannot happen (the state is then unchanged).
    ///
    /// # Errors
    /// As [`StoryState::check`].
    ///
    /// # Panics
    /// As [`StoryState::check`].
    pub fn apply(&mut self, world: &World, event: &Event) -> Result<(), StoryImpossible> {
        self.check(world, event)?;
        match *event {
            Event::Enter { agent, room } => self.agent_room[agent.index()] = Some(room),
            Event::Exit { agent, .. } => {
                self.agent_room[agent.index()] = None;
                self.last_exit[agent.index()] = Some(self.steps);
            }
            Event::Move { object, to, .. } => self.object_at[object.index()] = to,
            Event::Claim { .. } => {}
        }
        self.steps += 1;
        Ok(())
    }
}
