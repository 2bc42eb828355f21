//! What answering cost over many questions: the means an evaluation and a study report.

use serde::Serialize;

use bip_engine::QuestionCost;

/// Costs over many questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CostSummary {
    /// Questions counted.
    pub questions: usize,
    /// Mean seconds per question.
    pub seconds_per_question: f64,
    /// Mean joint hypotheses scored per question.
    pub hypotheses_per_question: f64,
    /// Mean language-model tokens run per question.
    pub lm_tokens_per_question: f64,
    /// Mean tokens BIP-ALM's way would have run per question.
    pub lm_tokens_unshared_per_question: f64,
    /// How many times fewer tokens bip ran than BIP-ALM's way (`None` without an LM).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sharing_ratio: Option<f64>,
}

impl CostSummary {
    /// Sums up `costs`.
    pub fn of<'a>(costs: impl IntoIterator<Item = &'a QuestionCost>) -> Self {
        let mut sum = CostSummary::default();
        let (mut tokens, mut unshared) = (0u64, 0u64);
        for c in costs {
            sum.questions += 1;
            sum.seconds_per_question += c.seconds;
            sum.hypotheses_per_question += c.hypotheses as f64;
            tokens += c.lm_tokens;
            unshared += c.lm_tokens_unshared;
        }
        let n = sum.questions.max(1) as f64;
        sum.seconds_per_question /= n;
        sum.hypotheses_per_question /= n;
        sum.lm_tokens_per_question = tokens as f64 / n;
        sum.lm_tokens_unshared_per_question = unshared as f64 / n;
        sum.sharing_ratio = (tokens > 0).then(|| unshared as f64 / tokens as f64);
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_means_and_sharing_ratio() {
        let a = QuestionCost {
            seconds: 1.0,
            lm_tokens: 50,
            lm_tokens_unshared: 500,
            hypotheses: 8,
        };
        let b = QuestionCost {
            seconds: 3.0,
            lm_tokens: 150,
            lm_tokens_unshared: 500,
            hypotheses: 4,
        };
        let s = CostSummary::of([&a, &b]);
        assert_eq!(s.questions, 2);
        assert_eq!(s.seconds_per_question, 2.0);
        assert_eq!(s.hypotheses_per_question, 6.0);
        assert_eq!(s.lm_tokens_per_question, 100.0);
        assert_eq!(s.sharing_ratio, Some(5.0));
        assert_eq!(
            CostSummary::of(&[QuestionCost::default()]).sharing_ratio,
            None
        );
    }
}
