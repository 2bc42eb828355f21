//! Scoring stories' answers: accuracy overall and by the question's order, the story's
//! length, whether anyone tells anyone anything (deception), and any other tag, each
//! with an episode-cluster bootstrap interval; and predictions per question.

use std::collections::BTreeMap;

use serde::Serialize;

use bip_episodes::Story;

use crate::evaluation::{cluster_bootstrap, Evaluation, GroupAccuracy, Outcome};
use crate::report::Prediction;

use super::report::story_predictions;
use bip_nested::{infer_stories, Trust};

/// The report of `bip eval` on stories.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoryEvaluation {
    /// Accuracy overall (and by question label), as for single-agent episodes.
    #[serde(flatten)]
    pub overall: Evaluation,
    /// Facet → value → accuracy. Facets: `order` (of the question's claims: 0 for where
    /// an object really is), `deception` (`yes` when the story has claims), and every tag
    /// of the stories (`length`, `prompting`, ...).
    pub by: BTreeMap<String, BTreeMap<String, GroupAccuracy>>,
    /// The trust the answers were inferred with.
    pub trust: f64,
}

/// What [`evaluate_stories`] found.
#[derive(Debug, Clone, Serialize)]
pub struct StoryRun {
    /// The report.
    pub evaluation: StoryEvaluation,
    /// One per question, in input order (the lines of `bip eval --predictions`).
    pub predictions: Vec<Prediction>,
    /// The questions with an expected answer, scored, in input order.
    #[serde(skip)]
    pub outcomes: Vec<Outcome>,
}

/// The facets of every question of `story`: order, deception, and the story's tags.
fn facets(story: &Story) -> Vec<BTreeMap<String, String>> {
    let mut common: BTreeMap<String, String> = story.tags().clone();
    let deception = if story.has_claims() { "yes" } else { "no" };
    common.insert("deception".into(), deception.into());
    story
        .questions()
        .iter()
        .map(|q| {
            let mut f = common.clone();
            f.insert("order".into(), q.order().to_string());
            f
        })
        .collect()
}

/// Answers every question of `stories` (in parallel; the results do not depend on it)
/// and scores those with an expected answer; the bootstrap draws from `seed`.
pub fn evaluate_stories(stories: &[Story], trust: Trust, seed: u64) -> StoryRun {
    let inferences = infer_stories(stories, trust);
    let (mut outcomes, mut groups, mut predictions) = (Vec::new(), Vec::new(), Vec::new());
    for (story, inference) in stories.iter().zip(&inferences) {
        let facets = facets(story);
        for ((q, answer), f) in story.questions().iter().zip(&inference.answers).zip(facets) {
            if let Some(expected) = q.expected {
                outcomes.push(Outcome {
                    episode: story.id().to_string(),
                    label: q.label.clone(),
                    expected,
                    answer: answer.clone(),
                });
                groups.push(f);
            }
        }
        predictions.extend(story_predictions(story, inference));
    }
    let mut by: BTreeMap<String, BTreeMap<String, Vec<Outcome>>> = BTreeMap::new();
    for (o, f) in outcomes.iter().zip(&groups) {
        for (facet, value) in f {
            let group = by.entry(facet.clone()).or_default();
            group.entry(value.clone()).or_default().push(o.clone());
        }
    }
    let by = by
        .into_iter()
        .map(|(facet, values)| {
            let values = values
                .into_iter()
                .map(|(v, group)| (v, group_accuracy(&group, seed)))
                .collect();
            (facet, values)
        })
        .collect();
    StoryRun {
        evaluation: StoryEvaluation {
            overall: Evaluation::new(&outcomes, 0.0, seed),
            by,
            trust: trust.value(),
        },
        predictions,
        outcomes,
    }
}

fn group_accuracy(outcomes: &[Outcome], seed: u64) -> GroupAccuracy {
    let correct = outcomes.iter().filter(|o| o.correct(0.0)).count();
    GroupAccuracy {
        n: outcomes.len(),
        correct,
        accuracy: if outcomes.is_empty() {
            0.0
        } else {
            correct as f64 / outcomes.len() as f64
        },
        ci95: cluster_bootstrap(outcomes, 0.0, seed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nested::generate::{generate_stories, NestedOptions};

    #[test]
    fn stories_are_scored_by_order_deception_and_length() {
        let stories = generate_stories(&NestedOptions::default(), 20).expect("generate");
        let run = evaluate_stories(&stories, Trust::default(), 0);
        let e = &run.evaluation;
        assert_eq!(e.overall.n, 100);
        assert_eq!(run.predictions.len(), 100);
        let orders: Vec<&String> = e.by["order"].keys().collect();
        assert_eq!(orders, ["0", "1", "2", "3", "4"]);
        assert!(e.by["order"].values().all(|a| a.n == 20));
        assert_eq!(e.by["deception"].values().map(|a| a.n).sum::<usize>(), 100);
        assert!(e.by.contains_key("length"));
        for a in e.by.values().flat_map(|v| v.values()) {
            assert!(a.ci95[0] <= a.accuracy && a.accuracy <= a.ci95[1]);
        }
        assert_eq!(
            evaluate_stories(&stories, Trust::default(), 0).evaluation,
            *e
        );
        let json = serde_json::to_value(e).expect("serialise");
        assert!(json["by"]["order"]["4"]["ci95"].is_array() && json["accuracy"].is_number());
    }
}
