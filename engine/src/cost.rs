//! What answering a question cost: time, hypotheses scored, language-model tokens.

use serde::{Deserialize, Serialize};

use crate::policy::PolicyWork;

/// What answering one question cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct QuestionCost {
    /// Wall-clock seconds (a moment's cost is shared evenly by the questions due then).
    pub seconds: f64,
    /// Language-model tokens run, shared the same way (exact only when episodes run one
    /// at a time, which policies with a language model ask for).
    pub lm_tokens: u64,
    /// The tokens BIP-ALM's way would have run: every hypothesis at every step re-reading
    /// its whole prompt.
    pub lm_tokens_unshared: u64,
    /// Joint hypotheses the policy scored.
    pub hypotheses: usize,
}

impl QuestionCost {
    /// The cost of a session that took `seconds`, did `work` and scored `hypotheses`,
    /// split over `questions` questions.
    pub fn share(seconds: f64, work: PolicyWork, hypotheses: usize, questions: usize) -> Self {
        let n = questions.max(1);
        Self {
            seconds: seconds / n as f64,
            lm_tokens: work.lm_tokens / n as u64,
            lm_tokens_unshared: work.lm_tokens_unshared / n as u64,
            hypotheses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_s_cost_is_shared_evenly_by_its_questions() {
        let work = PolicyWork {
            lm_tokens: 100,
            lm_tokens_unshared: 1000,
        };
        let a = QuestionCost::share(2.0, work, 8, 2);
        assert_eq!(
            (a.seconds, a.lm_tokens, a.lm_tokens_unshared, a.hypotheses),
            (1.0, 50, 500, 8)
        );
        // A moment with no question due is charged whole, not divided by zero.
        let whole = QuestionCost::share(2.0, work, 8, 0);
        assert_eq!((whole.seconds, whole.lm_tokens), (2.0, 100));
    }
}
