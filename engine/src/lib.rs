//! Bayesian inverse planning over bip episodes.
//!
//! The agent is assumed to want an object of some class (the *goal*) and to hold a
//! [`Belief`] about where one is, which it updates from what it sees. A joint
//! [`Hypothesis`] is a goal with a starting belief ([`InitialBelief`]: no idea, or "it is
//! at X"). A [`Policy`] gives log P(action | goal, state, belief); the default is the
//! symbolic [`PlannerPolicy`]. An [`Inference`] session accumulates, in log space, each
//! hypothesis's prior plus the log-likelihood of every action, and its [`Posterior`] gives
//! the probability of any claim about goals and beliefs. [`answer`] picks the option whose
//! claim is most probable; [`infer_episode`] does all of this over a whole episode. A
//! [`LiveSession`] owns its episode and policy, for embedding in a simulator loop.
//!
//! ```
//! use bip_episodes::{Episode, Proposition};
//! use bip_engine::{infer_episode, BatchOptions, PlannerPolicy};
//!
//! // Mark walks past the table with the book on it, to the fridge.
//! let episode = Episode::from_json(r#"{
//!   "format": "bip-episode/1",
//!   "world": {
//!     "rooms": ["kitchen", "living_room"],
//!     "furniture": [
//!       {"id": "fridge", "room": "kitchen", "kind": "container"},
//!       {"id": "table", "room": "living_room", "kind": "surface"}],
//!     "objects": [{"id": "apple_1", "at": "fridge"}, {"id": "book_1", "at": "table"}]
//!   },
//!   "agent": {"name": "Mark", "start": "living_room"},
//!   "actions": [{"walk_to": "kitchen"}, {"walk_to": "fridge"}],
//!   "questions": [{"options": [{"goal": "book"}, {"goal": "apple"}], "expected": "b"}]
//! }"#, "demo")?;
//! let result = infer_episode(&episode, &PlannerPolicy::default(), &BatchOptions::default())?;
//! let answer = &result.answers[0];
//! assert_eq!(answer.choice, Some(1));
//! assert!(answer.posterior[1] > 0.9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod answer;
mod batch;
mod belief;
mod cost;
mod error;
mod hypothesis;
mod inference;
mod live;
mod logprob;
mod named;
mod policy;
mod posterior;
mod prior;
mod readings;
mod side_by_side;
mod sightings;

pub use answer::{answer, answer_from, Answer};
pub use batch::{
    hypotheses_at, infer_all, infer_episode, BatchOptions, EpisodeInference, Pruning, TraceStep,
};
pub use belief::Belief;
pub use cost::QuestionCost;
pub use error::EngineError;
pub use hypothesis::{
    belief_hypotheses, search_sets, BeliefHypothesis, Hypothesis, HypothesisConfig, InitialBelief,
    DEFAULT_MAX_BELIEF_VALUES, DEFAULT_MAX_HYPOTHESES,
};
pub use inference::Inference;
pub use live::{LiveOptions, LiveSession, SearchSets};
pub use logprob::{log_sum_exp, normalize};
pub use named::{Named, UnknownName};
pub use policy::lm::{
    ActionLikelihood, LmPolicy, PromptStyle, PromptTemplate, TextRequest, TextScore, TextScorer,
    TokenReduction,
};
pub use policy::{
    check_beta, ActionCosts, HybridPolicy, PlannerPolicy, Policy, PolicyFailure, PolicyWork,
    Situation, DEFAULT_BETA, MAX_BETA,
};
pub use posterior::{Posterior, RankedHypothesis};
pub use side_by_side::run_side_by_side;
pub use sightings::Sightings;
