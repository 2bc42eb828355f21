//! Questions about a story: where an object really is, or what one agent thinks another
//! thinks ... about where it is, to any depth.

use crate::ids::{AgentId, FurnitureId, ObjectId};
use crate::question::Expected;
use crate::question_type::QuestionLabel;

/// "`of[0]` thinks that `of[1]` thinks that ... the object is (or is not) at `place`";
/// with no agents, "the object really is (or is not) at `place`".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NestedClaim {
    /// Whose belief, outermost first: `[A, B]` is "A thinks B thinks"; empty for where
    /// the object really is.
    pub of: Vec<AgentId>,
    /// The object.
    pub object: ObjectId,
    /// The container.
    pub place: FurnitureId,
    /// Whether the claim is that the object is there (`true`) or is not.
    pub inside: bool,
}

impl NestedClaim {
    /// The claim's order: 0 for where the object really is, 1 for what one agent
    /// thinks, 2 for what one thinks another thinks, and so on.
    pub fn order(&self) -> usize {
        self.of.len()
    }
}

/// One answer option of a [`StoryQuestion`].
#[derive(Debug, Clone, PartialEq)]
pub struct StoryOption {
    /// The option's wording, if any (never read by inference).
    pub text: Option<String>,
    /// What the option claims.
    pub claim: NestedClaim,
}

/// A multiple-choice question about a story at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct StoryQuestion {
    /// Identifier within the story.
    pub id: String,
    /// A label for reports ("order 2"); never read by inference.
    pub label: Option<QuestionLabel>,
    /// The question's wording, if any.
    pub text: Option<String>,
    /// How many of the story's events have happened when it is asked.
    pub at: usize,
    /// The options, lettered a, b, ... in this order.
    pub options: Vec<StoryOption>,
    /// The correct answer, when known.
    pub expected: Option<Expected>,
}

impl StoryQuestion {
    /// The highest order among the options' claims (the question's order).
    pub fn order(&self) -> usize {
        self.options
            .iter()
            .map(|o| o.claim.order())
            .max()
            .unwrap_or(0)
    }
}
