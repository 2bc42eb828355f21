//! An episode: a world, an agent, what it did, and what is asked about it.

use crate::action::Action;
use crate::ids::{ClassId, FurnitureId, RoomId};
use crate::question::Question;
use crate::state::State;
use crate::world::World;

/// The acting agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    /// Its name, as used in questions ("Mark").
    pub name: String,
    /// The room it starts in.
    pub start: RoomId,
    /// The object classes it may be after; `None` means every class in the world.
    pub goal_candidates: Option<Vec<ClassId>>,
}

/// A whole episode, validated: every id resolved and every action possible in turn.
#[derive(Debug, Clone)]
pub struct Episode {
    /// Identifier (file name stem when the file has none).
    pub id: String,
    /// Free text for people.
    pub description: Option<String>,
    /// Rooms, furniture and objects, placed as in the first reading.
    pub world: World,
    /// Where every object starts (indexed by object) in each other reading of a source
    /// that allows several worlds; empty when there is one. Every reading admits the
    /// actions (checked when the episode is built).
    pub alternatives: Vec<Vec<FurnitureId>>,
    /// The agent.
    pub agent: Agent,
    /// What the agent did, in order.
    pub actions: Vec<Action>,
    /// Questions about the agent.
    pub questions: Vec<Question>,
}

impl Episode {
    /// The state before any action.
    pub fn initial_state(&self) -> State {
        State::initial(&self.world, self.agent.start)
    }

    /// The states before and after each action: `actions.len() + 1` states.
    ///
    /// Actions were checked when the episode was built, so replay cannot fail.
    pub fn states(&self) -> Vec<State> {
        let mut state = self.initial_state();
        let mut states = Vec::with_capacity(self.actions.len() + 1);
        states.push(state.clone());
        for action in &self.actions {
            // Validated at construction; an impossible action here would be a bug.
            if state.apply(&self.world, action).is_err() {
                unreachable!("episode actions are validated when the episode is built");
            }
            states.push(state.clone());
        }
        states
    }

    /// Every reading of the episode, the first as written: the same episode with the
    /// objects placed as that reading says and no alternatives of its own.
    pub fn readings(&self) -> Vec<Episode> {
        let first = Episode {
            alternatives: Vec::new(),
            ..self.clone()
        };
        let mut readings = vec![first.clone()];
        for starts in &self.alternatives {
            let mut reading = first.clone();
            for (object, &start) in reading.world.objects.iter_mut().zip(starts) {
                object.start = start;
            }
            readings.push(reading);
        }
        readings
    }

    /// The classes the agent may be after.
    pub fn goal_candidates(&self) -> Vec<ClassId> {
        match &self.agent.goal_candidates {
            Some(classes) => classes.clone(),
            None => self.world.class_ids().collect(),
        }
    }
}
