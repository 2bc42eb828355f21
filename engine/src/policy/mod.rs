//! Policies: how likely an action is, given what the agent wants and thinks.

mod alike;
mod by_room;
mod hybrid;
pub mod lm;
mod planner;

pub use hybrid::HybridPolicy;
pub use planner::{check_beta, ActionCosts, PlannerPolicy, DEFAULT_BETA, MAX_BETA};

use rayon::prelude::*;

use bip_episodes::{Action, ClassId, State, World};

use crate::belief::Belief;
use crate::sightings::Sightings;

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
    /// What the agent has seen so far (the same for every hypothesis at a step).
    pub seen: &'a Sightings,
}

/// Why a policy could not score an action (a language model failing, say).
pub type PolicyFailure = Box<dyn std::error::Error + Send + Sync>;

/// Work a policy has done since it was made, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PolicyWork {
    /// Language-model tokens run through the model (prefix-cache hits excluded).
    pub lm_tokens: u64,
    /// The tokens the same scoring would have run with no sharing at all: every
    /// hypothesis at every step re-reading its whole prompt and action, as BIP-ALM does.
    pub lm_tokens_unshared: u64,
}

impl PolicyWork {
    /// The work done between `earlier` and `self`.
    pub fn since(self, earlier: PolicyWork) -> PolicyWork {
        PolicyWork {
            lm_tokens: self.lm_tokens.saturating_sub(earlier.lm_tokens),
            lm_tokens_unshared: self
                .lm_tokens_unshared
                .saturating_sub(earlier.lm_tokens_unshared),
        }
    }
}

/// A model of the agent: log P(action | goal, state, belief).
///
/// Implementations must be deterministic and must return a finite value or
/// `NEG_INFINITY`, never NaN. Policies are shared across threads.
pub trait Policy: Send + Sync {
    /// A short name for reports ("planner").
    fn name(&self) -> &str;

    /// log P(`action` | situation). `action` is possible in `situation.state`.
    ///
    /// Policies that can fail (see [`log_probs`](Self::log_probs)) return `NEG_INFINITY`
    /// here on failure; sessions call `log_probs`, which reports it.
    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64;

    /// log P(`action` | situation) for every situation of one step, in order.
    ///
    /// The default scores each situation on its own, in parallel. Policies that gain
    /// from seeing a whole step at once (a language model batching its prompts) override
    /// it.
    ///
    /// # Errors
    /// Whatever stopped the policy from scoring.
    fn log_probs(
        &self,
        situations: &[Situation<'_>],
        action: &Action,
    ) -> Result<Vec<f64>, PolicyFailure> {
        Ok(situations
            .par_iter()
            .map(|s| self.log_prob(s, action))
            .collect())
    }

    /// Whether the policy scores a run of steps faster when told them ahead
    /// ([`announce`](Self::announce), then [`score_announced`](Self::score_announced)):
    /// true for a language model, whose larger batches run closer to its peak. Sessions
    /// then walk a run of actions twice, once to announce each step and once to push it.
    fn scores_ahead(&self) -> bool {
        false
    }

    /// Notes that `action` will be scored for `situations` (as [`log_probs`](Self::log_probs)
    /// would be called), without scoring it yet. The default does nothing.
    fn announce(&self, _situations: &[Situation<'_>], _action: &Action) {}

    /// Scores everything announced since the last call, in as few batches as suits the
    /// policy, so that the [`log_probs`](Self::log_probs) calls that follow find their
    /// scores ready. Forgets the announcements either way. The default does nothing.
    ///
    /// # Errors
    /// Whatever stopped the policy from scoring; sessions then score step by step, which
    /// names the step that fails.
    fn score_announced(&self) -> Result<(), PolicyFailure> {
        Ok(())
    }

    /// Work done so far (zero for policies without a language model).
    fn work(&self) -> PolicyWork {
        PolicyWork::default()
    }

    /// Whether episodes should be run one after another rather than in parallel: true
    /// for policies that already use every core on each call and serialise calls.
    fn serial(&self) -> bool {
        false
    }

    /// For a [`serial`](Self::serial) policy: a copy with its own caches (a language
    /// model's prefix cache and remembered scores, starting empty) that shares the
    /// weights, so that runs of episodes can go on side by side, each through a copy of
    /// its own, and each copy's scores depend only on the episodes it is given. `None`
    /// (the default) when there is no such copy: episodes then run one after another
    /// through this policy.
    fn fork(&self) -> Option<Box<dyn Policy>> {
        None
    }
}
