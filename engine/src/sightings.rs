//! What the agent has seen so far in an episode: each place it has looked into, with the
//! objects it saw there the last time it looked.
//!
//! Beliefs keep only what an observation says about one class; a language-model policy
//! may also be shown the whole record (what else was in the cabinet it opened), which
//! the hypotheses do not change.

use bip_episodes::{FurnitureId, ObjectId, Observation, State, World};

/// Places the agent has seen, in the order it first saw them, each with the objects it
/// saw there last (in id order; empty when the place held nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sightings {
    places: Vec<(FurnitureId, Vec<ObjectId>)>,
}

/// The record of an agent that has seen nothing, for callers with no history to give.
static NOTHING_SEEN: Sightings = Sightings { places: Vec::new() };

impl Sightings {
    /// A record of nothing seen, for situations built without a history (a planner
    /// reads none).
    pub fn none() -> &'static Sightings {
        &NOTHING_SEEN
    }

    /// The record of an agent that passed through `states` in order, seeing in each what
    /// [`State::observe`] says.
    pub fn of_states<'s>(world: &World, states: impl IntoIterator<Item = &'s State>) -> Self {
        let mut sightings = Self::default();
        for state in states {
            sightings.record(&state.observe(world));
        }
        sightings
    }

    /// Adds what one observation shows: every place in view now holds what is seen in
    /// it; a place seen before keeps its first position.
    pub fn record(&mut self, observation: &Observation) {
        for &place in &observation.visible {
            let objects: Vec<ObjectId> = observation
                .seen
                .iter()
                .filter(|&&(_, at)| at == place)
                .map(|&(object, _)| object)
                .collect();
            match self.places.iter_mut().find(|(seen, _)| *seen == place) {
                Some((_, held)) => *held = objects,
                None => self.places.push((place, objects)),
            }
        }
    }

    /// Places seen, first seen first, with what each held when last seen.
    pub fn places(&self) -> &[(FurnitureId, Vec<ObjectId>)] {
        &self.places
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip_episodes::{Action, Episode, Place};

    fn episode() -> Episode {
        Episode::from_json(
            r#"{"format": "bip-episode/1",
                "world": {"rooms": ["kitchen", "living_room"],
                  "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
                                {"id": "cabinet", "room": "kitchen", "kind": "container"},
                                {"id": "counter", "room": "kitchen", "kind": "surface"},
                                {"id": "sofa", "room": "living_room", "kind": "surface"}],
                  "objects": [{"id": "apple_1", "at": "fridge"},
                              {"id": "milk_1", "at": "fridge"},
                              {"id": "plate_1", "at": "counter"}]},
                "agent": {"name": "Ann", "start": "living_room"}}"#,
            "sightings",
        )
        .expect("valid episode")
    }

    #[test]
    fn places_keep_the_order_first_seen_and_the_contents_last_seen() {
        let episode = episode();
        let world = episode.world();
        let id = |name: &str| world.furniture_by_name(name).expect("furniture");
        let kitchen = world.room_by_name("kitchen").expect("room");
        let mut state = episode.initial_state();
        let mut states = vec![state.clone()];
        for action in [
            Action::WalkTo(Place::Room(kitchen)),
            Action::WalkTo(Place::Furniture(id("fridge"))),
            Action::Open(id("fridge")),
        ] {
            state.apply(world, &action).expect("possible");
            states.push(state.clone());
        }
        let sightings = Sightings::of_states(world, &states);
        let apple = world.object_by_name("apple_1").expect("apple");
        let milk = world.object_by_name("milk_1").expect("milk");
        let plate = world.object_by_name("plate_1").expect("plate");
        // The sofa from the start, the counter on entering the kitchen, the fridge once
        // opened; the closed cabinet never.
        assert_eq!(
            sightings.places(),
            &[
                (id("sofa"), vec![]),
                (id("counter"), vec![plate]),
                (id("fridge"), vec![apple, milk]),
            ]
        );
        // Taking the apple out changes what the fridge was last seen holding, not its place.
        state.apply(world, &Action::Grab(apple)).expect("possible");
        let mut later = sightings.clone();
        later.record(&state.observe(world));
        assert_eq!(later.places()[2], (id("fridge"), vec![milk]));
        assert_eq!(later.places()[..2], sightings.places()[..2]);
        assert!(Sightings::none().places().is_empty());
    }
}
