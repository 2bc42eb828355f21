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
//! Where to walk next is the least rational of an agent's choices: with probability
//! `search_spread` ([`PlannerPolicy::with_search_spread`]) a walk heads where the belief
//! puts its mass, in proportion to it, not to the nearest place worth searching; so an
//! agent that passes a place it believes in and comes back to it later is explained by
//! that belief, not only by one that never considered the place.
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
use crate::logprob::{log_sum_exp, log_sum_exp_of};

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
    search_spread: f64,
}

/// The default [`PlannerPolicy::search_spread`]: fitted with β by `bip calibrate
/// --search-spread` on generated agents half of whose walks go in proportion to their
/// belief; the fit runs to its grid's top (results/agent-model). β stays
/// [`DEFAULT_BETA`].
const DEFAULT_SEARCH_SPREAD: f64 = 0.9;

impl Default for PlannerPolicy {
    fn default() -> Self {
        Self {
            beta: DEFAULT_BETA,
            costs: ActionCosts::default(),
            search_spread: DEFAULT_SEARCH_SPREAD,
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
        Ok(Self {
            beta,
            costs,
            search_spread: DEFAULT_SEARCH_SPREAD,
        })
    }

    /// This planner with search spread `spread`: the probability that the agent, when it
    /// walks, picks where to in proportion to its belief (the mass on the places each
    /// walk leads toward) rather than by the planner's values. People do not search
    /// nearest-first: they pass a place they believe in and come back to it. Only the
    /// choice of where to walk spreads; whether to walk, open, grab or put stays the
    /// planner's (at β). 0 is the pure planner.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] if `spread` is not in [0, 1].
    pub fn with_search_spread(self, spread: f64) -> Result<Self, EngineError> {
        if !(0.0..=1.0).contains(&spread) {
            return Err(EngineError::InvalidParameter {
                name: "search spread",
                value: spread,
                reason: "must be a probability between 0 and 1",
            });
        }
        Ok(Self {
            search_spread: spread,
            ..self
        })
    }

    /// The rationality β.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The search spread ([`with_search_spread`](Self::with_search_spread)).
    pub fn search_spread(&self) -> f64 {
        self.search_spread
    }

    /// log P(walking toward `via`) among `actions` of log weights `scaled`: the planner
    /// decides whether to walk at all, and which way is its choice or, with probability
    /// `search_spread`, the belief's: the belief's mass on the furniture the walk leads
    /// toward over its mass on all the agent can walk to. An agent walking from place to
    /// place takes this route at nearly every step, so it is one pass over the actions with
    /// one exponential each. `None` when there is no belief to walk by (or no walk the
    /// planner would take): the planner's choice alone decides.
    fn log_walk(
        &self,
        situation: &Situation<'_>,
        actions: &[Action],
        scaled: &[f64],
        via: Place,
    ) -> Option<f64> {
        let here = situation.state.place();
        let leads_to = leads_toward(&situation.world.layout, here, via);
        let is_walk = |a: &Action| matches!(a, Action::WalkTo(_));
        let best = |walks: bool| {
            let pairs = actions.iter().zip(scaled);
            pairs
                .filter(|(a, _)| is_walk(a) == walks)
                .fold(f64::NEG_INFINITY, |m, (_, &s)| m.max(s))
        };
        let (best_walk, best_other) = (best(true), best(false));
        // Weights relative to the best walk (which weighs 1, so `walking` ≥ 1), and to
        // the best of the rest for the rest.
        let (mut walking, mut toward, mut others) = (0.0, 0.0, 0.0);
        let (mut believed, mut believed_toward) = (0.0, 0.0);
        for (action, &score) in actions.iter().zip(scaled) {
            let Action::WalkTo(to) = *action else {
                if score > f64::NEG_INFINITY {
                    others += (score - best_other).exp();
                }
                continue;
            };
            let weight = (score - best_walk).exp();
            let belief = situation.belief.walk_mass(here, to);
            walking += weight;
            believed += belief;
            if leads_to(to) {
                toward += weight;
                believed_toward += belief;
            }
        }
        if believed == 0.0 || !best_walk.is_finite() {
            return None;
        }
        let log_walking = best_walk + walking.ln();
        let log_total = log_sum_exp(&[log_walking, best_other + others.ln()]);
        let spread = self.search_spread;
        let way = (1.0 - spread) * toward / walking + spread * believed_toward / believed;
        Some(log_walking - log_total + way.ln())
    }

    /// Q-values of every possible action in the situation, in
    /// [`State::possible_actions`](bip_episodes::State::possible_actions) order.
    pub fn action_values(&self, situation: &Situation<'_>) -> Vec<(Action, f64)> {
        let actions = situation.state.possible_actions(situation.world);
        let values = Search::new(self, situation).q_values(&actions, 1.0);
        actions.into_iter().zip(values).collect()
    }
}

impl Policy for PlannerPolicy {
    fn name(&self) -> &str {
        "planner"
    }

    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64 {
        let actions = situation.state.possible_actions(situation.world);
        self.log_prob_among(situation, &actions, action)
    }

    /// Scores each group of situations the planner cannot tell apart (`Alike`) once:
    /// the same numbers, bit for bit, as scoring every one. The situations of a step share
    /// their state, so its possible actions are listed once.
    fn log_probs(
        &self,
        situations: &[Situation<'_>],
        action: &Action,
    ) -> Result<Vec<f64>, PolicyFailure> {
        let Some(first) = situations.first() else {
            return Ok(Vec::new());
        };
        let actions = first.state.possible_actions(first.world);
        let alike = Alike::group(situations, &actions);
        let scores: Vec<f64> = alike
            .representatives
            .par_iter()
            .map(|&i| self.log_prob_among(&situations[i], &actions, action))
            .collect();
        let mut by_situation = vec![f64::NAN; situations.len()];
        for (&i, score) in alike.representatives.iter().zip(scores) {
            by_situation[i] = score;
        }
        Ok(alike.scored_as.iter().map(|&r| by_situation[r]).collect())
    }
}

impl PlannerPolicy {
    /// [`Policy::log_prob`] of `action` among `actions`, the situation's possible ones.
    fn log_prob_among(
        &self,
        situation: &Situation<'_>,
        actions: &[Action],
        action: &Action,
    ) -> f64 {
        let Some(chosen) = actions.iter().position(|a| a == action) else {
            return f64::NEG_INFINITY;
        };
        if Search::holds_goal(situation) {
            return -(actions.len() as f64).ln();
        }
        let scaled = Search::new(self, situation).q_values(actions, self.beta);
        let by_belief = match actions[chosen] {
            Action::WalkTo(via) if self.search_spread > 0.0 => {
                self.log_walk(situation, actions, &scaled, via)
            }
            _ => None,
        };
        by_belief.unwrap_or_else(|| log_choice(situation, actions, &scaled, chosen))
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
    let leads_to = leads_toward(&situation.world.layout, situation.state.place(), via);
    let toward = actions.iter().zip(scores).filter_map(|(a, &s)| match *a {
        Action::WalkTo(to) if leads_to(to) => Some(s),
        _ => None,
    });
    log_sum_exp_of(toward) - log_total
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

/// For a walk from `from` to `via`, whether it lies on a shortest path to a destination.
fn leads_toward(layout: &Layout, from: Place, via: Place) -> impl Fn(Place) -> bool + '_ {
    let to_via = layout.distance(from, via);
    move |to| (to_via + layout.distance(via, to) - layout.distance(from, to)).abs() < 1e-9
}

/// The search cost model for one situation, with the belief's expected distances computed
/// once and shared by every action's value.
struct Search<'a> {
    planner: &'a PlannerPolicy,
    situation: &'a Situation<'a>,
    /// `expected_distance[ℓ] = Σ_ℓ′ p(ℓ′) d(ℓ, ℓ′)` over the unseen-place belief; empty
    /// when the agent knows where the goal is and does not search.
    expected_distance: Vec<f64>,
    holds_goal: bool,
}

impl<'a> Search<'a> {
    fn new(planner: &'a PlannerPolicy, situation: &'a Situation<'a>) -> Self {
        let belief = situation.belief;
        let expected_distance = if belief.known().is_empty() {
            expected_distances(&situation.world.layout, belief.weights())
        } else {
            Vec::new()
        };
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
    /// computed once (O(places)) and shared by every place `value` weighs; only the
    /// opening costs when the agent knows where the goal is, all `value` then reads.
    fn terms(&self, open: &[bool]) -> Terms {
        let world = self.situation.world;
        let weights = self.situation.belief.weights();
        let open_cost: Vec<f64> = world
            .furniture_ids()
            .map(|l| self.open_cost(l, open))
            .collect();
        if !self.situation.belief.known().is_empty() {
            return Terms {
                open_cost,
                onward: Vec::new(),
                nearest: Nearest::default(),
            };
        }
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

    /// Q-values of `actions` times `scale` (β, for the log weights of a choice), the
    /// terms of the current state computed once.
    fn q_values(&self, actions: &[Action], scale: f64) -> Vec<f64> {
        let now = self.terms(&self.situation.state.open);
        actions
            .iter()
            .map(|a| scale * self.q_value(a, &now))
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
                if belief.known().contains(&f) {
                    return -(costs.open + costs.grab);
                }
                let after = self.terms(&with_open(f, true));
                if !belief.known().is_empty() {
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
        log_prob_under(&PlannerPolicy::default(), e, state, belief, action)
    }

    /// log P(`action`) under `planner` for an agent wanting the salmon.
    fn log_prob_under(
        planner: &PlannerPolicy,
        e: &Episode,
        state: &State,
        belief: &Belief,
        action: Action,
    ) -> f64 {
        let salmon = e.world().class_by_name("salmon").expect("class");
        let situation = Situation {
            world: e.world(),
            state,
            goal: salmon,
            belief,
            seen: Sightings::none(),
        };
        planner.log_prob(&situation, &action)
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
    fn a_detour_toward_a_believed_place_costs_less_with_search_spread() {
        let e = episode();
        let cabinet = e.world().furniture_by_name("cabinet").expect("cabinet");
        let desk = e.world().furniture_by_name("desk").expect("desk");
        // Standing at the fridge, believing the salmon in the cabinet beside it or on the
        // bedroom desk, the agent walks off to the desk first.
        let state = at_fridge(&e).1;
        let belief = Belief::thinks_among(&[cabinet, desk], 3, 0.05);
        let walk = Action::WalkTo(Place::Furniture(desk));
        let score = |spread: f64| {
            let planner = PlannerPolicy::default()
                .with_search_spread(spread)
                .expect("spread");
            log_prob_under(&planner, &e, &state, &belief, walk)
        };
        let (planned, spread) = (score(0.0), score(0.9));
        // Nearest-first, the desk is a far detour; by belief, half the mass is there.
        assert!(spread > planned + 1.0, "{spread} against {planned}");
    }

    #[test]
    fn the_search_spread_is_a_probability() {
        let planner = PlannerPolicy::default();
        assert!(planner.clone().with_search_spread(-0.1).is_err());
        assert!(planner.clone().with_search_spread(1.5).is_err());
        assert!(planner.clone().with_search_spread(f64::NAN).is_err());
        assert_eq!(
            planner.with_search_spread(0.0).expect("0").search_spread(),
            0.0
        );
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
