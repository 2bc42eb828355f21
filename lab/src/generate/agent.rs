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
/// drawing each action from the planner's choice distribution `∝ exp(β Q)`.
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
        let action = values[rng.sample_log_weights(&scaled)].0;
        if state.apply(world, &action).is_err() {
            // `action_values` lists only possible actions; stop rather than loop if not.
            break;
        }
        belief.observe(world, goal, &state.observe(world));
        trajectory.actions.push(action);
        trajectory.states.push(state.clone());
        trajectory.beliefs.push(belief.clone());
    }
    trajectory.reached_goal = holds_goal(&state);
    trajectory
}
