//! The symbolic Boltzmann-rational belief-space planner.
//!
//! The agent is modelled as choosing each action `a` with probability
//! `P(a) ∝ exp(β · Q(a))`, where `Q(a) = −(cost(a) + V(s′))`, and `V` is the expected cost
//! of getting the goal object from the resulting state under the agent's *belief* (not the
//! truth). β is the rationality: 0 is a random agent, large β an optimal one.
//!
//! `V` is a one-step-lookahead search cost:
//! - holding an object of the goal class: 0;
//! - knowing places that hold one: walk to the nearest, open it if closed, grab;
//! - otherwise, with `p` the belief over unseen places: pick the first place ℓ to search
//!   and pay the walk there, its opening, and — should it be empty — the expected walk from
//!   ℓ to wherever the object then is under `p` without ℓ:
//!   `V = grab + min_ℓ [d(s, ℓ) + open(ℓ) + Σ_{ℓ′≠ℓ} p(ℓ′)(d(ℓ, ℓ′) + open(ℓ′))]`.
//!
//! Opening a container is valued by its expected outcome: with probability `p(ℓ)` the
//! object is there (grab), otherwise the search goes on with ℓ ruled out. Once the agent
//! holds the goal object the goal no longer explains anything, and every possible action is
//! equally likely.

use bip_episodes::{Action, FurnitureId, FurnitureKind, Place};

use super::{Policy, Situation};
use crate::error::EngineError;
use crate::logprob::log_sum_exp;

/// Costs of the non-walking actions, in units of walking distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActionCosts {
    /// Opening a container.
    pub open: f64,
    /// Closing a container.
    pub close: f64,
    /// Grabbing an object.
    pub grab: f64,
    /// Putting an object down.
    pub put: f64,
}

impl Default for ActionCosts {
    fn default() -> Self {
        Self {
            open: 1.0,
            close: 0.5,
            grab: 0.5,
            put: 0.5,
        }
    }
}

/// The default rationality β: a detour of one unit of walking makes an action about
/// e³ ≈ 20 times less likely than the best one. The agents of MMToM-QA-style episodes
/// are planners with little noise, and β = 1 leaves short detours nearly as likely as
/// the direct way, so that beliefs barely show in actions.
pub const DEFAULT_BETA: f64 = 3.0;

/// A Boltzmann-rational planner over the belief about the goal's location.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannerPolicy {
    beta: f64,
    costs: ActionCosts,
}

impl Default for PlannerPolicy {
    fn default() -> Self {
        Self {
            beta: DEFAULT_BETA,
            costs: ActionCosts::default(),
        }
    }
}

impl PlannerPolicy {
    /// A planner with rationality `beta` and the default action costs.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] if `beta` is negative or not finite.
    pub fn new(beta: f64) -> Result<Self, EngineError> {
        Self::with_costs(beta, ActionCosts::default())
    }

    /// A planner with rationality `beta` and the given action costs.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] if `beta` or a cost is negative or not finite.
    pub fn with_costs(beta: f64, costs: ActionCosts) -> Result<Self, EngineError> {
        let check = |name: &'static str, value: f64| {
            if value.is_finite() && value >= 0.0 {
                Ok(())
            } else {
                Err(EngineError::InvalidParameter {
                    name,
                    value,
                    reason: "must be a finite number ≥ 0",
                })
            }
        };
        check("beta", beta)?;
        check("open cost", costs.open)?;
        check("close cost", costs.close)?;
        check("grab cost", costs.grab)?;
        check("put cost", costs.put)?;
        Ok(Self { beta, costs })
    }

    /// The rationality β.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Q-values of every possible action in the situation, in
    /// [`State::possible_actions`](bip_episodes::State::possible_actions) order.
    pub fn action_values(&self, situation: &Situation<'_>) -> Vec<(Action, f64)> {
        let search = Search::new(self, situation);
        situation
            .state
            .possible_actions(situation.world)
            .into_iter()
            .map(|a| (a, search.q_value(&a)))
            .collect()
    }
}

impl Policy for PlannerPolicy {
    fn name(&self) -> &str {
        "planner"
    }

    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64 {
        let values = self.action_values(situation);
        let Some(chosen) = values.iter().position(|(a, _)| a == action) else {
            return f64::NEG_INFINITY;
        };
        if Search::holds_goal(situation) {
            return -(values.len() as f64).ln();
        }
        let scaled: Vec<f64> = values.iter().map(|(_, q)| self.beta * q).collect();
        scaled[chosen] - log_sum_exp(&scaled)
    }
}

/// The search cost model for one situation, with the belief's expected distances computed
/// once and shared by every action's value.
struct Search<'a> {
    planner: &'a PlannerPolicy,
    situation: &'a Situation<'a>,
    /// `expected_distance[ℓ] = Σ_ℓ′ p(ℓ′) d(ℓ, ℓ′)` over the unseen-place belief.
    expected_distance: Vec<f64>,
    holds_goal: bool,
}

impl<'a> Search<'a> {
    fn new(planner: &'a PlannerPolicy, situation: &'a Situation<'a>) -> Self {
        let world = situation.world;
        let weights = situation.belief.weights();
        let expected_distance = world
            .furniture_ids()
            .map(|l| {
                world
                    .furniture_ids()
                    .filter(|m| weights[m.index()] > 0.0)
                    .map(|m| weights[m.index()] * distance(situation, Place::Furniture(l), m))
                    .sum()
            })
            .collect();
        Self {
            planner,
            situation,
            expected_distance,
            holds_goal: Self::holds_goal(situation),
        }
    }

    fn holds_goal(situation: &Situation<'_>) -> bool {
        let world = situation.world;
        situation
            .state
            .held()
            .any(|o| world.object(o).class == situation.goal)
    }

    /// Cost of opening `place` if it is a closed container under `open`.
    fn open_cost(&self, place: FurnitureId, open: &[bool]) -> f64 {
        let closed = self.situation.world.furniture(place).kind == FurnitureKind::Container
            && !open[place.index()];
        if closed {
            self.planner.costs.open
        } else {
            0.0
        }
    }

    /// Expected cost to get the goal object from `at`, with containers open as in `open`,
    /// and `excluded` ruled out of the unseen-place belief.
    fn value(&self, at: Place, open: &[bool], excluded: Option<FurnitureId>) -> f64 {
        if self.holds_goal {
            return 0.0;
        }
        let belief = self.situation.belief;
        let grab = self.planner.costs.grab;
        if !belief.known().is_empty() {
            return grab
                + belief
                    .known()
                    .iter()
                    .map(|&l| distance(self.situation, at, l) + self.open_cost(l, open))
                    .fold(f64::INFINITY, f64::min);
        }
        let weights = belief.weights();
        let p_excluded = excluded.map_or(0.0, |f| weights[f.index()]);
        let rest = 1.0 - p_excluded;
        if rest <= 1e-12 {
            // Every place is ruled out: nothing to aim for, only the action costs differ.
            return 0.0;
        }
        let candidates = || {
            self.situation
                .world
                .furniture_ids()
                .filter(move |l| Some(*l) != excluded && weights[l.index()] > 0.0)
        };
        let expected_open: f64 = candidates()
            .map(|l| weights[l.index()] * self.open_cost(l, open))
            .sum::<f64>()
            / rest;
        let best = candidates()
            .map(|l| {
                let p = weights[l.index()] / rest;
                let mut onward = self.expected_distance[l.index()];
                if let Some(f) = excluded {
                    onward -= p_excluded * distance(self.situation, Place::Furniture(l), f);
                }
                let onward = onward / rest + expected_open - p * self.open_cost(l, open);
                distance(self.situation, at, l) + self.open_cost(l, open) + onward
            })
            .fold(f64::INFINITY, f64::min);
        if best.is_finite() {
            grab + best
        } else {
            0.0
        }
    }

    fn q_value(&self, action: &Action) -> f64 {
        let s = self.situation;
        let costs = &self.planner.costs;
        let here = s.state.place();
        let open = &s.state.open;
        let with_open = |f: FurnitureId, is_open: bool| {
            let mut open = open.clone();
            open[f.index()] = is_open;
            open
        };
        let cost_to_go = match *action {
            Action::WalkTo(p) => s.world.layout.distance(here, p) + self.value(p, open, None),
            Action::Open(f) => {
                let belief = s.belief;
                let after = with_open(f, true);
                let at = Place::Furniture(f);
                if belief.known().contains(&f) {
                    costs.open + costs.grab
                } else if !belief.known().is_empty() {
                    costs.open + self.value(at, &after, None)
                } else {
                    let p = belief.weights()[f.index()];
                    costs.open + p * costs.grab + (1.0 - p) * self.value(at, &after, Some(f))
                }
            }
            Action::Close(f) => {
                costs.close + self.value(Place::Furniture(f), &with_open(f, false), None)
            }
            Action::Grab(o) if s.world.object(o).class == s.goal => costs.grab,
            Action::Grab(_) => costs.grab + self.value(here, open, None),
            Action::Put { .. } => costs.put + self.value(here, open, None),
        };
        -cost_to_go
    }
}

fn distance(situation: &Situation<'_>, from: Place, to: FurnitureId) -> f64 {
    situation.world.layout.distance(from, Place::Furniture(to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::belief::Belief;
    use bip_episodes::{Episode, State};

    fn episode() -> Episode {
        Episode::from_json(
            r#"{"format": "bip-episode/1",
                "world": {"rooms": ["kitchen", "living_room", "bedroom"],
                  "doors": [["kitchen", "living_room"], ["living_room", "bedroom"]],
                  "furniture": [
                    {"id": "fridge", "room": "kitchen", "kind": "container"},
                    {"id": "cabinet", "room": "kitchen", "kind": "container"},
                    {"id": "desk", "room": "bedroom", "kind": "surface"}],
                  "objects": [{"id": "salmon_1", "at": "fridge"}, {"id": "book_1", "at": "desk"}]},
                "agent": {"name": "A", "start": "living_room"}}"#,
            "t",
        )
        .expect("valid")
    }

    fn log_prob(e: &Episode, state: &State, belief: &Belief, action: Action) -> f64 {
        let salmon = e.world.class_by_name("salmon").expect("class");
        let situation = Situation {
            world: &e.world,
            state,
            goal: salmon,
            belief,
        };
        PlannerPolicy::default().log_prob(&situation, &action)
    }

    #[test]
    fn heading_for_the_believed_place_beats_a_detour() {
        let e = episode();
        let fridge = e.world.furniture_by_name("fridge").expect("fridge");
        let state = e.initial_state();
        let belief = Belief::thinks_at(fridge, 3, 0.05);
        let kitchen = e.world.room_by_name("kitchen").expect("room");
        let bedroom = e.world.room_by_name("bedroom").expect("room");
        let toward = log_prob(&e, &state, &belief, Action::WalkTo(Place::Room(kitchen)));
        let detour = log_prob(&e, &state, &belief, Action::WalkTo(Place::Room(bedroom)));
        assert!(toward > detour + 1.0, "toward {toward} vs detour {detour}");
    }

    #[test]
    fn the_same_walk_is_likelier_under_the_belief_it_serves() {
        let e = episode();
        let fridge = e.world.furniture_by_name("fridge").expect("fridge");
        let desk = e.world.furniture_by_name("desk").expect("desk");
        let state = e.initial_state();
        let walk = Action::WalkTo(Place::Furniture(fridge));
        let right = log_prob(&e, &state, &Belief::thinks_at(fridge, 3, 0.05), walk);
        let wrong = log_prob(&e, &state, &Belief::thinks_at(desk, 3, 0.05), walk);
        assert!(right > wrong);
    }

    #[test]
    fn probabilities_over_possible_actions_sum_to_one() {
        let e = episode();
        let fridge = e.world.furniture_by_name("fridge").expect("fridge");
        let mut state = e.initial_state();
        state
            .apply(&e.world, &Action::WalkTo(Place::Furniture(fridge)))
            .expect("walk");
        let belief = Belief::uniform(3);
        let total: f64 = state
            .possible_actions(&e.world)
            .into_iter()
            .map(|a| log_prob(&e, &state, &belief, a).exp())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "sum {total}");
    }

    #[test]
    fn opening_is_likelier_where_the_object_is_believed() {
        let e = episode();
        let fridge = e.world.furniture_by_name("fridge").expect("fridge");
        let desk = e.world.furniture_by_name("desk").expect("desk");
        let mut state = e.initial_state();
        state
            .apply(&e.world, &Action::WalkTo(Place::Furniture(fridge)))
            .expect("walk");
        let open = Action::Open(fridge);
        let there = log_prob(&e, &state, &Belief::thinks_at(fridge, 3, 0.05), open);
        let elsewhere = log_prob(&e, &state, &Belief::thinks_at(desk, 3, 0.05), open);
        assert!(there > elsewhere);
    }

    #[test]
    fn rejects_invalid_beta() {
        assert!(PlannerPolicy::new(f64::NAN).is_err());
        assert!(PlannerPolicy::new(-1.0).is_err());
        assert!(PlannerPolicy::new(0.0).is_ok());
    }
}
