//! Policies: how likely an action is, given what the agent wants and thinks.

mod planner;

pub use planner::{ActionCosts, PlannerPolicy, DEFAULT_BETA};

use bip_episodes::{Action, ClassId, State, World};

use crate::belief::Belief;

/// Everything a policy may condition on at one step.
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    /// The world.
    pub world: &'a World,
    /// The true state before the action.
    pub state: &'a State,
    /// The class the agent wants.
    pub goal: ClassId,
    /// What the agent thinks about where the goal class is.
    pub belief: &'a Belief,
}

/// A model of the agent: log P(action | goal, state, belief).
///
/// Implementations must be deterministic and must return a finite value or
/// `NEG_INFINITY`, never NaN. Policies are shared across threads.
pub trait Policy: Send + Sync {
    /// A short name for reports ("planner").
    fn name(&self) -> &str;

    /// log P(`action` | situation). `action` is possible in `situation.state`.
    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64;
}
