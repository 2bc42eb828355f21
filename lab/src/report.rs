//! Machine-readable results of inference: the `--json` document of `bip infer` and the
//! predictions of `bip eval --predictions`.

use std::collections::BTreeMap;

use serde::Serialize;

use bip_episodes::{option_letter, Episode, Expected, QuestionLabel, World};

use bip_engine::Answer;
use bip_engine::InitialBelief;
use bip_engine::QuestionCost;
use bip_engine::RankedHypothesis;
use bip_engine::{EpisodeInference, TraceStep};

/// The whole report: `{"episodes": [...], "summary": {...}}`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// One entry per episode, in input order.
    pub episodes: Vec<EpisodeReport>,
    /// Counts over all questions.
    pub summary: Summary,
}

/// Counts over all questions of a report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Questions answered.
    pub questions: usize,
    /// Questions with an expected answer.
    pub with_expected: usize,
    /// Of those, answered as expected.
    pub correct: usize,
    /// Questions left unanswered because the options tied.
    pub ties: usize,
}

/// Results for one episode.
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeReport {
    /// Episode id.
    pub id: String,
    /// Where it was read from, when it came from a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The policy that scored the actions.
    pub policy: String,
    /// One entry per question.
    pub questions: Vec<QuestionReport>,
    /// The posterior step by step, when traced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceReport>,
    /// When the episode has several readings of where objects start: the posterior
    /// probability of each after all the actions, the world as written first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub readings: Vec<f64>,
}

/// The answer to one question.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionReport {
    /// Question id.
    pub id: String,
    /// Its label (e.g. MMToM type), if any.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub label: Option<QuestionLabel>,
    /// Actions seen when asked.
    pub at: usize,
    /// The chosen option's letter; `null` on a tie or when abstaining ("cannot tell").
    pub answer: Option<String>,
    /// Option letter → probability normalised over the options.
    pub posterior: BTreeMap<String, f64>,
    /// Option letter → P(claim | condition), `null` when the condition is impossible.
    pub probability: BTreeMap<String, Option<f64>>,
    /// Best minus runner-up normalised probability.
    pub margin: f64,
    /// The expected letter, or "unknowable", if known.
    pub expected: Option<String>,
    /// Whether the answer is right (abstaining is right on an unknowable question);
    /// `null` without an expectation.
    pub correct: Option<bool>,
    /// What answering it cost (time, hypotheses, LM tokens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<QuestionCost>,
}

/// The posterior after one step.
#[derive(Debug, Clone, Serialize)]
pub struct TraceReport {
    /// Actions seen.
    pub step: usize,
    /// The action that led here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Goal class → posterior probability.
    pub goals: BTreeMap<String, f64>,
    /// The most probable joint hypotheses.
    pub top: Vec<HypothesisReport>,
}

/// One joint hypothesis in a trace.
#[derive(Debug, Clone, Serialize)]
pub struct HypothesisReport {
    /// Wanted class.
    pub goal: String,
    /// Starting belief: the furniture the agent thought holds it ("a or b" for a set), or
    /// `null` for no idea.
    pub initially_thought: Option<String>,
    /// Where the agent now thinks it is; `null` while undecided.
    pub now_thinks: Option<String>,
    /// Posterior probability.
    pub probability: f64,
}

impl EpisodeReport {
    /// Builds the report of `inference` over `episode`, abstaining on questions whose
    /// margin is below `abstain_below` (0: only on exact ties).
    pub fn new(
        episode: &Episode,
        inference: &EpisodeInference,
        policy: &str,
        source: Option<String>,
        abstain_below: f64,
    ) -> Self {
        Self {
            id: episode.id().to_string(),
            source,
            policy: policy.to_string(),
            questions: episode
                .questions()
                .iter()
                .zip(&inference.answers)
                .enumerate()
                .map(|(i, (q, a))| QuestionReport {
                    cost: inference.costs.get(i).copied(),
                    ..QuestionReport::new(q, a, abstain_below)
                })
                .collect(),
            trace: inference
                .trace
                .iter()
                .map(|s| trace_report(episode.world(), s))
                .collect(),
            readings: inference.readings.clone(),
        }
    }
}

impl Report {
    /// Gathers episode reports and counts their answers.
    pub fn new(episodes: Vec<EpisodeReport>) -> Self {
        let mut summary = Summary::default();
        for q in episodes.iter().flat_map(|e| &e.questions) {
            summary.questions += 1;
            summary.ties += usize::from(q.answer.is_none());
            if let Some(correct) = q.correct {
                summary.with_expected += 1;
                summary.correct += usize::from(correct);
            }
        }
        Self { episodes, summary }
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // Maps with string keys and finite or null numbers always serialise.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl QuestionReport {
    /// The report of `answer` to `question`, abstaining when its margin is below
    /// `abstain_below` (0: only on exact ties); no cost.
    pub fn new(question: &bip_episodes::Question, answer: &Answer, abstain_below: f64) -> Self {
        let asked = Asked {
            id: &question.id,
            label: question.label.as_ref(),
            at: question.at,
            expected: question.expected,
        };
        asked.report(answer, abstain_below)
    }
}

/// What a report needs of a question, whatever kind of episode it is about.
pub(crate) struct Asked<'q> {
    /// Question id.
    pub id: &'q str,
    /// Its label.
    pub label: Option<&'q QuestionLabel>,
    /// Steps seen when asked.
    pub at: usize,
    /// Its expected answer.
    pub expected: Option<Expected>,
}

impl Asked<'_> {
    /// The question's report, abstaining below `abstain_below`.
    pub(crate) fn report(&self, answer: &Answer, abstain_below: f64) -> QuestionReport {
        answer_report(self, answer, abstain_below)
    }
}

fn answer_report(question: &Asked<'_>, answer: &Answer, abstain_below: f64) -> QuestionReport {
    let choice = answer.choice.filter(|_| answer.margin >= abstain_below);
    let answer_letter = choice.map(option_letter);
    let expected = question.expected.map(Expected::label);
    let correct = question.expected.map(|e| match e {
        Expected::Option(i) => choice == Some(i),
        Expected::Unknowable => choice.is_none(),
    });
    QuestionReport {
        id: question.id.to_string(),
        label: question.label.cloned(),
        at: question.at,
        correct,
        answer: answer_letter,
        posterior: answer
            .posterior
            .iter()
            .enumerate()
            .map(|(i, p)| (option_letter(i), *p))
            .collect(),
        probability: answer
            .probabilities
            .iter()
            .enumerate()
            .map(|(i, p)| (option_letter(i), *p))
            .collect(),
        margin: answer.margin,
        expected,
        cost: None,
    }
}

fn trace_report(world: &World, step: &TraceStep) -> TraceReport {
    TraceReport {
        step: step.step,
        action: step.action.map(|a| a.describe(world)),
        goals: step
            .goals
            .iter()
            .map(|(c, p)| (world.class_name(*c).to_string(), *p))
            .collect(),
        top: step
            .top
            .iter()
            .map(|h| HypothesisReport::new(world, h))
            .collect(),
    }
}

impl HypothesisReport {
    /// A ranked hypothesis in `world`'s names.
    pub fn new(world: &World, h: &RankedHypothesis) -> Self {
        Self {
            goal: world.class_name(h.goal).to_string(),
            initially_thought: match &h.initial {
                InitialBelief::Uninformed => None,
                InitialBelief::ThinksAt(f) => Some(world.furniture(*f).name.clone()),
                InitialBelief::ThinksAmong(among) => Some(
                    among
                        .iter()
                        .map(|f| world.furniture(*f).name.as_str())
                        .collect::<Vec<_>>()
                        .join(" or "),
                ),
            },
            now_thinks: h.now_thinks.map(|f| world.furniture(f).name.clone()),
            probability: h.probability,
        }
    }
}

/// One line of `bip eval --predictions`.
#[derive(Debug, Clone, Serialize)]
pub struct Prediction {
    /// Episode id.
    pub episode: String,
    /// Question id.
    pub question: String,
    /// FNV-1a 64 hash (hex) of the question's content: world, agent, the actions before it
    /// and the question itself, in canonical JSON. Equal content, equal hash.
    pub hash: String,
    /// Question label.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub label: Option<QuestionLabel>,
    /// Option letter → normalised posterior.
    pub posterior: BTreeMap<String, f64>,
    /// Chosen letter; `null` on a tie.
    pub answer: Option<String>,
    /// Expected letter, if known.
    pub expected: Option<String>,
}

/// The predictions of every question of an episode, in question order.
pub fn predictions(episode: &Episode, inference: &EpisodeInference) -> Vec<Prediction> {
    let file = episode.to_file();
    episode
        .questions()
        .iter()
        .zip(&file.questions)
        .zip(&inference.answers)
        .map(|((question, question_file), answer)| {
            let content = serde_json::json!({
                "world": file.world,
                "agent": file.agent,
                "actions": file.actions[..question.at],
                "question": question_file,
            });
            let report = QuestionReport::new(question, answer, 0.0);
            Prediction {
                episode: episode.id().to_string(),
                question: question.id.clone(),
                hash: format!("{:016x}", fnv1a(content.to_string().as_bytes())),
                label: question.label.clone(),
                posterior: report.posterior,
                answer: report.answer,
                expected: report.expected,
            }
        })
        .collect()
}

/// 64-bit FNV-1a: a content hash stable across Rust versions and platforms (predictions'
/// `hash`, a study plan's questions).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
