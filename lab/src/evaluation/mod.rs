//! Scoring answers against expected ones: accuracy overall and by question label,
//! answer-position-balanced accuracy, an episode-cluster bootstrap interval, abstention
//! (refusal recall and over-refusal) and calibration (ECE, Brier score). [`evaluate`]
//! does all of it for a set of episodes: infer, answer, score.

use std::collections::BTreeMap;

use serde::Serialize;

use bip_episodes::{Expected, QuestionLabel};

use crate::rng::Rng;
use bip_engine::Answer;

mod cost;
mod coverage;
mod run;

pub use cost::CostSummary;
pub use coverage::{risk_coverage, risk_coverage_csv, RISK_COVERAGE_COLUMNS};
pub use run::{evaluate, EvaluateOptions, EvaluationRun};

/// Accuracy of one group of questions, with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GroupAccuracy {
    /// Questions.
    pub n: usize,
    /// Answered as expected.
    pub correct: usize,
    /// `correct / n`.
    pub accuracy: f64,
    /// 95% percentile interval, resampling whole episodes (or stories) within the group.
    pub ci95: [f64; 2],
}

/// Bootstrap resamples drawn for the confidence interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// Equal-mass bins of the expected calibration error.
pub const CALIBRATION_BINS: usize = 10;

/// The default `--abstain-below` margin: abstain when the two best options' normalised
/// probabilities are within two points. Questions the behaviour cannot decide come out as
/// exact ties; answerable ones rarely fall this close.
pub const DEFAULT_ABSTAIN_MARGIN: f64 = 0.02;

/// The group of unlabelled questions in the tables by type.
pub const UNLABELLED: &str = "-";

/// One scored question.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The episode it belongs to (the bootstrap's cluster).
    pub episode: String,
    /// Its label (MMToM type), if any.
    pub label: Option<QuestionLabel>,
    /// The correct answer.
    pub expected: Expected,
    /// The posterior's answer.
    pub answer: Answer,
}

impl Outcome {
    /// The key of the question's group in the tables by type: its label's text, or
    /// [`UNLABELLED`].
    pub fn type_key(&self) -> &str {
        self.label
            .as_ref()
            .map_or(UNLABELLED, QuestionLabel::as_str)
    }

    /// The option chosen when abstaining below `margin`; `None` is "cannot tell".
    pub fn choice(&self, margin: f64) -> Option<usize> {
        self.answer.choice.filter(|_| self.answer.margin >= margin)
    }

    /// Whether the response is right: the expected option, or abstaining when unknowable.
    pub fn correct(&self, margin: f64) -> bool {
        match self.expected {
            Expected::Option(i) => self.choice(margin) == Some(i),
            Expected::Unknowable => self.choice(margin).is_none(),
        }
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
    fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>, margin: f64) -> Self {
        let (mut n, mut correct) = (0, 0);
        for o in outcomes {
            n += 1;
            correct += usize::from(o.correct(margin));
        }
        Self {
            n,
            correct,
            accuracy: ratio(correct, n),
        }
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// How abstaining below a margin worked out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Abstention {
    /// The margin below which the answer is "cannot tell".
    pub margin: f64,
    /// Share of all questions answered.
    pub coverage: f64,
    /// Accuracy on the answerable questions that were answered.
    pub selective_accuracy: f64,
    /// Questions whose expected answer is "unknowable".
    pub unknowable: usize,
    /// Share of unknowable questions abstained on.
    pub refusal_recall: f64,
    /// Share of answerable questions abstained on.
    pub over_refusal: f64,
}

impl Abstention {
    fn new(outcomes: &[Outcome], margin: f64) -> Self {
        let answered = |o: &Outcome| o.choice(margin).is_some();
        let (unknowable, answerable): (Vec<&Outcome>, Vec<&Outcome>) = outcomes
            .iter()
            .partition(|o| o.expected == Expected::Unknowable);
        let answered_answerable: Vec<&Outcome> =
            answerable.iter().copied().filter(|o| answered(o)).collect();
        Self {
            margin,
            coverage: ratio(
                outcomes.iter().filter(|o| answered(o)).count(),
                outcomes.len(),
            ),
            selective_accuracy: ratio(
                answered_answerable
                    .iter()
                    .filter(|o| o.correct(margin))
                    .count(),
                answered_answerable.len(),
            ),
            unknowable: unknowable.len(),
            refusal_recall: ratio(
                unknowable.iter().filter(|o| !answered(o)).count(),
                unknowable.len(),
            ),
            over_refusal: ratio(
                answerable.len() - answered_answerable.len(),
                answerable.len(),
            ),
        }
    }
}

/// One bin of a reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CalibrationBin {
    /// Questions in the bin.
    pub n: usize,
    /// Mean probability of the chosen option.
    pub confidence: f64,
    /// Share of them answered correctly.
    pub accuracy: f64,
}

/// Calibration of the chosen option's probability on answerable questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// Expected calibration error over equal-mass bins.
    pub ece: f64,
    /// Brier score: mean over questions of Σ over options (p − 1\[correct\])².
    pub brier: f64,
    /// Mean log probability of the correct option (the quantity `bip calibrate` maximises).
    pub mean_log_likelihood: f64,
    /// The bins, by increasing confidence.
    pub bins: Vec<CalibrationBin>,
}

impl Calibration {
    /// Calibration of `outcomes`' answerable questions (empty bins when there are none).
    pub fn new(outcomes: &[Outcome]) -> Self {
        let mut scored: Vec<(f64, bool)> = Vec::new();
        let (mut brier, mut log_likelihood) = (0.0, 0.0);
        for o in outcomes {
            let Expected::Option(expected) = o.expected else {
                continue;
            };
            let posterior = &o.answer.posterior;
            let best = (0..posterior.len())
                .max_by(|&a, &b| posterior[a].total_cmp(&posterior[b]).then(b.cmp(&a)));
            let Some(best) = best else {
                continue;
            };
            scored.push((
                posterior[best],
                best == expected && o.answer.choice.is_some(),
            ));
            brier += posterior
                .iter()
                .enumerate()
                .map(|(i, p)| (p - f64::from(u8::from(i == expected))).powi(2))
                .sum::<f64>();
            log_likelihood += posterior
                .get(expected)
                .copied()
                .unwrap_or(0.0)
                .max(1e-12)
                .ln();
        }
        scored.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = scored.len();
        let bins: Vec<CalibrationBin> = equal_mass_bins(&scored)
            .into_iter()
            .map(|bin| CalibrationBin {
                n: bin.len(),
                confidence: bin.iter().map(|(p, _)| p).sum::<f64>() / bin.len() as f64,
                accuracy: ratio(bin.iter().filter(|(_, c)| *c).count(), bin.len()),
            })
            .collect();
        let ece = bins
            .iter()
            .map(|b| b.n as f64 / n.max(1) as f64 * (b.confidence - b.accuracy).abs())
            // From +0: an empty sum of f64 is -0, which prints as "-0.0".
            .fold(0.0, |a, b| a + b);
        Self {
            ece,
            brier: brier / n.max(1) as f64,
            mean_log_likelihood: log_likelihood / n.max(1) as f64,
            bins,
        }
    }
}

/// Splits confidence-sorted `scored` into about [`CALIBRATION_BINS`] bins of equal size,
/// never separating equal confidences (which would make the error depend on their order).
fn equal_mass_bins(scored: &[(f64, bool)]) -> Vec<&[(f64, bool)]> {
    let target = scored.len().div_ceil(CALIBRATION_BINS).max(1);
    let mut bins = Vec::new();
    let mut start = 0;
    for end in 1..=scored.len() {
        let boundary = end == scored.len() || scored[end].0 != scored[end - 1].0;
        if boundary && end - start >= target {
            bins.push(&scored[start..end]);
            start = end;
        }
    }
    if start < scored.len() {
        bins.push(&scored[start..]);
    }
    bins
}

/// The evaluation report of `bip eval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// Answerable questions scored.
    pub n: usize,
    /// Answered as expected.
    pub correct: usize,
    /// `correct / n`.
    pub accuracy: f64,
    /// Answerable questions left unanswered by a tie or abstention (counted wrong).
    pub ties: usize,
    /// Accuracy per label ("1.1" ...; [`Outcome::type_key`]); unlabelled questions under
    /// [`UNLABELLED`].
    pub by_type: BTreeMap<String, Accuracy>,
    /// Mean of the accuracies on questions whose correct option is a, b, ...: immune to a
    /// bias toward one answer position.
    pub position_balanced_accuracy: f64,
    /// 95% percentile interval of the accuracy, resampling whole episodes.
    pub ci95: [f64; 2],
    /// Abstention figures (with unknowable questions, or when a margin is set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abstention: Option<Abstention>,
    /// Calibration figures, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// Questions of a text input that could not be read (not scored), for text inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<usize>,
    /// What answering cost, when the caller measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostSummary>,
}

impl Evaluation {
    /// Scores `outcomes`, abstaining below `margin` (0: answer everything but exact ties).
    /// The bootstrap draws from `seed`, so equal inputs give equal reports.
    pub fn new(outcomes: &[Outcome], margin: f64, seed: u64) -> Self {
        let answerable: Vec<Outcome> = outcomes
            .iter()
            .filter(|o| o.expected != Expected::Unknowable)
            .cloned()
            .collect();
        let overall = Accuracy::of(&answerable, margin);
        let mut by_position: BTreeMap<Option<usize>, Vec<&Outcome>> = BTreeMap::new();
        for o in &answerable {
            by_position.entry(o.expected.option()).or_default().push(o);
        }
        let by_type = by_type(&answerable)
            .into_iter()
            .map(|(k, v)| (k.to_string(), Accuracy::of(v, margin)))
            .collect();
        let position_balanced_accuracy = ratio(1, by_position.len())
            * by_position
                .values()
                .map(|v| Accuracy::of(v.iter().copied(), margin).accuracy)
                // From +0: an empty sum of f64 is -0, which prints as "-0.0%".
                .fold(0.0, |a, b| a + b);
        let has_unknowable = answerable.len() < outcomes.len();
        Self {
            n: overall.n,
            correct: overall.correct,
            accuracy: overall.accuracy,
            ties: answerable
                .iter()
                .filter(|o| o.choice(margin).is_none())
                .count(),
            by_type,
            position_balanced_accuracy,
            ci95: cluster_bootstrap(&answerable, margin, seed),
            abstention: (has_unknowable || margin > 0.0).then(|| Abstention::new(outcomes, margin)),
            calibration: None,
            unreadable: None,
            cost: None,
        }
    }

    /// Adds calibration figures.
    pub fn with_calibration(mut self, outcomes: &[Outcome]) -> Self {
        self.calibration = Some(Calibration::new(outcomes));
        self
    }
}

/// `outcomes` grouped by [`Outcome::type_key`], in key order.
pub(crate) fn by_type(outcomes: &[Outcome]) -> BTreeMap<&str, Vec<&Outcome>> {
    let mut groups: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for o in outcomes {
        groups.entry(o.type_key()).or_default().push(o);
    }
    groups
}

/// Percentile bootstrap of accuracy over episodes: resample episodes with replacement,
/// keeping each episode's questions together.
pub(crate) fn cluster_bootstrap(outcomes: &[Outcome], margin: f64, seed: u64) -> [f64; 2] {
    let mut clusters: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for o in outcomes {
        let entry = clusters.entry(o.episode.as_str()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(o.correct(margin));
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
            ratio(correct, n)
        })
        .collect();
    accuracies.sort_by(f64::total_cmp);
    let at = |q: f64| accuracies[((accuracies.len() - 1) as f64 * q).round() as usize];
    [at(0.025), at(0.975)]
}

#[cfg(test)]
mod tests;
