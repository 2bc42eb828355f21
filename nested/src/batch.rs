//! Answering a whole story's questions: the session run through its events.

use rayon::prelude::*;

use bip_episodes::Story;

use bip_engine::{answer_from, Answer};

use crate::session::NestedInference;
use crate::trust::Trust;

/// The answers to a story's questions, in question order.
#[derive(Debug, Clone, PartialEq)]
pub struct StoryInference {
    /// One per question: each option's probability and the most probable option.
    pub answers: Vec<Answer>,
}

/// Answers every question of `story` from the nested beliefs after its `at` events. Only
/// the options' claims are read: never the question's label, wording or option order.
///
/// # Example
/// ```
/// use bip_nested::{infer_story, Trust};
/// use bip_episodes::Story;
///
/// let story = Story::from_json(r#"{"format": "bip-episode/1",
///   "world": {"rooms": ["patio"], "furniture": [
///     {"id": "red_box", "room": "patio", "kind": "container"},
///     {"id": "blue_jar", "room": "patio", "kind": "container"}],
///     "objects": [{"id": "pear", "at": "red_box"}]},
///   "agents": [{"name": "Ann"}, {"name": "Bo"}],
///   "events": [{"enter": {"agent": "Ann", "room": "patio"}},
///     {"enter": {"agent": "Bo", "room": "patio"}},
///     {"exit": {"agent": "Ann", "room": "patio"}},
///     {"move": {"agent": "Bo", "object": "pear", "to": "blue_jar"}}],
///   "questions": [{"options": [
///     {"belief": {"of": ["Bo", "Ann"], "object": "pear", "container": "red_box"}},
///     {"belief": {"of": ["Bo", "Ann"], "object": "pear", "container": "blue_jar"}}]}]}"#, "demo")?;
/// let inference = infer_story(&story, Trust::default());
/// // Bo saw Ann leave before he moved the pear: he thinks she thinks it is in the box.
/// assert_eq!(inference.answers[0].choice, Some(0));
/// # Ok::<(), bip_episodes::EpisodeError>(())
/// ```
pub fn infer_story(story: &Story, trust: Trust) -> StoryInference {
    let mut session = NestedInference::new(story, trust);
    let mut order: Vec<usize> = (0..story.questions().len()).collect();
    order.sort_by_key(|&i| story.questions()[i].at);
    let mut answers = vec![None; order.len()];
    let mut pushed = 0;
    for i in order {
        let question = &story.questions()[i];
        for event in &story.events()[pushed..question.at] {
            if session.push(event).is_err() {
                unreachable!("story events are validated when the story is built");
            }
        }
        pushed = question.at;
        let probabilities = question
            .options
            .iter()
            .map(|o| Some(session.probability(&o.claim)))
            .collect();
        answers[i] = Some(answer_from(probabilities));
    }
    StoryInference {
        answers: answers.into_iter().flatten().collect(),
    }
}

/// [`infer_story`] over many stories, in parallel; the results, in input order, do not
/// depend on it.
pub fn infer_stories(stories: &[Story], trust: Trust) -> Vec<StoryInference> {
    stories.par_iter().map(|s| infer_story(s, trust)).collect()
}
