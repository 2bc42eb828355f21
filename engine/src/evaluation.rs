//! Scoring answers against expected ones: accuracy overall and by question label,
//! answer-position-balanced accuracy, and an episode-cluster bootstrap interval.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rng::Rng;

/// Bootstrap resamples drawn for the confidence interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// One scored question.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The episode it belongs to (the bootstrap's cluster).
    pub episode: String,
    /// Its label (MMToM type), if any.
    pub label: Option<String>,
    /// Index of the correct option.
    pub expected: usize,
    /// Index of the chosen option; `None` for a tie, which counts as wrong.
    pub choice: Option<usize>,
}

impl Outcome {
    /// Whether the chosen option is the expected one.
    pub fn correct(&self) -> bool {
        self.choice == Some(self.expected)
    }
}

/// Accuracy of a group of questions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Accuracy {
    /// Questions.
    pub n: usize,
    /// Answered as expected.
    pub correct: usize,
    /// `correct / n` (0 for an empty group).
    pub accuracy: f64,
}

impl Accuracy {
    fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Self {
        let (mut n, mut correct) = (0, 0);
        for o in outcomes {
            n += 1;
            correct += usize::from(o.correct());
        }
        Self {
            n,
            correct,
            accuracy: if n == 0 {
                0.0
            } else {
                correct as f64 / n as f64
            },
        }
    }
}

/// The evaluation report of `bip eval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// Questions scored.
    pub n: usize,
    /// Answered as expected.
    pub correct: usize,
    /// `correct / n`.
    pub accuracy: f64,
    /// Questions left unanswered by a tie (counted wrong).
    pub ties: usize,
    /// Accuracy per label ("1.1" ...); unlabelled questions under "-".
    pub by_type: BTreeMap<String, Accuracy>,
    /// Mean of the accuracies on questions whose correct option is a, b, ...: immune to a
    /// bias toward one answer position.
    pub position_balanced_accuracy: f64,
    /// 95% percentile interval of the accuracy, resampling whole episodes.
    pub ci95: [f64; 2],
}

impl Evaluation {
    /// Scores `outcomes`; the bootstrap draws from `seed`, so equal inputs give equal reports.
    pub fn new(outcomes: &[Outcome], seed: u64) -> Self {
        let overall = Accuracy::of(outcomes);
        let mut groups: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
        for o in outcomes {
            groups
                .entry(o.label.clone().unwrap_or_else(|| "-".to_string()))
                .or_default()
                .push(o);
        }
        let by_type = groups
            .into_iter()
            .map(|(k, v)| (k, Accuracy::of(v)))
            .collect();
        let mut by_position: BTreeMap<usize, Vec<&Outcome>> = BTreeMap::new();
        for o in outcomes {
            by_position.entry(o.expected).or_default().push(o);
        }
        let position_balanced_accuracy = if by_position.is_empty() {
            0.0
        } else {
            by_position
                .values()
                .map(|v| Accuracy::of(v.iter().copied()).accuracy)
                .sum::<f64>()
                / by_position.len() as f64
        };
        Self {
            n: overall.n,
            correct: overall.correct,
            accuracy: overall.accuracy,
            ties: outcomes.iter().filter(|o| o.choice.is_none()).count(),
            by_type,
            position_balanced_accuracy,
            ci95: cluster_bootstrap(outcomes, seed),
        }
    }
}

/// Percentile bootstrap of accuracy over episodes: resample episodes with replacement,
/// keeping each episode's questions together.
fn cluster_bootstrap(outcomes: &[Outcome], seed: u64) -> [f64; 2] {
    let mut clusters: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for o in outcomes {
        let entry = clusters.entry(o.episode.as_str()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(o.correct());
    }
    let clusters: Vec<(usize, usize)> = clusters.into_values().collect();
    if clusters.is_empty() {
        return [0.0, 0.0];
    }
    let mut rng = Rng::new(seed);
    let mut accuracies: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            let (mut n, mut correct) = (0, 0);
            for _ in 0..clusters.len() {
                let (cn, cc) = clusters[rng.below(clusters.len())];
                n += cn;
                correct += cc;
            }
            correct as f64 / n.max(1) as f64
        })
        .collect();
    accuracies.sort_by(f64::total_cmp);
    let at = |q: f64| accuracies[((accuracies.len() - 1) as f64 * q).round() as usize];
    [at(0.025), at(0.975)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(episode: &str, label: &str, expected: usize, choice: Option<usize>) -> Outcome {
        Outcome {
            episode: episode.to_string(),
            label: Some(label.to_string()),
            expected,
            choice,
        }
    }

    #[test]
    fn accuracy_by_type_and_ties() {
        let outcomes = [
            outcome("e1", "1.1", 0, Some(0)),
            outcome("e2", "1.1", 1, Some(0)),
            outcome("e3", "2.2", 1, None),
            outcome("e4", "2.2", 0, Some(0)),
        ];
        let e = Evaluation::new(&outcomes, 0);
        assert_eq!((e.n, e.correct, e.ties), (4, 2, 1));
        assert_eq!(e.by_type["1.1"].correct, 1);
        assert_eq!(e.by_type["2.2"].n, 2);
    }

    #[test]
    fn always_answering_a_gets_half_balanced_accuracy() {
        // Half the correct answers are a, half b; a system that always says "a" is right
        // on the a's only, however skewed the data.
        let mut outcomes = Vec::new();
        for i in 0..90 {
            outcomes.push(outcome(&format!("a{i}"), "1.1", 0, Some(0)));
        }
        for i in 0..10 {
            outcomes.push(outcome(&format!("b{i}"), "1.1", 1, Some(0)));
        }
        let e = Evaluation::new(&outcomes, 0);
        assert!((e.accuracy - 0.9).abs() < 1e-12);
        assert!((e.position_balanced_accuracy - 0.5).abs() < 1e-12);
    }

    #[test]
    fn bootstrap_interval_brackets_accuracy_and_is_reproducible() {
        let outcomes: Vec<Outcome> = (0..200)
            .map(|i| {
                outcome(
                    &format!("e{}", i / 2),
                    "1.1",
                    0,
                    Some(if i % 4 == 0 { 1 } else { 0 }),
                )
            })
            .collect();
        let e = Evaluation::new(&outcomes, 7);
        assert!(
            e.ci95[0] < e.accuracy && e.accuracy < e.ci95[1],
            "{:?}",
            e.ci95
        );
        assert!(e.ci95[1] - e.ci95[0] < 0.2);
        assert_eq!(e.ci95, Evaluation::new(&outcomes, 7).ci95);
    }
}
