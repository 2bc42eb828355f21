//! Procedural episodes with ground truth: random apartments, an agent with a goal and a
//! (possibly false) belief acting by a noisy planner, and one question of a chosen
//! MMToM-QA type whose answer is read off the simulated agent.
//!
//! Answers are balanced by construction: the correct option comes first half of the time,
//! and belief questions are "thinks it is inside" half of the time.

mod agent;
mod pairs;
mod scenario;
mod themed;
mod unknowable;
mod world;

pub use agent::{simulate, Trajectory};
/// The question types to generate are the episodes crate's MMToM-QA types.
pub use bip_episodes::QuestionType;
pub use pairs::{generate_training_pairs, training_pairs, AgentTruth, TrainingPair};
pub use themed::{generate_themed, theme_index, themed_with_truth};
pub use world::{random_world, OBJECT_CLASSES, ROOMS};

use rayon::prelude::*;

use bip_episodes::json::{AgentFile, EpisodeFile, FORMAT};
use bip_episodes::{Agent, Episode, EpisodeError, EpisodeParts, World};

use crate::rng::Rng;
use crate::LabError;
use bip_engine::{ActionCosts, PlannerPolicy};
use scenario::{build, Scenario, Setting};
use unknowable::unknowable_question;

/// Names given to generated agents.
const NAMES: [&str; 16] = [
    "Mark", "Emily", "James", "Sarah", "Thomas", "Jessica", "Robert", "Nancy", "Michael", "Susan",
    "David", "Linda", "Daniel", "Karen", "Paul", "Lisa",
];

/// How many worlds and draws to try for one episode before giving up.
const ATTEMPTS: usize = 1000;

/// What to generate. Themes are given apart ([`generate_themed`]): a theme only renames
/// what these options make.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// Seed: the same seed gives the same episodes.
    pub seed: u64,
    /// Question types, used in turn (episode `i` gets `types[i % len]`).
    pub types: Vec<QuestionType>,
    /// Rationality of the simulated agents (the inference's own default is separate).
    pub agent_beta: f64,
    /// Share of the simulated agents' walks that go to a place drawn in proportion to
    /// their belief instead of the planner's choice ([`simulate`]).
    pub agent_search_spread: f64,
    /// Leak of the simulated agents' starting beliefs.
    pub agent_leak: f64,
    /// Longest trajectory simulated.
    pub max_steps: usize,
    /// Share of episodes whose question is unknowable from the behaviour so far
    /// (expected answer `"unknowable"`).
    pub unknowable: f64,
    /// Share of agents that have seen, before the episode, what lies on every surface of
    /// the house (at home, things in the open are known): such an agent whose goal lies
    /// in the open walks straight to it.
    pub knows_the_open: f64,
    /// Share of episodes whose world names one object class the house lacks; a goal
    /// question there takes it as the distractor, unless the agent wants it.
    pub absent_distractors: f64,
    /// Share of the goal-question episodes naming a class the house lacks
    /// (`absent_distractors`) whose agent wants that class: it thinks one is somewhere
    /// none is, and searches in vain; the question's other option is a class the house
    /// holds.
    pub absent_goals: f64,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            types: QuestionType::ALL.to_vec(),
            agent_beta: 4.0,
            agent_search_spread: 0.0,
            agent_leak: 0.1,
            max_steps: 40,
            unknowable: 0.0,
            knows_the_open: 0.0,
            absent_distractors: 0.0,
            absent_goals: 0.0,
        }
    }
}

/// Generates episode number `index` of the stream `options` describes.
///
/// Unknowable questions keep the label of the type whose scenario they were drawn from.
///
/// # Errors
/// [`LabError::NoScenario`] if no scenario of the episode's type could be built, and
/// [`LabError::GeneratedInvalid`] if what was built is not valid (bugs in the generator,
/// reported rather than hidden); [`LabError::NoQuestionTypes`] or
/// [`EngineError::InvalidParameter`](bip_engine::EngineError::InvalidParameter) for invalid options.
pub fn generate_episode(options: &GenerateOptions, index: usize) -> Result<Episode, LabError> {
    generate_with_truth(options, index).map(|(episode, _)| episode)
}

/// Like [`generate_episode`], with what the episode file leaves out: the simulated
/// agent's true goal, states and beliefs at every step ([`AgentTruth`]).
///
/// # Errors
/// As [`generate_episode`].
pub fn generate_with_truth(
    options: &GenerateOptions,
    index: usize,
) -> Result<(Episode, AgentTruth), LabError> {
    let invalid = |what| {
        move |source| LabError::GeneratedInvalid {
            index,
            what,
            source,
        }
    };
    let kind = *options
        .types
        .get(index % options.types.len().max(1))
        .ok_or(LabError::NoQuestionTypes { index })?;
    let policy = PlannerPolicy::with_costs(options.agent_beta, ActionCosts::default())?
        .with_search_spread(options.agent_search_spread)?;
    let mut rng = Rng::for_item(options.seed, index as u64);
    let agent = NAMES[rng.below(NAMES.len())];
    // Drawn only when asked for, so that a corpus without unknowables is unchanged.
    let unknowable = options.unknowable > 0.0 && rng.chance(options.unknowable);
    let knows_the_open = options.knows_the_open > 0.0 && rng.chance(options.knows_the_open);
    let names_a_lacking_class =
        options.absent_distractors > 0.0 && rng.chance(options.absent_distractors);
    // Only goal questions: a belief question about an object the agent never finds would
    // need the belief it ends with (1.3), and the goal weight acts on goal questions alone.
    let wants_the_lacking_class = names_a_lacking_class
        && !kind.is_belief()
        && options.absent_goals > 0.0
        && rng.chance(options.absent_goals);
    for _ in 0..ATTEMPTS {
        let shell = EpisodeFile {
            format: FORMAT.to_string(),
            id: None,
            description: None,
            world: random_world(&mut rng),
            agent: AgentFile {
                name: agent.to_string(),
                start: ROOMS[0].to_string(),
                goals: None,
            },
            actions: Vec::new(),
            questions: Vec::new(),
        };
        let mut world = Episode::from_file(shell, "generated")
            .map_err(invalid("world"))?
            .into_parts()
            .world;
        if names_a_lacking_class {
            name_a_lacking_class(&mut world, &mut rng);
        }
        let setting = Setting {
            world: &world,
            policy: &policy,
            leak: options.agent_leak,
            max_steps: options.max_steps,
            agent,
            knows_the_open,
            wants_the_lacking_class,
        };
        let Some(mut scenario) = build(kind, &setting, &mut rng) else {
            continue;
        };
        if unknowable {
            match unknowable_question(&setting, kind, &scenario, &mut rng) {
                Some(question) => scenario.question = question,
                None => continue,
            }
        }
        scenario.question.at = scenario.actions.len();
        let id = format!("gen-{}-{index:05}", options.seed);
        // Episode::new checks everything the generator made.
        return finish(id, kind, agent, world, scenario).map_err(invalid("episode"));
    }
    Err(LabError::NoScenario {
        index,
        kind,
        attempts: ATTEMPTS,
    })
}

/// Adds to `world` one object class of [`OBJECT_CLASSES`] that none of its objects has.
fn name_a_lacking_class(world: &mut World, rng: &mut Rng) {
    let lacking: Vec<&str> = OBJECT_CLASSES
        .iter()
        .copied()
        .filter(|c| !world.classes.iter().any(|have| have == c))
        .collect();
    if let Some(class) = rng.pick(&lacking) {
        world.classes.push(class.to_string());
    }
}

/// The episode of `scenario` in `world`, checked ([`Episode::new`]), and the simulated
/// agent's truth.
fn finish(
    id: String,
    kind: QuestionType,
    agent: &str,
    world: World,
    scenario: Scenario,
) -> Result<(Episode, AgentTruth), EpisodeError> {
    let believed = &world.furniture(scenario.believed).name;
    let truly = world
        .objects
        .iter()
        .any(|o| o.start == scenario.believed && o.class == scenario.goal);
    let description = format!(
        "Generated {} question: {agent} wants {} and first thought one was at {believed} ({} belief).",
        kind.label(),
        scenario::with_article(&scenario::words(world.class_name(scenario.goal))),
        if truly { "true" } else { "false" }
    );
    let episode = Episode::new(EpisodeParts {
        id,
        description: Some(description),
        agent: Agent {
            name: agent.to_string(),
            start: scenario.start,
            goal_candidates: None,
        },
        actions: scenario.actions,
        questions: vec![scenario.question],
        world,
        alternatives: Vec::new(),
    })?;
    let truth = AgentTruth {
        goal: scenario.goal,
        states: scenario.states,
        beliefs: scenario.beliefs,
    };
    Ok((episode, truth))
}

/// Generates episodes `0..count`, in parallel, identical to generating them one by one.
///
/// # Errors
/// The first failing episode's error.
pub fn generate(options: &GenerateOptions, count: usize) -> Result<Vec<Episode>, LabError> {
    (0..count)
        .into_par_iter()
        .map(|i| generate_episode(options, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip_episodes::{ClassId, Expected, Proposition};

    /// The first 14 episodes of `options`' stream, as JSON.
    fn corpus(options: &GenerateOptions) -> Vec<String> {
        let episodes = generate(options, 14).expect("generate");
        episodes.iter().map(Episode::to_json).collect()
    }

    #[test]
    fn same_seed_same_episodes_different_seed_different() {
        let options = GenerateOptions::default();
        assert_eq!(corpus(&options), corpus(&options));
        let other = GenerateOptions {
            seed: 1,
            ..GenerateOptions::default()
        };
        assert_ne!(corpus(&options), corpus(&other));
    }

    #[test]
    fn an_agent_may_want_what_the_house_lacks_and_never_get_it() {
        let options = GenerateOptions {
            seed: 5,
            types: vec![QuestionType::GoalTrueBelief, QuestionType::GoalFalseBelief],
            absent_distractors: 1.0,
            absent_goals: 1.0,
            ..GenerateOptions::default()
        };
        for index in 0..8 {
            let (episode, truth) = generate_with_truth(&options, index).expect("generate");
            let world = episode.world();
            let present = |c: ClassId| world.objects.iter().any(|o| o.class == c);
            assert!(!present(truth.goal), "{}", episode.id());
            assert!(truth
                .states
                .iter()
                .all(|s| s.held().all(|o| world.object(o).class != truth.goal)));
            // The right option is the absent goal; the other, a class the house holds.
            let question = &episode.questions()[0];
            let goals: Vec<ClassId> = question
                .options
                .iter()
                .map(|o| match o.claim.about {
                    Proposition::Goal(c) => c,
                    _ => panic!("a goal question"),
                })
                .collect();
            let right = question
                .expected
                .and_then(Expected::option)
                .expect("answer");
            assert_eq!(goals[right], truth.goal);
            assert!(goals
                .iter()
                .filter(|&&c| c != truth.goal)
                .all(|&c| present(c)));
        }
    }

    #[test]
    fn generated_text_puts_an_before_a_vowel() {
        assert_eq!(scenario::with_article("apple"), "an apple");
        assert_eq!(scenario::with_article("wine glass"), "a wine glass");
        let text: String = corpus(&GenerateOptions::default()).concat();
        assert!(text.contains("an apple"), "the corpus asks about apples");
        assert!(!text.contains(" a apple"), "{text}");
    }

    #[test]
    fn every_type_is_generated_with_a_question_at_the_end() {
        let episodes = generate(&GenerateOptions::default(), 21).expect("generate");
        for (i, e) in episodes.iter().enumerate() {
            let q = &e.questions()[0];
            assert_eq!(q.question_type(), Some(QuestionType::ALL[i % 7]));
            assert_eq!(q.at, e.actions().len());
            assert!(!e.actions().is_empty(), "{}", e.id());
            assert!(q.expected.is_some());
        }
    }

    /// The engine reports an exact tie only where nothing the agent could know or did
    /// tells the options apart: on the unknowable questions, built that way. On every
    /// other kind the generator makes (classes the house lacks as the other option or
    /// as the goal, things in plain view, agents that walk by belief) it decides.
    #[test]
    fn ties_fall_only_between_options_nothing_tells_apart() {
        let options = GenerateOptions {
            unknowable: 0.2,
            knows_the_open: 0.5,
            absent_distractors: 0.5,
            absent_goals: 0.5,
            agent_search_spread: 0.5,
            ..GenerateOptions::default()
        };
        let episodes = generate(&options, 140).expect("generate");
        let results = bip_engine::infer_all(
            &episodes,
            &PlannerPolicy::default(),
            &bip_engine::BatchOptions::default(),
            &|| {},
        );
        let mut ties = 0;
        for (episode, result) in episodes.iter().zip(results) {
            let answer = &result.expect("infer").answers[0];
            if answer.choice.is_none() {
                ties += 1;
                assert_eq!(
                    episode.questions()[0].expected,
                    Some(Expected::Unknowable),
                    "{}: a tie between options the world or the actions tell apart: {:?}",
                    episode.id(),
                    answer.posterior
                );
            }
        }
        assert!(ties > 0, "the unknowable questions tie");
    }

    #[test]
    fn unknowable_questions_tie_exactly() {
        let options = GenerateOptions {
            unknowable: 1.0,
            ..GenerateOptions::default()
        };
        let policy = PlannerPolicy::default();
        for episode in generate(&options, 14).expect("generate") {
            let q = &episode.questions()[0];
            assert_eq!(q.expected, Some(bip_episodes::Expected::Unknowable));
            let result =
                bip_engine::infer_episode(&episode, &policy, &bip_engine::BatchOptions::default())
                    .expect("infer");
            let answer = &result.answers[0];
            assert!(
                answer.margin < 1e-9,
                "{}: {:?}",
                episode.id(),
                answer.posterior
            );
            assert_eq!(answer.choice, None);
        }
    }
}
