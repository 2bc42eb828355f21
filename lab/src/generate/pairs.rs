//! Training pairs for post-training a language model as the agents' policy: every step of
//! a generated episode rendered with the agent's *true* goal and belief (which the
//! generator knows), and the action it then took, in the LM policy's own template.

use rayon::prelude::*;
use serde::Serialize;

use bip_episodes::{ClassId, Episode, State};
use bip_themes::Theme;

use super::{themed_with_truth, GenerateOptions};
use crate::LabError;
use bip_engine::Belief;
use bip_engine::PromptTemplate;
use bip_engine::Sightings;
use bip_engine::Situation;

/// What a generated episode's file leaves out: the simulated agent's hidden truth.
#[derive(Debug, Clone)]
pub struct AgentTruth {
    /// The class the agent wanted.
    pub goal: ClassId,
    /// `states[k]`: the state after `k` actions (one more than the episode's actions).
    pub states: Vec<State>,
    /// `beliefs[k]`: the belief the agent chose action `k` on.
    pub beliefs: Vec<Belief>,
}

/// One supervised example: the prompt the LM policy would render, and the action text it
/// scores after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrainingPair {
    /// [`PromptTemplate::prompt`] of the step's true situation.
    pub prompt: String,
    /// [`PromptTemplate::action`] of the action taken.
    pub action: String,
}

/// The pairs of one episode, one per action, in order.
pub fn training_pairs(
    episode: &Episode,
    truth: &AgentTruth,
    template: &PromptTemplate,
) -> Vec<TrainingPair> {
    let world = episode.world();
    let mut seen = Sightings::default();
    episode
        .actions()
        .iter()
        .zip(truth.states.iter().zip(&truth.beliefs))
        .map(|(action, (state, belief))| {
            // What the agent has seen up to and including this state, as a session
            // records it.
            seen.record(&state.observe(world));
            let situation = Situation {
                world,
                state,
                goal: truth.goal,
                belief,
                seen: &seen,
            };
            TrainingPair {
                prompt: template.prompt(&situation),
                action: template.action(world, action),
            }
        })
        .collect()
}

/// The pairs of episodes `0..count` of the stream `options` describes told in `themes`
/// (the episodes [`generate_themed`](super::generate_themed) makes with the same
/// arguments; `themes` empty: the generator's own words), episode by episode: the same
/// for a seed.
///
/// A themed episode's pairs are rendered from the themed episode, so that prompts and
/// actions name its rooms, furniture and objects as the LM policy sees them when it
/// reads that episode (as `bip variance` gives it); the truth is the plain episode's,
/// since a theme only renames.
///
/// # Errors
/// The first failing episode's error.
pub fn generate_training_pairs(
    options: &GenerateOptions,
    themes: &[Theme],
    count: usize,
    template: &PromptTemplate,
) -> Result<Vec<TrainingPair>, LabError> {
    let per_episode = (0..count)
        .into_par_iter()
        .map(|i| {
            let (episode, truth) = themed_with_truth(options, themes, i)?;
            Ok(training_pairs(&episode, &truth, template))
        })
        .collect::<Result<Vec<_>, LabError>>()?;
    Ok(per_episode.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, generate_with_truth};

    #[test]
    fn one_pair_per_action_in_the_policy_template_with_the_true_goal() {
        let options = GenerateOptions::default();
        let template = PromptTemplate::default();
        let episodes = generate(&options, 7).expect("generate");
        let pairs = generate_training_pairs(&options, &[], 7, &template).expect("pairs");
        let actions: usize = episodes.iter().map(|e| e.actions().len()).sum();
        assert_eq!(pairs.len(), actions);
        let (episode, truth) = generate_with_truth(&options, 3).expect("episode");
        assert_eq!(episode.to_json(), episodes[3].to_json());
        assert_eq!(truth.states.len(), episode.actions().len() + 1);
        let first = &training_pairs(&episode, &truth, &template)[0];
        let situation = Situation {
            world: episode.world(),
            state: &truth.states[0],
            goal: truth.goal,
            belief: &truth.beliefs[0],
            seen: &Sightings::of_states(episode.world(), &truth.states[..1]),
        };
        assert_eq!(first.prompt, template.prompt(&situation));
        assert_eq!(
            first.action,
            template.action(episode.world(), &episode.actions()[0])
        );
        let goal = episode.world().class_name(truth.goal).replace('_', " ");
        assert!(
            first.prompt.contains(&format!("Goal: get the {goal}.")),
            "{}",
            first.prompt
        );
        // The same seed gives the same pairs.
        assert_eq!(
            generate_training_pairs(&options, &[], 7, &template).expect("pairs"),
            pairs
        );
    }

    #[test]
    fn themed_pairs_are_the_plain_pairs_in_the_themes_words() {
        let options = GenerateOptions::default();
        let template = PromptTemplate::default();
        let west = Theme::builtin("wild-west").expect("built in");
        let themes = [bip_themes::builtins()[0].clone(), west.clone()];
        let plain = generate(&options, 2).expect("generate");
        let (themed, truth) = themed_with_truth(&options, &themes, 1).expect("themed");
        let pairs = training_pairs(&themed, &truth, &template);
        let (_, plain_truth) = generate_with_truth(&options, 1).expect("plain");
        let plain_pairs = training_pairs(&plain[1], &plain_truth, &template);
        assert_eq!(pairs.len(), plain_pairs.len());
        for (pair, plain_pair) in pairs.iter().zip(&plain_pairs) {
            // Rendering the themed episode is rewriting the plain rendering's words.
            assert_eq!(
                pair.prompt,
                west.apply_text(&plain_pair.prompt).expect("text")
            );
            assert_eq!(
                pair.action,
                west.apply_text(&plain_pair.action).expect("text")
            );
            assert!(
                pair.prompt.contains("- cookhouse: icebox"),
                "{}",
                pair.prompt
            );
            assert!(!pair.prompt.contains("kitchen"), "{}", pair.prompt);
        }
        // The stream's pairs are episode 0's (Apartment: plain) then episode 1's (themed).
        let stream = generate_training_pairs(&options, &themes, 2, &template).expect("pairs");
        let (_, truth0) = generate_with_truth(&options, 0).expect("plain");
        let mut expected = training_pairs(&plain[0], &truth0, &template);
        expected.extend(pairs);
        assert_eq!(stream, expected);
    }
}
