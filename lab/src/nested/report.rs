//! What a story's answers are reported as: `bip infer`'s report, and the predictions a
//! run over many stories keeps.

use bip_episodes::Story;

use crate::report::{fnv1a, Asked, EpisodeReport, Prediction};
use bip_nested::StoryInference;

fn asked(q: &bip_episodes::StoryQuestion) -> Asked<'_> {
    Asked {
        id: &q.id,
        label: q.label.as_ref(),
        at: q.at,
        expected: q.expected,
    }
}

/// The predictions of every question of a story, in question order; the hash is of the
/// story's world, agents, the events before the question and the question.
pub fn story_predictions(story: &Story, inference: &StoryInference) -> Vec<Prediction> {
    let file = story.to_file();
    story
        .questions()
        .iter()
        .zip(&file.questions)
        .zip(&inference.answers)
        .map(|((q, question_file), answer)| {
            let content = serde_json::json!({
                "world": file.world,
                "agents": file.agents,
                "events": file.events[..q.at],
                "question": question_file,
            });
            let report = asked(q).report(answer, 0.0);
            Prediction {
                episode: story.id().to_string(),
                question: q.id.clone(),
                hash: format!("{:016x}", fnv1a(content.to_string().as_bytes())),
                label: q.label.clone(),
                posterior: report.posterior,
                answer: report.answer,
                expected: report.expected,
            }
        })
        .collect()
}

/// The report of one story's answers, as `bip infer` prints it (policy "nested").
pub fn story_report(
    story: &Story,
    inference: &StoryInference,
    source: Option<String>,
    abstain_below: f64,
) -> EpisodeReport {
    EpisodeReport {
        id: story.id().to_string(),
        source,
        policy: "nested".to_string(),
        questions: story
            .questions()
            .iter()
            .zip(&inference.answers)
            .map(|(q, a)| asked(q).report(a, abstain_below))
            .collect(),
        trace: Vec::new(),
        readings: Vec::new(),
    }
}
