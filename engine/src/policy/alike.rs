//! Situations of one step that the planner scores alike, found so that each is scored
//! once.
//!
//! At a step every hypothesis shares the world, the state and what was seen; they differ
//! in the goal and in the belief about the goal's class. The planner reads the goal in
//! two places only: whether the agent holds an object of that class, and whether a
//! grab it could make now takes one. Where neither holds, two hypotheses with the same
//! belief score every action alike whatever their goals — and the classes the agent has
//! seen nothing of keep the same beliefs step after step, so a step of a few hundred
//! hypotheses holds far fewer distinct situations.

use std::collections::HashMap;

use bip_episodes::{Action, ClassId};

use super::Situation;
use crate::belief::{mix_hash, Belief};

/// The situations of a step grouped by how the planner scores them.
pub(super) struct Alike {
    /// For each situation, the index of the one scored in its stead (itself, or an
    /// earlier one), so every group's first member is its representative.
    pub(super) scored_as: Vec<usize>,
    /// The representatives, in order.
    pub(super) representatives: Vec<usize>,
}

impl Alike {
    /// Groups `situations`, all of one step (one world and state, whose possible actions
    /// are `actions`).
    pub(super) fn group(situations: &[Situation<'_>], actions: &[Action]) -> Self {
        let Some(first) = situations.first() else {
            return Self {
                scored_as: Vec::new(),
                representatives: Vec::new(),
            };
        };
        let (world, state) = (first.world, first.state);
        // The classes the goal matters for at this state: held, or grabbable here.
        let mut matters: Vec<ClassId> = state
            .held()
            .chain(actions.iter().filter_map(|a| match *a {
                Action::Grab(o) => Some(o),
                _ => None,
            }))
            .map(|o| world.object(o).class)
            .collect();
        matters.sort_unstable();
        matters.dedup();
        let goal_part = |s: &Situation<'_>| matters.binary_search(&s.goal).ok().map(|_| s.goal);
        // Each fingerprint's first representative, and after each representative the next
        // of its fingerprint: the buckets as chains, without a vector for every bucket.
        let mut heads: HashMap<u64, usize> = HashMap::with_capacity(situations.len());
        let mut next: Vec<Option<usize>> = vec![None; situations.len()];
        let mut scored_as = Vec::with_capacity(situations.len());
        let mut representatives = Vec::new();
        for (i, s) in situations.iter().enumerate() {
            let goal = goal_part(s);
            let key = fingerprint(goal, s.belief);
            let (mut candidate, mut last) = (heads.get(&key).copied(), None);
            while let Some(r) = candidate {
                if goal_part(&situations[r]) == goal && reads_alike(situations[r].belief, s.belief)
                {
                    break;
                }
                (candidate, last) = (next[r], Some(r));
            }
            if let Some(r) = candidate {
                scored_as.push(r);
                continue;
            }
            match last {
                Some(l) => next[l] = Some(i),
                None => {
                    heads.insert(key, i);
                }
            }
            representatives.push(i);
            scored_as.push(i);
        }
        Self {
            scored_as,
            representatives,
        }
    }
}

/// Whether the planner reads `a` and `b` alike: the same known places and the same
/// probabilities. Which places a belief considers (what the agent is taken to think, for
/// questions) it does not read, so beliefs that differ only there are scored once.
fn reads_alike(a: &Belief, b: &Belief) -> bool {
    a.known() == b.known() && a.weights() == b.weights()
}

/// A hash of what the planner reads of a situation beyond the step: the goal where it
/// matters, and the belief ([`Belief::reading`]).
fn fingerprint(goal: Option<ClassId>, belief: &Belief) -> u64 {
    let goal = goal.map_or(u64::MAX, |g| g.index() as u64);
    mix_hash(belief.reading(), goal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{PlannerPolicy, Policy};
    use crate::sightings::Sightings;
    use bip_episodes::{Episode, Place, State};

    fn episode() -> Episode {
        Episode::from_json(
            r#"{"format": "bip-episode/1",
                "world": {"rooms": ["kitchen", "hall"],
                  "furniture": [
                    {"id": "fridge", "room": "kitchen", "kind": "container"},
                    {"id": "table", "room": "kitchen", "kind": "surface"},
                    {"id": "shelf", "room": "hall", "kind": "surface"}],
                  "objects": [{"id": "salmon_1", "at": "fridge"}, {"id": "book_1", "at": "table"},
                              {"id": "apple_1", "at": "shelf"}]},
                "agent": {"name": "A", "start": "hall"}}"#,
            "t",
        )
        .expect("valid")
    }

    #[test]
    fn goals_that_change_nothing_are_scored_once_and_alike_bit_for_bit() {
        let e = episode();
        let world = e.world();
        let class = |name: &str| world.class_by_name(name).expect("class");
        let fridge = world.furniture_by_name("fridge").expect("fridge");
        let table = world.furniture_by_name("table").expect("table");
        let (uniform, there) = (Belief::uniform(3), Belief::thinks_at(fridge, 3, 0.05));
        let seen = Sightings::none();
        let planner = PlannerPolicy::default();
        let at_start = e.initial_state();
        let mut at_table = e.initial_state();
        at_table
            .apply(world, &Action::WalkTo(Place::Furniture(table)))
            .expect("walk");
        let goals = ["salmon", "book", "salmon", "book", "apple"];
        let beliefs = [&uniform, &uniform, &there, &there, &uniform];
        let step = |state: &State, action: Action, groups: usize| {
            let situations: Vec<Situation<'_>> = goals
                .iter()
                .zip(beliefs)
                .map(|(goal, belief)| Situation {
                    world,
                    state,
                    goal: class(goal),
                    belief,
                    seen,
                })
                .collect();
            let actions = state.possible_actions(world);
            let alike = Alike::group(&situations, &actions);
            assert_eq!(alike.representatives.len(), groups);
            let together = planner.log_probs(&situations, &action).expect("scores");
            for (s, score) in situations.iter().zip(&together) {
                assert_eq!(planner.log_prob(s, &action).to_bits(), score.to_bits());
            }
        };
        // In the hall (the apple on the shelf is not within reach): one situation per belief.
        step(&at_start, Action::WalkTo(Place::Furniture(fridge)), 2);
        // At the table, the book can be grabbed: wanting it is a situation of its own.
        let grab = Action::Grab(world.object_by_name("book_1").expect("book"));
        step(&at_table, grab, 4);
    }
}
