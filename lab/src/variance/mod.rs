//! Variance across variants of the same items (themes of the same questions): accuracy
//! per variant, overall and by type, with episode-cluster bootstrap intervals; the range
//! and variance of accuracy across variants; and for each variant against the baseline
//! an exact McNemar test on the paired items, Holm–Bonferroni adjusted across variants.
//!
//! [`run_themes`] reads the same items in several themes, infers them and reports;
//! items are stored one JSON line each ([`VarianceRecord`]), so that runs split into
//! shards ([`Shard`]) can be merged into one report ([`merge_shards`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use bip_episodes::{option_index, option_letter, Expected, Question, QuestionLabel};

use crate::evaluation::{by_type, Evaluation, GroupAccuracy, Outcome};
use crate::run_file::RunHeader;
use crate::stats::{holm, mcnemar_exact, range_and_variance};
use bip_engine::Answer;

mod merge;
mod run;

pub use merge::{merge_shards, parse_records};
pub use run::{
    compared_themes, read_item, run_themes, Item, ItemFormat, Shard, VarianceOptions, VarianceRun,
};

/// The format named in the header of every variance predictions file.
pub const VARIANCE_FORMAT: &str = "bip-variance/1";

/// What decides a variance run's records beyond its input: the themes compared, the
/// baseline first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariancePlan {
    /// The themes compared, the baseline first.
    pub themes: Vec<String>,
}

/// The first line of a variance predictions file ([`VARIANCE_FORMAT`]): which shard of
/// the input the run covered and in which themes, so that [`merge_shards`] can tell a
/// missing shard or a record of a theme the run did not compare.
pub type VarianceHeader = RunHeader<VariancePlan>;

/// One record of a variance predictions file (after its header): a scored question, or
/// an input the variant could not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum VarianceRecord {
    /// A scored question.
    Item(ItemRecord),
    /// An input that could not be read in this variant.
    Unreadable(UnreadableRecord),
}

impl VarianceRecord {
    /// The variant (theme id) the record belongs to.
    pub fn theme(&self) -> &str {
        match self {
            Self::Item(r) => &r.theme,
            Self::Unreadable(r) => &r.theme,
        }
    }

    /// What the record is about, the same in every variant: the item
    /// (`episode/question`), or `line N` for an unreadable input.
    pub fn key(&self) -> String {
        match self {
            Self::Item(r) => r.item.clone(),
            Self::Unreadable(r) => format!("line {}", r.line),
        }
    }

    /// The scored question, for a scored record.
    pub fn scored(&self) -> Option<&ItemRecord> {
        match self {
            Self::Item(r) => Some(r),
            Self::Unreadable(_) => None,
        }
    }
}

/// A scored question of one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemRecord {
    /// The variant (theme id).
    pub theme: String,
    /// The item, the same in every variant: `episode/question`.
    pub item: String,
    /// The episode (the bootstrap's cluster).
    pub episode: String,
    /// Its label (MMToM type), if any.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub label: Option<QuestionLabel>,
    /// The correct option's letter, or `"unknowable"`.
    pub expected: String,
    /// The chosen option's letter; `null` on a tie.
    pub answer: Option<String>,
    /// Normalised probability of each option.
    pub posterior: Vec<f64>,
    /// Best minus second-best probability.
    pub margin: f64,
    /// Whether the answer is the expected one.
    pub correct: bool,
}

/// An input a variant could not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnreadableRecord {
    /// The variant (theme id).
    pub theme: String,
    /// The input line (from 1).
    pub line: usize,
    /// Why it could not be read.
    pub unreadable: String,
}

impl ItemRecord {
    /// The record of `answer` to `question` of episode `episode` in variant `theme`.
    pub fn new(theme: &str, episode: &str, question: &Question, answer: &Answer) -> Self {
        let expected = question.expected.unwrap_or(Expected::Unknowable);
        let outcome = Outcome {
            episode: episode.to_string(),
            label: question.label.clone(),
            expected,
            answer: answer.clone(),
        };
        Self {
            theme: theme.to_string(),
            item: format!("{episode}/{}", question.id),
            episode: episode.to_string(),
            label: question.label.clone(),
            expected: expected.label(),
            answer: answer.choice.map(option_letter),
            posterior: answer.posterior.clone(),
            margin: answer.margin,
            correct: outcome.correct(0.0),
        }
    }

    /// The outcome to score; `None` when `expected` or `answer` is not an option letter
    /// of `posterior`.
    pub fn outcome(&self) -> Option<Outcome> {
        let options = self.posterior.len();
        let expected = match self.expected.as_str() {
            Expected::UNKNOWABLE => Expected::Unknowable,
            letter => Expected::Option(option_index(letter, options)?),
        };
        let choice = match &self.answer {
            Some(letter) => Some(option_index(letter, options)?),
            None => None,
        };
        Some(Outcome {
            episode: self.episode.clone(),
            label: self.label.clone(),
            expected,
            answer: Answer {
                probabilities: self.posterior.iter().map(|&p| Some(p)).collect(),
                posterior: self.posterior.clone(),
                choice,
                margin: self.margin,
            },
        })
    }
}

/// The scored items of one variant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VariantRun {
    /// Variant name (theme id).
    pub name: String,
    /// (item key, outcome); the key pairs items across variants.
    pub items: Vec<(String, Outcome)>,
    /// Inputs that could not be read.
    pub unreadable: usize,
}

/// A variant against the baseline on the items both scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedTest {
    /// Items scored in both.
    pub paired: usize,
    /// Right in the baseline only.
    pub baseline_only: usize,
    /// Right in the variant only.
    pub variant_only: usize,
    /// Exact two-sided McNemar p-value.
    pub p: f64,
    /// Holm–Bonferroni adjusted over the variants compared.
    pub p_holm: f64,
}

/// One variant's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantReport {
    /// Variant name.
    pub name: String,
    /// Inputs that could not be read (not scored).
    pub unreadable: usize,
    /// Accuracy over answerable questions, with its interval.
    #[serde(flatten)]
    pub overall: GroupAccuracy,
    /// Answerable questions left unanswered by a tie.
    pub ties: usize,
    /// Mean accuracy over the correct option's positions (a, b, ...).
    pub position_balanced_accuracy: f64,
    /// Accuracy by label.
    pub by_type: BTreeMap<String, GroupAccuracy>,
    /// Against the baseline; `None` for the baseline itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub versus_baseline: Option<PairedTest>,
}

/// Accuracy by variant and question type: the grid of `bip variance`'s table and heat map.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeGrid {
    /// The columns: every question type any variant scored (its label's text,
    /// [`UNLABELLED`](crate::evaluation::UNLABELLED) for unlabelled questions), in order.
    pub types: Vec<String>,
    /// `accuracy[[variant, type]]`, rows in the order of [`VarianceReport::variants`];
    /// `None` where the variant scored no question of the type.
    pub accuracy: Array2<Option<f64>>,
}

/// The whole variance report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VarianceReport {
    /// The variant the others are tested against.
    pub baseline: String,
    /// Every variant, in the order given.
    pub variants: Vec<VariantReport>,
    /// Largest minus smallest accuracy across variants.
    pub range: f64,
    /// Sample variance (n − 1) of the variants' accuracies.
    pub variance: f64,
    /// Its square root.
    pub sd: f64,
}

impl VarianceReport {
    /// Scores every run (answering everything but exact ties) and compares each with the
    /// run named `baseline`, if there is one. The bootstraps draw from `seed`.
    pub fn new(runs: &[VariantRun], baseline: &str, seed: u64) -> Self {
        let base: Option<HashMap<&str, bool>> = runs.iter().find(|r| r.name == baseline).map(|r| {
            r.items
                .iter()
                .map(|(k, o)| (k.as_str(), o.correct(0.0)))
                .collect()
        });
        let mut variants: Vec<VariantReport> = runs
            .iter()
            .map(|run| {
                let outcomes: Vec<Outcome> = run.items.iter().map(|(_, o)| o.clone()).collect();
                let evaluation = Evaluation::new(&outcomes, 0.0, seed);
                let groups = by_type(&outcomes);
                // The groups the evaluation scored (those with answerable questions), each
                // with its unknowable questions too, as the evaluation of the group sees it.
                let by_type = evaluation
                    .by_type
                    .keys()
                    .filter_map(|label| {
                        let group: Vec<Outcome> = groups
                            .get(label.as_str())?
                            .iter()
                            .map(|&o| o.clone())
                            .collect();
                        let accuracy = group_accuracy(&Evaluation::new(&group, 0.0, seed));
                        Some((label.clone(), accuracy))
                    })
                    .collect();
                let versus_baseline = base
                    .as_ref()
                    .filter(|_| run.name != baseline)
                    .map(|base| paired(base, run));
                VariantReport {
                    name: run.name.clone(),
                    unreadable: run.unreadable,
                    overall: group_accuracy(&evaluation),
                    ties: evaluation.ties,
                    position_balanced_accuracy: evaluation.position_balanced_accuracy,
                    by_type,
                    versus_baseline,
                }
            })
            .collect();
        let tested: Vec<usize> = (0..variants.len())
            .filter(|&i| variants[i].versus_baseline.is_some())
            .collect();
        let p: Vec<f64> = tested
            .iter()
            .filter_map(|&i| variants[i].versus_baseline.as_ref().map(|t| t.p))
            .collect();
        for (&i, adjusted) in tested.iter().zip(holm(&p)) {
            if let Some(test) = &mut variants[i].versus_baseline {
                test.p_holm = adjusted;
            }
        }
        let accuracies: Vec<f64> = variants.iter().map(|v| v.overall.accuracy).collect();
        let (range, variance) = range_and_variance(&accuracies);
        Self {
            baseline: baseline.to_string(),
            variants,
            range,
            variance,
            sd: variance.sqrt(),
        }
    }

    /// Accuracy by variant (rows) and question type (columns).
    pub fn type_grid(&self) -> TypeGrid {
        let types: Vec<String> = self
            .variants
            .iter()
            .flat_map(|v| v.by_type.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .cloned()
            .collect();
        let accuracy = Array2::from_shape_fn((self.variants.len(), types.len()), |(v, t)| {
            self.variants[v].by_type.get(&types[t]).map(|a| a.accuracy)
        });
        TypeGrid { types, accuracy }
    }

    /// The report of `records`: one run per variant of `order`, the one named `baseline`
    /// first and the others in the order given. Records of other variants, and scored
    /// records whose letters are not options (see [`ItemRecord::outcome`]), are left out.
    pub fn from_records(
        records: &[VarianceRecord],
        order: &[String],
        baseline: &str,
        seed: u64,
    ) -> Self {
        let mut runs: Vec<VariantRun> = order
            .iter()
            .map(|name| VariantRun {
                name: name.clone(),
                ..VariantRun::default()
            })
            .collect();
        runs.sort_by_key(|r| r.name != baseline);
        for record in records {
            let Some(run) = runs.iter_mut().find(|r| r.name == record.theme()) else {
                continue;
            };
            match record {
                VarianceRecord::Item(r) => {
                    if let Some(outcome) = r.outcome() {
                        run.items.push((r.item.clone(), outcome));
                    }
                }
                VarianceRecord::Unreadable(_) => run.unreadable += 1,
            }
        }
        Self::new(&runs, baseline, seed)
    }
}

fn group_accuracy(e: &Evaluation) -> GroupAccuracy {
    GroupAccuracy {
        n: e.n,
        correct: e.correct,
        accuracy: e.accuracy,
        ci95: e.ci95,
    }
}

/// McNemar counts of `run` against the baseline's correctness, on shared items.
pub(crate) fn paired(base: &HashMap<&str, bool>, run: &VariantRun) -> PairedTest {
    let (mut paired, mut baseline_only, mut variant_only) = (0, 0, 0);
    for (key, outcome) in &run.items {
        let Some(&right_before) = base.get(key.as_str()) else {
            continue;
        };
        let right_now = outcome.correct(0.0);
        paired += 1;
        baseline_only += usize::from(right_before && !right_now);
        variant_only += usize::from(right_now && !right_before);
    }
    let p = mcnemar_exact(baseline_only, variant_only);
    PairedTest {
        paired,
        baseline_only,
        variant_only,
        p,
        p_holm: p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(episode: &str, label: &str, right: bool) -> Outcome {
        let choice = if right { 0 } else { 1 };
        let mut posterior = vec![0.2, 0.2];
        posterior[choice] = 0.8;
        Outcome {
            episode: episode.into(),
            label: Some(QuestionLabel::parse(label)),
            expected: Expected::Option(0),
            answer: Answer {
                probabilities: vec![],
                posterior,
                choice: Some(choice),
                margin: 0.6,
            },
        }
    }

    fn run(name: &str, right: &[bool]) -> VariantRun {
        VariantRun {
            name: name.into(),
            items: right
                .iter()
                .enumerate()
                .map(|(i, &r)| {
                    (
                        format!("e{i}/q1"),
                        outcome(&format!("e{i}"), if i % 2 == 0 { "1.1" } else { "2.1" }, r),
                    )
                })
                .collect(),
            unreadable: 0,
        }
    }

    #[test]
    fn variants_are_paired_against_the_baseline_and_holm_adjusted() {
        // Baseline right on 8 of 10; "worse" loses 6 of them and wins 1 → b = 6, c = 1.
        let base = [true, true, true, true, true, true, true, true, false, false];
        let worse = [
            false, false, false, false, false, false, true, true, true, false,
        ];
        let report = VarianceReport::new(
            &[
                run("apartment", &base),
                run("worse", &worse),
                run("same", &base),
            ],
            "apartment",
            0,
        );
        assert!(report.variants[0].versus_baseline.is_none());
        let w = report.variants[1].versus_baseline.as_ref().expect("tested");
        assert_eq!((w.paired, w.baseline_only, w.variant_only), (10, 6, 1));
        assert!((w.p - 0.125).abs() < 1e-12);
        // Holm over {0.125, 1}: 0.125 · 2.
        assert!((w.p_holm - 0.25).abs() < 1e-12);
        let s = report.variants[2].versus_baseline.as_ref().expect("tested");
        assert_eq!(s.p_holm, 1.0);
        assert!((report.range - 0.5).abs() < 1e-12);
        // Accuracies 0.8, 0.3, 0.8: mean 0.6333, sample variance 0.08333.
        assert!((report.variance - 0.25 / 3.0).abs() < 1e-12);
        assert_eq!(report.variants[1].by_type["1.1"].n, 5);
        let grid = report.type_grid();
        assert_eq!(grid.types, ["1.1", "2.1"]);
        assert_eq!(grid.accuracy.dim(), (3, 2));
        assert_eq!(
            grid.accuracy[[1, 0]],
            Some(0.4),
            "worse: right on 2 of the 5 even items"
        );
        assert!(
            report.variants[0].overall.ci95[0] <= 0.8 && report.variants[0].overall.ci95[1] >= 0.8
        );
    }

    #[test]
    fn records_round_trip_to_outcomes() {
        let o = outcome("e1", "1.2", false);
        let question = Question {
            id: "q1".into(),
            label: Some(QuestionLabel::parse("1.2")),
            text: None,
            at: 0,
            options: vec![],
            expected: Some(Expected::Option(0)),
        };
        let record = ItemRecord::new("castle", "e1", &question, &o.answer);
        assert_eq!(
            (
                record.item.as_str(),
                record.answer.as_deref(),
                record.correct
            ),
            ("e1/q1", Some("b"), false)
        );
        let line = serde_json::to_string(&VarianceRecord::Item(record.clone())).expect("json");
        let back: VarianceRecord = serde_json::from_str(&line).expect("parses");
        assert_eq!(back, VarianceRecord::Item(record.clone()));
        let again = record.outcome().expect("valid letters");
        assert_eq!(
            (again.expected, again.answer.choice),
            (Expected::Option(0), Some(1))
        );
        let unreadable: VarianceRecord =
            serde_json::from_str(r#"{"theme": "x", "line": 3, "unreadable": "why"}"#)
                .expect("parses");
        assert!(matches!(unreadable, VarianceRecord::Unreadable(_)));
    }
}
