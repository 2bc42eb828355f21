//! The symbolic Boltzmann-rational belief-space planner.
//!
//! The agent is modelled as choosing among the possible actions — walking to any room or
//! piece of furniture, or opening, closing, grabbing or putting where it stands — with
//! probability `π(a) ∝ exp(β · Q(a))`, where `Q(a) = −(cost(a) + V(s′))`, and `V` is the
//! expected cost of getting the goal object from the resulting state under the agent's
//! *belief* (not the truth). β is the rationality: 0 is a random agent, large β an optimal
//! one.
//!
//! Walks are destinations, and an observed walk is a step toward one: narrations say
//! "goes to the kitchen, then to the stove", and a walk into the kitchen is as much a
//! choice of the stove as of the kitchen. So the likelihood of `walk_to X` is the total
//! probability of the destinations that X lies on a shortest path to (X among them). An
//! agent that thinks the salmon is in the fridge explains walking through the living room
//! on its way as fully as one that thinks it is on the living-room table.
//!
//! `V` is a one-step-lookahead search cost:
//! - holding an object of the goal class: 0;
//! - knowing places that hold one: walk to the nearest, open it if closed, grab;
//! - otherwise, with `p` the belief over unseen places: pick the first place ℓ to search
//!   and pay the walk there, its opening, and — should it be empty — the expected walk from
//!   ℓ to wherever the object then is under `p` without ℓ:
//!   `V = grab + min_ℓ [d(s, ℓ) + open(ℓ) + Σ_{ℓ′≠ℓ} p(ℓ′)(d(ℓ, ℓ′) + open(ℓ′))]`.
//!
//! Opening the container the agent stands at is valued as searching it first, with the
//! same estimate of the rest of the search. Once the agent
//! holds the goal object the goal no longer explains anything, and every possible action is
//! equally likely.

use bip_episodes::{Action, FurnitureId, FurnitureKind, Layout, Place};

use rayon::prelude::*;

use super::alike::Alike;
use super::by_room::{expected_distances, Nearest};
use super::{Policy, PolicyFailure, Situation};
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

/// The largest rationality β: far beyond any agent's (β = 30 already makes a detour of one
/// unit e³⁰ times less likely), and small enough that β times any walking cost of an
/// episode within its limits ([`bip_episodes::limits`]) stays finite, so that scores
/// never overflow into NaN.
pub const MAX_BETA: f64 = 1e6;

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
    /// [`EngineError::InvalidParameter`] if `beta` is not a number in [0, [`MAX_BETA`]].
    pub fn new(beta: f64) -> Result<Self, EngineError> {
        Self::with_costs(beta, ActionCosts::default())
    }

    /// A planner with rationality `beta` and the given action costs.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] if `beta` is not a number in [0, [`MAX_BETA`]]
    /// or a cost is negative or not finite.
    pub fn with_costs(beta: f64, costs: ActionCosts) -> Result<Self, EngineError> {
        check_beta(beta)?;
        let check = EngineError::check_non_negative;
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
        search.q_values(situation.state.possible_actions(situation.world))
    }
}

impl Policy for PlannerPolicy {
    fn name(&self) -> &str {
        "planner"
    }

    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64 {
        let (actions, values): (Vec<Action>, Vec<f64>) =
            self.action_values(situation).into_iter().unzip();
        let Some(chosen) = actions.iter().position(|a| a == action) else {
            return f64::NEG_INFINITY;
        };
        if Search::holds_goal(situation) {
            return -(actions.len() as f64).ln();
        }
        let scaled: Vec<f64> = values.iter().map(|q| self.beta * q).collect();
        log_choice(situation, &actions, &scaled, chosen)
    }

    /// Scores each group of situations the planner cannot tell apart (`Alike`) once:
    /// the same numbers, bit for bit, as scoring every one.
    fn log_probs(
        &self,
        situations: &[Situation<'_>],
        action: &Action,
    ) -> Result<Vec<f64>, PolicyFailure> {
        let alike = Alike::group(situations);
        let scores: Vec<f64> = alike
            .representatives
            .par_iter()
            .map(|&i| self.log_prob(&situations[i], action))
            .collect();
        let mut by_situation = vec![f64::NAN; situations.len()];
        for (&i, score) in alike.representatives.iter().zip(scores) {
            by_situation[i] = score;
        }
        Ok(alike.scored_as.iter().map(|&r| by_situation[r]).collect())
    }
}

/// log P(`actions[chosen]`) for a choice among `actions` with log weights `scores`: its
/// weight over all of theirs. A walk is a step toward a destination: it has the
/// probability of choosing any destination it lies on a shortest path to (itself
/// included). The planner's and the LM's choices ([`super::lm::ActionLikelihood`]) both.
pub(crate) fn log_choice(
    situation: &Situation<'_>,
    actions: &[Action],
    scores: &[f64],
    chosen: usize,
) -> f64 {
    let log_total = log_sum_exp(scores);
    let Action::WalkTo(via) = actions[chosen] else {
        return scores[chosen] - log_total;
    };
    let here = situation.state.place();
    let layout = &situation.world.layout;
    let toward: Vec<f64> = actions
        .iter()
        .zip(scores)
        .filter_map(|(a, &s)| match *a {
            Action::WalkTo(to) if on_the_way(layout, here, via, to) => Some(s),
            _ => None,
        })
        .collect();
    log_sum_exp(&toward) - log_total
}

/// `Ok` when `beta` is a rationality the planner accepts: a number in [0, [`MAX_BETA`]].
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming β otherwise.
pub fn check_beta(beta: f64) -> Result<(), EngineError> {
    if (0.0..=MAX_BETA).contains(&beta) {
        Ok(())
    } else {
        Err(EngineError::InvalidParameter {
            name: "beta",
            value: beta,
            reason: "must be a number between 0 and 1e6",
        })
    }
}

/// Whether `via` lies on a shortest path from `from` to `to`.
fn on_the_way(layout: &Layout, from: Place, via: Place, to: Place) -> bool {
    let detour = layout.distance(from, via) + layout.distance(via, to) - layout.distance(from, to);
    detour.abs() < 1e-9
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
        let expected_distance = expected_distances(&world.layout, situation.belief.weights());
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

    /// The per-place terms of the search cost with containers open as in `open`, each
    /// computed once (O(places)) and shared by every place `value` weighs.
    fn terms(&self, open: &[bool]) -> Terms {
        let world = self.situation.world;
        let weights = self.situation.belief.weights();
        let open_cost: Vec<f64> = world
            .furniture_ids()
            .map(|l| self.open_cost(l, open))
            .collect();
        let expected_open: f64 = world
            .furniture_ids()
            .map(|l| weights[l.index()] * open_cost[l.index()])
            .sum();
        let onward: Vec<f64> = world
            .furniture_ids()
            .map(|l| {
                let i = l.index();
                self.expected_distance[i] + expected_open - weights[i] * open_cost[i]
            })
            .collect();
        let nearest = Nearest::new(&world.layout, weights, &open_cost, &onward);
        Terms {
            open_cost,
            onward,
            nearest,
        }
    }

    /// Expected cost to get the goal object from `at`, with containers open as `terms`
    /// were computed for.
    fn value(&self, at: Place, terms: &Terms) -> f64 {
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
                    .map(|&l| distance(self.situation, at, l) + terms.open_cost[l.index()])
                    .fold(f64::INFINITY, f64::min);
        }
        let layout = &self.situation.world.layout;
        let weights = belief.weights();
        let best = terms
            .nearest
            .least(layout, at, weights, &terms.open_cost, &terms.onward);
        if best.is_finite() {
            grab + best
        } else {
            // Every place is ruled out: nothing to aim for, only the action costs differ.
            0.0
        }
    }

    /// Q-values of `actions`, the terms of the current state computed once.
    fn q_values(&self, actions: Vec<Action>) -> Vec<(Action, f64)> {
        let now = self.terms(&self.situation.state.open);
        actions
            .into_iter()
            .map(|a| (a, self.q_value(&a, &now)))
            .collect()
    }

    /// Q-value of `action`; `now` are the terms of the current state.
    fn q_value(&self, action: &Action, now: &Terms) -> f64 {
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
            Action::WalkTo(p) => s.world.layout.distance(here, p) + self.value(p, now),
            Action::Open(f) => {
                let belief = s.belief;
                let after = self.terms(&with_open(f, true));
                if belief.known().contains(&f) {
                    costs.open + costs.grab
                } else if !belief.known().is_empty() {
                    costs.open + self.value(Place::Furniture(f), &after)
                } else {
                    // Searching here first, with the same estimate of the rest of the
                    // search that `value` gives every other first place.
                    costs.open + costs.grab + after.onward[f.index()]
                }
            }
            Action::Close(f) => {
                let after = self.terms(&with_open(f, false));
                costs.close + self.value(Place::Furniture(f), &after)
            }
            Action::Grab(o) if s.world.object(o).class == s.goal => costs.grab,
            Action::Grab(_) => costs.grab + self.value(here, now),
            Action::Put { .. } => costs.put + self.value(here, now),
        };
        -cost_to_go
    }
}

/// The terms of the search cost that depend on which containers are open, per place:
/// what opening it costs, and the expected onward search should it be searched first
/// and found empty, `Σ_{ℓ′≠ℓ} p(ℓ′) (d(ℓ, ℓ′) + open(ℓ′))`.
struct Terms {
    open_cost: Vec<f64>,
    onward: Vec<f64>,
    /// The places to search first, indexed for [`Search::value`].
    nearest: Nearest,
}

fn distance(situation: &Situation<'_>, from: Place, to: FurnitureId) -> f64 {
    situation.world.layout.distance(from, Place::Furniture(to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::belief::Belief;
    use crate::sightings::Sightings;
    use bip_episodes::{Episode, State};

    /// The state once the agent walked from its start to the fridge, and the fridge.
    fn at_fridge(e: &Episode) -> (FurnitureId, State) {
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let mut state = e.initial_state();
        state
            .apply(e.world(), &Action::WalkTo(Place::Furniture(fridge)))
            .expect("walk");
        (fridge, state)
    }

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
        let salmon = e.world().class_by_name("salmon").expect("class");
        let situation = Situation {
            world: e.world(),
            state,
            goal: salmon,
            belief,
            seen: Sightings::none(),
        };
        PlannerPolicy::default().log_prob(&situation, &action)
    }

    #[test]
    fn heading_for_the_believed_place_beats_a_detour() {
        let e = episode();
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let state = e.initial_state();
        let belief = Belief::thinks_at(fridge, 3, 0.05);
        let kitchen = e.world().room_by_name("kitchen").expect("room");
        let bedroom = e.world().room_by_name("bedroom").expect("room");
        let toward = log_prob(&e, &state, &belief, Action::WalkTo(Place::Room(kitchen)));
        let detour = log_prob(&e, &state, &belief, Action::WalkTo(Place::Room(bedroom)));
        assert!(toward > detour + 1.0, "toward {toward} vs detour {detour}");
    }

    #[test]
    fn the_same_walk_is_likelier_under_the_belief_it_serves() {
        let e = episode();
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let desk = e.world().furniture_by_name("desk").expect("desk");
        let state = e.initial_state();
        let walk = Action::WalkTo(Place::Furniture(fridge));
        let right = log_prob(&e, &state, &Belief::thinks_at(fridge, 3, 0.05), walk);
        let wrong = log_prob(&e, &state, &Belief::thinks_at(desk, 3, 0.05), walk);
        assert!(right > wrong);
    }

    #[test]
    fn a_walk_into_the_room_on_the_way_counts_for_the_destination() {
        let e = episode();
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let kitchen = e.world().room_by_name("kitchen").expect("room");
        let bedroom = e.world().room_by_name("bedroom").expect("room");
        // From the living room, the kitchen is on the way to the fridge: choosing the
        // kitchen, the fridge or the kitchen cabinet all begin with that walk.
        let state = e.initial_state();
        let belief = Belief::thinks_at(fridge, 3, 0.05);
        let toward = log_prob(&e, &state, &belief, Action::WalkTo(Place::Room(kitchen)));
        assert!(toward.exp() > 0.9, "P = {}", toward.exp());
        let fridge_direct = log_prob(
            &e,
            &state,
            &belief,
            Action::WalkTo(Place::Furniture(fridge)),
        );
        assert!(toward > fridge_direct);
        let away = log_prob(&e, &state, &belief, Action::WalkTo(Place::Room(bedroom)));
        assert!(away < toward - 2.0);
    }

    #[test]
    fn choice_probabilities_sum_to_one() {
        let e = episode();
        let (fridge, state) = at_fridge(&e);
        let belief = Belief::uniform(3);
        let salmon = e.world().class_by_name("salmon").expect("class");
        let situation = Situation {
            world: e.world(),
            state: &state,
            goal: salmon,
            belief: &belief,
            seen: Sightings::none(),
        };
        let planner = PlannerPolicy::default();
        let scaled: Vec<f64> = planner
            .action_values(&situation)
            .iter()
            .map(|(_, q)| planner.beta() * q)
            .collect();
        let total: f64 = scaled
            .iter()
            .map(|s| (s - log_sum_exp(&scaled)).exp())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "sum {total}");
        // Local actions are single choices; their likelihood is their choice probability.
        let open = log_prob(&e, &state, &belief, Action::Open(fridge));
        assert!(open < 0.0 && open.is_finite());
    }

    #[test]
    fn opening_here_beats_walking_to_the_next_place_when_undecided() {
        let e = episode();
        let (fridge, state) = at_fridge(&e);
        let cabinet = e.world().furniture_by_name("cabinet").expect("cabinet");
        let belief = Belief::uniform(3);
        let open = log_prob(&e, &state, &belief, Action::Open(fridge));
        let walk = log_prob(
            &e,
            &state,
            &belief,
            Action::WalkTo(Place::Furniture(cabinet)),
        );
        assert!(open > walk, "open {open} vs walk {walk}");
    }

    #[test]
    fn opening_is_likelier_where_the_object_is_believed() {
        let e = episode();
        let (fridge, state) = at_fridge(&e);
        let desk = e.world().furniture_by_name("desk").expect("desk");
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
        assert!(PlannerPolicy::new(1e308).is_err());
        assert!(PlannerPolicy::new(MAX_BETA).is_ok());
    }
}
