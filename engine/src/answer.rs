//! Answering a question from the posterior.

use bip_episodes::Question;

use crate::posterior::Posterior;

/// Options whose normalised probabilities differ by no more than this are a tie.
const TIE: f64 = 1e-9;

/// The posterior's answer to one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// P(option's claim | its condition) for each option; `None` when the condition is
    /// impossible under the posterior.
    pub probabilities: Vec<Option<f64>>,
    /// The same, normalised over the options (equal shares when all are zero).
    pub posterior: Vec<f64>,
    /// Index of the most probable option; `None` on a tie, which is never broken by
    /// option order.
    pub choice: Option<usize>,
    /// Normalised probability of the best option minus that of the runner-up.
    pub margin: f64,
}

/// Answers `question` from `posterior` (which must be taken after `question.at` actions).
///
/// Only the options' claims are read: not the question's label, wording or option order.
pub fn answer(question: &Question, posterior: &Posterior<'_>) -> Answer {
    let probabilities: Vec<Option<f64>> = question
        .options
        .iter()
        .map(|o| posterior.conditional(o.claim.about, o.claim.given))
        .collect();
    answer_from(probabilities)
}

/// The answer given each option's P(claim | condition) (`None` where the condition is
/// impossible), as [`answer`] makes it.
pub fn answer_from(probabilities: Vec<Option<f64>>) -> Answer {
    let raw: Vec<f64> = probabilities.iter().map(|p| p.unwrap_or(0.0)).collect();
    let total: f64 = raw.iter().sum();
    let posterior: Vec<f64> = if total > 0.0 {
        raw.iter().map(|p| p / total).collect()
    } else {
        vec![1.0 / raw.len() as f64; raw.len()]
    };
    let mut ranked: Vec<usize> = (0..posterior.len()).collect();
    ranked.sort_by(|&a, &b| posterior[b].total_cmp(&posterior[a]));
    let margin = match ranked.as_slice() {
        [best, second, ..] => posterior[*best] - posterior[*second],
        _ => 1.0,
    };
    Answer {
        probabilities,
        choice: (margin > TIE).then(|| ranked[0]),
        posterior,
        margin,
    }
}
