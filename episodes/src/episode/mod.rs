//! An episode: a world, an agent, what it did, and what is asked about it.
//!
//! Only valid episodes exist: every id resolved, every action possible in turn, every
//! question asked within the episode. They are read ([`Episode::from_json`],
//! [`Episode::from_file`]) or built from typed parts ([`Episode::new`]), both checking
//! everything, and read through accessors.

use crate::action::Action;
use crate::error::EpisodeError;
use crate::ids::{ClassId, FurnitureId, RoomId};
use crate::question::Question;
use crate::state::State;
use crate::world::World;

pub(crate) mod check;

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

/// The parts of an episode, not yet checked: what [`Episode::new`] takes and
/// [`Episode::into_parts`] gives back.
#[derive(Debug, Clone)]
pub struct EpisodeParts {
    /// Identifier.
    pub id: String,
    /// Free text for people.
    pub description: Option<String>,
    /// Rooms, furniture and objects, placed as in the first reading.
    pub world: World,
    /// Where every object starts (indexed by object) in each other reading; empty when
    /// there is one.
    pub alternatives: Vec<Vec<FurnitureId>>,
    /// The agent.
    pub agent: Agent,
    /// What the agent did, in order.
    pub actions: Vec<Action>,
    /// Questions about the agent.
    pub questions: Vec<Question>,
}

/// A whole episode, validated: every id resolved and every action possible in turn.
///
/// It holds its parts, checked, and lends them out through read-only accessors.
#[derive(Debug, Clone)]
pub struct Episode {
    parts: EpisodeParts,
}

impl Episode {
    /// Checks `parts` and makes them an episode: the world is consistent (every id in it
    /// names something it has, names are unique, only containers open, the layout is
    /// over its rooms and furniture), the agent starts in one of its rooms and wants
    /// classes it has, every action is possible in turn in every reading, and every
    /// question is asked within the episode, has two or more options whose claims name
    /// classes and furniture of the world, and expects one of them.
    ///
    /// # Errors
    /// The first problem, as [`EpisodeError`] with the path of the part at fault in the
    /// terms of the episode file (`actions[3]`, `questions[0].options[1]`):
    /// [`EpisodeError::ForeignId`] for an id the world does not have,
    /// [`EpisodeError::ImpossibleAction`] for an action that cannot happen, otherwise as
    /// [`Episode::from_file`].
    pub fn new(parts: EpisodeParts) -> Result<Episode, EpisodeError> {
        check::parts(&parts)?;
        Ok(Self::from_valid_parts(parts))
    }

    /// An episode of parts the caller has already checked (the file reader, which
    /// checks while it resolves names, and [`Episode::readings`]).
    pub(crate) fn from_valid_parts(parts: EpisodeParts) -> Episode {
        Episode { parts }
    }

    /// The parts of the episode, to change and check again with [`Episode::new`].
    pub fn into_parts(self) -> EpisodeParts {
        self.parts
    }

    /// Identifier (the file name stem when the file has none).
    pub fn id(&self) -> &str {
        &self.parts.id
    }

    /// Free text for people.
    pub fn description(&self) -> Option<&str> {
        self.parts.description.as_deref()
    }

    /// Rooms, furniture and objects, placed as in the first reading.
    pub fn world(&self) -> &World {
        &self.parts.world
    }

    /// Where every object starts (indexed by object) in each other reading of a source
    /// that allows several worlds; empty when there is one. Every reading admits the
    /// actions.
    pub fn alternatives(&self) -> &[Vec<FurnitureId>] {
        &self.parts.alternatives
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.parts.agent
    }

    /// What the agent did, in order.
    pub fn actions(&self) -> &[Action] {
        &self.parts.actions
    }

    /// Questions about the agent, in order.
    pub fn questions(&self) -> &[Question] {
        &self.parts.questions
    }

    /// The state before any action.
    pub fn initial_state(&self) -> State {
        State::initial(self.world(), self.agent().start)
    }

    /// The states before and after each action: `actions().len() + 1` states.
    ///
    /// Actions were checked when the episode was built, so replay cannot fail.
    pub fn states(&self) -> Vec<State> {
        let mut state = self.initial_state();
        let mut states = Vec::with_capacity(self.actions().len() + 1);
        states.push(state.clone());
        for action in self.actions() {
            // Validated at construction; an impossible action here would be a bug.
            if state.apply(self.world(), action).is_err() {
                unreachable!("episode actions are validated when the episode is built");
            }
            states.push(state.clone());
        }
        states
    }

    /// Every reading of the episode, the first as written: the same episode with the
    /// objects placed as that reading says and no alternatives of its own.
    pub fn readings(&self) -> Vec<Episode> {
        let first = EpisodeParts {
            alternatives: Vec::new(),
            ..self.parts.clone()
        };
        let mut readings = vec![Episode::from_valid_parts(first.clone())];
        for starts in self.alternatives() {
            let mut reading = first.clone();
            for (object, &start) in reading.world.objects.iter_mut().zip(starts) {
                object.start = start;
            }
            readings.push(Episode::from_valid_parts(reading));
        }
        readings
    }

    /// The classes the agent may be after.
    pub fn goal_candidates(&self) -> Vec<ClassId> {
        match &self.agent().goal_candidates {
            Some(classes) => classes.clone(),
            None => self.world().class_ids().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ObjectId;
    use crate::layout::Place;

    fn episode() -> Episode {
        Episode::from_json(
            r#"{"format": "bip-episode/1",
                "world": {"rooms": ["kitchen", "hall"],
                  "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
                                {"id": "shelf", "room": "hall", "kind": "surface"}],
                  "objects": [{"id": "apple_1", "at": "fridge"}, {"id": "book_1", "at": "shelf"}]},
                "agent": {"name": "A", "start": "hall"},
                "actions": [{"walk_to": "fridge"}, {"open": "fridge"}],
                "questions": [{"options": [{"goal": "apple"}, {"goal": "book"}], "expected": "a"}]}"#,
            "t",
        )
        .expect("valid")
    }

    #[test]
    fn parts_make_the_same_episode_again() {
        let e = episode();
        let again = Episode::new(e.clone().into_parts()).expect("valid parts");
        assert_eq!(again.to_json(), e.to_json());
    }

    #[test]
    fn parts_with_foreign_ids_or_impossible_actions_are_refused() {
        let mut parts = episode().into_parts();
        parts.actions.push(Action::Grab(ObjectId::new(7)));
        assert_eq!(
            Episode::new(parts).unwrap_err(),
            EpisodeError::ForeignId {
                field: "actions[2].grab".into(),
                kind: "object",
                index: 7
            }
        );
        let mut parts = episode().into_parts();
        parts
            .actions
            .push(Action::WalkTo(Place::Room(RoomId::new(1))));
        parts.actions.push(Action::Open(FurnitureId::new(0)));
        assert!(matches!(
            Episode::new(parts),
            Err(EpisodeError::ImpossibleAction { index: 3, .. })
        ));
        let mut parts = episode().into_parts();
        parts.questions[0].at = 5;
        assert!(matches!(
            Episode::new(parts),
            Err(EpisodeError::Invalid { field, .. }) if field == "questions[0].at"
        ));
        let mut parts = episode().into_parts();
        parts.alternatives.push(vec![FurnitureId::new(1)]);
        assert!(matches!(
            Episode::new(parts),
            Err(EpisodeError::Invalid { field, .. }) if field == "world.alternatives[0]"
        ));
        let mut parts = episode().into_parts();
        parts.actions.push(Action::Grab(ObjectId::new(0)));
        Episode::new(parts.clone()).expect("the apple is in the open fridge");
        parts
            .alternatives
            .push(vec![FurnitureId::new(1), FurnitureId::new(1)]);
        assert!(matches!(
            Episode::new(parts),
            Err(EpisodeError::Reading { index: 0, .. })
        ));
    }

    #[test]
    fn a_walk_to_an_object_must_hold_in_every_reading() {
        // In the second reading the book starts on the shelf: the walk to it, resolved in
        // the first reading, goes to the table, where the book then is not.
        let text = r#"{"format": "bip-episode/1",
            "world": {"rooms": ["kitchen"],
              "furniture": [{"id": "table", "room": "kitchen", "kind": "surface"},
                            {"id": "shelf", "room": "kitchen", "kind": "surface"}],
              "objects": [{"id": "book_1", "at": "table"}],
              "alternatives": [{"objects": {"book_1": "shelf"}}]},
            "agent": {"name": "A", "start": "kitchen"},
            "actions": [{"walk_to": "book_1"}, {"grab": "book_1"}]}"#;
        let e = Episode::from_json(text, "t").unwrap_err();
        assert!(matches!(e, EpisodeError::Reading { index: 0, .. }), "{e}");
    }
}
