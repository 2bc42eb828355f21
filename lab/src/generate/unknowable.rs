//! Questions that the agent's behaviour so far cannot answer: two options that every
//! hypothesis treats alike, so that the only right response is to abstain.

use bip_episodes::{
    AnswerOption, Claim, ClassId, Expected, FurnitureId, FurnitureKind, Proposition, Question,
    QuestionType, World,
};

use super::scenario::{
    containers, generated_question, goal_option, with_article, words, Scenario, Setting,
};
use crate::rng::Rng;

/// Replaces nothing; builds an unknowable question of `kind`'s family for `scenario`, or
/// `None` if the scenario offers no symmetric pair.
///
/// - Goal questions pair two classes the agent has not seen any object of, both in the
///   house and neither lying in the open: every belief about them has been updated alike,
///   no action bears on one more than the other, and the world-aware prior weighs them
///   alike.
/// - Belief questions ask whether the agent thinks its goal is inside one or the other of
///   two closed containers of one room that it has neither opened nor walked to: the
///   walking distances to both are equal from everywhere the agent has been.
pub fn unknowable_question(
    setting: &Setting<'_>,
    kind: QuestionType,
    scenario: &Scenario,
    rng: &mut Rng,
) -> Option<Question> {
    let world = setting.world;
    let name = setting.agent;
    let (options, text) = if kind.is_belief() {
        let goal = scenario.goal;
        let (a, b) = twin_containers(world, scenario, rng)?;
        let object = words(world.class_name(goal));
        let option = |place: FurnitureId| AnswerOption {
            text: Some(format!(
                "{name} thinks that the {object} is inside the {}.",
                words(&world.furniture(place).name)
            )),
            claim: Claim {
                about: Proposition::Belief {
                    class: goal,
                    place,
                    inside: true,
                },
                given: Some(Proposition::Goal(goal)),
            },
        };
        (
            vec![option(a), option(b)],
            format!("If {name} has been trying to get {}, which one of the following statements is more likely to be true?", with_article(&object)),
        )
    } else {
        let seen: Vec<ClassId> = scenario
            .states
            .iter()
            .flat_map(|s| s.observe(world).seen)
            .map(|(o, _)| world.object(o).class)
            .collect();
        // Nor does the world tell them apart: neither lies in the open, where the agent
        // may be taken to know it is (the world-aware prior), and both are in the house.
        let symmetric = |c: ClassId| {
            let objects = || world.objects.iter().filter(move |o| o.class == c);
            objects().next().is_some()
                && objects().all(|o| world.furniture(o.start).kind == FurnitureKind::Container)
        };
        let mut unseen: Vec<ClassId> = world
            .class_ids()
            .filter(|&c| !seen.contains(&c) && symmetric(c))
            .collect();
        rng.shuffle(&mut unseen);
        let [a, b, ..] = unseen[..] else {
            return None;
        };
        let option = |class: ClassId| goal_option(world, name, class, None);
        (
            vec![option(a), option(b)],
            "Which one of the following statements is more likely to be true?".to_string(),
        )
    };
    Some(generated_question(
        kind,
        text,
        options,
        Expected::Unknowable,
    ))
}

/// Two closed containers of one room that the agent never stood at, in random order.
fn twin_containers(
    world: &World,
    scenario: &Scenario,
    rng: &mut Rng,
) -> Option<(FurnitureId, FurnitureId)> {
    let untouched = containers(world, |f| {
        scenario
            .states
            .iter()
            .all(|s| s.at != Some(f) && !s.open[f.index()])
    });
    let mut pairs: Vec<(FurnitureId, FurnitureId)> = Vec::new();
    for (i, &a) in untouched.iter().enumerate() {
        for &b in &untouched[i + 1..] {
            if world.furniture(a).room == world.furniture(b).room {
                pairs.push((a, b));
            }
        }
    }
    let (a, b) = *rng.pick(&pairs)?;
    Some(if rng.chance(0.5) { (a, b) } else { (b, a) })
}
