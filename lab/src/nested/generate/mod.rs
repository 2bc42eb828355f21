//! Stories with ground truth from simulated agents, in the manner of Hi-ToM but in bip's
//! own words: a few agents, one to three chapters in rooms of containers, objects moved
//! while some look on, and — in stories with deception — claims, true or false, public
//! or private. Every agent's nested beliefs are simulated: a hearer takes a claim or not,
//! and a speaker expects to be believed or not, drawn with the simulated trust
//! ([`NestedOptions::trust`]); each question's answer is the simulated agents' belief.
//!
//! Stories vary more than Hi-ToM's: an agent may arrive late or come back after leaving,
//! a chapter may return to an earlier room, rooms have three to five containers, claims
//! come one or two at a time. [`tell`] writes a story in Hi-ToM's record format with
//! varied phrasings, so that the reader is tested on text it was not written on.

mod minds;
mod questions;
mod script;
mod vocabulary;

use rayon::prelude::*;

use bip_episodes::import::hitom::{tell_record, HitomText};
use bip_episodes::Story;

use crate::rng::Rng;
use crate::LabError;
use bip_engine::EngineError;

use bip_nested::Trust;

pub use vocabulary::{GATHERING, NAMES, OBJECTS, ROOMS};

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedOptions {
    /// Seed: the same seed gives the same stories.
    pub seed: u64,
    /// The simulated agents' trust τ (see [`Trust`]).
    pub trust: f64,
    /// Share of stories with claims.
    pub deception: f64,
    /// Share of claims that say what the speaker thinks.
    pub honesty: f64,
    /// Most chapters in a story.
    pub max_chapters: usize,
    /// Highest order asked: every story gets one question of each order 0..=max_order.
    pub max_order: usize,
}

impl Default for NestedOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            trust: 0.8,
            deception: 0.5,
            honesty: 0.4,
            max_chapters: 3,
            max_order: 4,
        }
    }
}

/// Generates story number `index` of the stream `options` describes, with one question
/// per order whose answer the simulated agents' beliefs give (an order is left out when
/// no draw found a chain with a belief about an object).
///
/// # Errors
/// [`EngineError::InvalidParameter`] for shares outside [0, 1];
/// [`LabError::GeneratedStoryInvalid`] if what was built is not valid (a bug in the
/// generator, reported rather than hidden).
pub fn generate_story(options: &NestedOptions, index: usize) -> Result<Story, LabError> {
    let trust = Trust::new(options.trust)?;
    for (name, value) in [
        ("deception", options.deception),
        ("honesty", options.honesty),
    ] {
        if !(0.0..=1.0).contains(&value) {
            return Err(LabError::Engine(EngineError::InvalidParameter {
                name,
                value,
                reason: "must lie in [0, 1]",
            }));
        }
    }
    let mut rng = Rng::for_item(options.seed, index as u64);
    let mut file = script::story(options, &mut rng);
    let id = format!("nested-{}-{index}", options.seed);
    file.id = Some(id.clone());
    let invalid = |source| LabError::GeneratedStoryInvalid { index, source };
    let story = Story::from_file(file, &id).map_err(invalid)?;
    let decisions = minds::Decisions::draw(&story, trust, &mut rng);
    let mut parts = story.into_parts();
    let questions = {
        let story = Story::new(parts.clone()).map_err(invalid)?;
        questions::questions(&story, &decisions, options.max_order, &mut rng)
    };
    parts.questions = questions;
    Story::new(parts).map_err(invalid)
}

/// `n` stories, in parallel; the result does not depend on it.
///
/// # Errors
/// As [`generate_story`], for the first story (in order) that fails.
pub fn generate_stories(options: &NestedOptions, n: usize) -> Result<Vec<Story>, LabError> {
    (0..n)
        .into_par_iter()
        .map(|i| generate_story(options, i))
        .collect()
}

/// Story `index`'s questions told as Hi-ToM records (one per question), in bip's varied
/// phrasings drawn from `seed`: the same story and seed, the same text.
pub fn tell(story: &Story, index: usize, seed: u64) -> Vec<HitomText> {
    let mut rng = Rng::for_item(seed ^ 0x7e11, index as u64);
    let mut choose = |n: usize| rng.below(n.max(1));
    (0..story.questions().len())
        .map(|q| tell_record(story, q, index, &mut choose))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip_episodes::import::hitom::read_record;

    #[test]
    fn the_same_seed_gives_the_same_stories_in_parallel_or_not() {
        let options = NestedOptions::default();
        let parallel = generate_stories(&options, 12).expect("generate");
        let one_by_one: Vec<Story> = (0..12)
            .map(|i| generate_story(&options, i).expect("generate"))
            .collect();
        let json = |s: &[Story]| s.iter().map(Story::to_json).collect::<Vec<_>>();
        assert_eq!(json(&parallel), json(&one_by_one));
        let other = generate_stories(&NestedOptions { seed: 9, ..options }, 12).expect("generate");
        assert_ne!(json(&parallel), json(&other));
    }

    #[test]
    fn stories_ask_every_order_with_answers_among_the_options() {
        for story in generate_stories(&NestedOptions::default(), 30).expect("generate") {
            let orders: Vec<usize> = story.questions().iter().map(|q| q.order()).collect();
            assert_eq!(orders, [0, 1, 2, 3, 4], "{}", story.id());
            assert!(story.questions().iter().all(|q| q.expected.is_some()));
        }
        let none = NestedOptions {
            deception: 0.0,
            ..NestedOptions::default()
        };
        let stories = generate_stories(&none, 10).expect("generate");
        assert!(stories.iter().all(|s| !s.has_claims()));
        let bad = NestedOptions {
            honesty: 2.0,
            ..NestedOptions::default()
        };
        assert!(generate_story(&bad, 0).is_err());
    }

    #[test]
    fn told_stories_read_back_to_the_same_events_and_answers() {
        for (i, story) in generate_stories(&NestedOptions::default(), 40)
            .expect("generate")
            .iter()
            .enumerate()
        {
            let file = story.to_file();
            for (q, record) in tell(story, i, 3).into_iter().enumerate() {
                let line = serde_json::to_string(&record).expect("serialise");
                let read =
                    read_record(&line, 1).unwrap_or_else(|e| panic!("{e}\n{}", record.story));
                assert_eq!(read.file.events, file.events, "{}", record.story);
                let asked = &story.questions()[q];
                let expected = asked.expected.and_then(|e| e.option()).expect("expected");
                let answer = read.expected.as_deref();
                let place = asked.options[expected].claim.place;
                assert_eq!(answer, Some(story.world().furniture(place).name.as_str()));
                assert_eq!(read.story.questions()[0].order(), asked.order());
            }
        }
    }
}
