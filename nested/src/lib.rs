//! Nested beliefs in multi-agent stories: what each agent thinks, what it thinks others
//! think, and so on to any depth, inferred from who witnessed what and who told whom.
//!
//! A [`NestedInference`] session takes a [`Story`](bip_episodes::Story)'s events one at
//! a time and gives, for any chain of agents, a [`LocationBelief`] over where an object
//! is (its rules are documented there); [`infer_story`] answers a story's questions from
//! those beliefs, weighing testimony by a [`Trust`].

mod batch;
mod belief;
mod session;
mod trust;

pub use batch::{infer_stories, infer_story, StoryInference};
pub use belief::LocationBelief;
pub use session::{Chain, NestedInference};
pub use trust::{Trust, DEFAULT_TRUST, TRUST_RANGE};
