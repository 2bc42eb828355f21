//! What an LM score is a probability of: the action's text, or the action as one choice
//! among those possible at its step.
//!
//! A text's probability leaves mass to every other text, and how much depends on the
//! prompt: a belief line naming three places spreads the model's mass over three walks,
//! one naming none keeps it on generic words. Comparing raw text scores across hypotheses
//! mixes that spread into the evidence. Normalised over the state's possible actions, each
//! hypothesis gets a distribution over the same choices, as the planner's does.

use bip_episodes::Action;

use crate::named::{named_impls, Named};
use crate::policy::planner::log_choice;
use crate::policy::Situation;

/// What the LM policy's log P(action | goal, state, belief) is a probability of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActionLikelihood {
    /// The action's text after the prompt (BIP-ALM's choice).
    #[default]
    Text,
    /// The action among the state's possible actions: its text's score normalised over
    /// theirs, a walk counting for every destination it lies on a shortest path to (as
    /// the planner's walks do). Costs a score for every possible action, most of it
    /// shared: the actions' texts begin alike and run as one token tree per prompt.
    Choice,
}

impl Named for ActionLikelihood {
    const WHAT: &'static str = "likelihood";
    const VALUES: &'static [(Self, &'static str, &'static str)] = &[
        (
            Self::Text,
            "text",
            "The action's text after the prompt (BIP-ALM)",
        ),
        (
            Self::Choice,
            "choice",
            "The action among the step's possible actions",
        ),
    ];
}

named_impls!(ActionLikelihood);

/// The actions whose scores an action's likelihood needs at `situation`: the action alone
/// for [`ActionLikelihood::Text`], every possible action (the action first) for
/// [`ActionLikelihood::Choice`].
pub(super) fn alternatives(
    likelihood: ActionLikelihood,
    situation: &Situation<'_>,
    action: &Action,
) -> Vec<Action> {
    let mut actions = vec![*action];
    if likelihood == ActionLikelihood::Choice {
        let possible = situation.state.possible_actions(situation.world);
        actions.extend(possible.into_iter().filter(|a| a != action));
    }
    actions
}

/// The log-likelihood of `alternatives[0]` given every alternative's score (in the order
/// [`alternatives`] gave them).
pub(super) fn log_likelihood(
    likelihood: ActionLikelihood,
    situation: &Situation<'_>,
    alternatives: &[Action],
    scores: &[f64],
) -> f64 {
    match (likelihood, scores.first()) {
        (_, None) => f64::NEG_INFINITY,
        (ActionLikelihood::Text, Some(&chosen)) => chosen,
        (ActionLikelihood::Choice, Some(_)) => log_choice(situation, alternatives, scores, 0),
    }
}
