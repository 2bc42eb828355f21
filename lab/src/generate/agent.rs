//! A simulated agent: a noisy forward planner acting on its own (possibly false) belief.

use bip_episodes::{Action, ClassId, State, World};

use crate::rng::Rng;
use bip_engine::Belief;
use bip_engine::Sightings;
use bip_engine::{PlannerPolicy, Situation};

/// What the agent did and thought, step by step.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// The actions, in order.
    pub actions: Vec<Action>,
    /// `states[k]`: the state after `k` actions (`actions.len() + 1` states).
    pub states: Vec<State>,
    /// `beliefs[k]`: the agent's belief about the goal class after `k` actions and what it
    /// then saw.
    pub beliefs: Vec<Belief>,
    /// Whether the agent ended holding an object of its goal class.
    pub reached_goal: bool,
}

/// Runs the agent from `state` until it holds an object of `goal` or `max_steps` actions,
/// drawing each action from the planner's choice distribution `∝ exp(β Q)`; a walk so
/// drawn is, with probability the policy's search spread
/// ([`PlannerPolicy::with_search_spread`], the model the engine infers with), replaced by
/// a walk to a place drawn in proportion to the agent's belief, so that the agent passes
/// places it believes in and comes back to them. Its belief grows as the engine reads
/// beliefs ([`Belief::walked_to`]): having searched all it considered, it comes to think
/// the object may be where it walks next.
pub fn simulate(
    world: &World,
    policy: &PlannerPolicy,
    state: State,
    goal: ClassId,
    mut belief: Belief,
    max_steps: usize,
    rng: &mut Rng,
) -> Trajectory {
    let mut state = state;
    let search_spread = policy.search_spread();
    belief.observe(world, goal, &state.observe(world));
    let mut trajectory = Trajectory {
        actions: Vec::new(),
        states: vec![state.clone()],
        beliefs: vec![belief.clone()],
        reached_goal: false,
    };
    let holds_goal = |s: &State| s.held().any(|o| world.object(o).class == goal);
    while trajectory.actions.len() < max_steps && !holds_goal(&state) {
        let situation = Situation {
            world,
            state: &state,
            goal,
            belief: &belief,
            // The planner reads the belief, not the record of sightings.
            seen: Sightings::none(),
        };
        let values = policy.action_values(&situation);
        let scaled: Vec<f64> = values.iter().map(|(_, q)| policy.beta() * q).collect();
        let mut action = values[rng.sample_log_weights(&scaled)].0;
        if matches!(action, Action::WalkTo(_)) && search_spread > 0.0 && rng.chance(search_spread) {
            action = walk_by_belief(&values, &state, &belief, rng).unwrap_or(action);
        }
        if state.apply(world, &action).is_err() {
            // `action_values` lists only possible actions; stop rather than loop if not.
            break;
        }
        belief.arrive(world, goal, &state.observe(world), action.destination());
        trajectory.actions.push(action);
        trajectory.states.push(state.clone());
        trajectory.beliefs.push(belief.clone());
    }
    trajectory.reached_goal = holds_goal(&state);
    trajectory
}

/// A walk among the possible `actions`, drawn in proportion to how strongly `belief` draws
/// the agent there ([`Belief::walk_mass`], as the engine scores it); `None` when it draws
/// it nowhere the agent can walk to.
fn walk_by_belief(
    actions: &[(Action, f64)],
    state: &State,
    belief: &Belief,
    rng: &mut Rng,
) -> Option<Action> {
    let here = state.place();
    let walks: Vec<(Action, f64)> = actions
        .iter()
        .filter_map(|&(a, _)| match a {
            Action::WalkTo(to) => Some((a, belief.walk_mass(here, to))),
            _ => None,
        })
        .filter(|&(_, p)| p > 0.0)
        .collect();
    if walks.is_empty() {
        return None;
    }
    let log_weights: Vec<f64> = walks.iter().map(|&(_, p)| p.ln()).collect();
    Some(walks[rng.sample_log_weights(&log_weights)].0)
}
