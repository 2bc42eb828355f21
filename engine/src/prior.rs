//! What the house itself says before the agent acts: a class the house holds may be a
//! likelier goal than one it lacks, and an agent at home likely knows where things lying in
//! the open are.
//!
//! Both are soft, set by [`HypothesisConfig::absent_goal_weight`] and
//! [`HypothesisConfig::open_view_weight`]; at 1 and 0 the prior is the world-blind one
//! (every goal equally likely, every class the same starting beliefs).

use bip_episodes::{ClassId, FurnitureKind, World};

use crate::hypothesis::{BeliefHypothesis, HypothesisConfig, InitialBelief};

/// Whether an object of `class` is anywhere in the house at the start.
fn in_the_house(world: &World, class: ClassId) -> bool {
    world.objects.iter().any(|o| o.class == class)
}

/// Whether an object of `class` lies on `place` at the start, a surface anyone in its room
/// sees.
fn lies_in_the_open_at(world: &World, class: ClassId, place: bip_episodes::FurnitureId) -> bool {
    world.furniture(place).kind == FurnitureKind::Surface
        && world
            .objects
            .iter()
            .any(|o| o.class == class && o.start == place)
}

/// The log prior of each of `goals`, in order: a class no object of which is in the house
/// weighs `config.absent_goal_weight` against 1 for one that is.
pub(crate) fn goal_log_priors(
    world: &World,
    goals: &[ClassId],
    config: &HypothesisConfig,
) -> Vec<f64> {
    let weights: Vec<f64> = goals
        .iter()
        .map(|&c| {
            if in_the_house(world, c) {
                1.0
            } else {
                config.absent_goal_weight
            }
        })
        .collect();
    normalised_logs(&weights)
}

/// `[class][h]`: the log prior of starting belief `beliefs[h]` about `class`. Each
/// hypothesis weighs its base weight (the uninformed belief
/// [`HypothesisConfig::uninformed_weight`], every other 1), and "thinks it is at X" weighs
/// `1 + config.open_view_weight` when an object of the class lies on surface X.
pub(crate) fn belief_log_priors(
    world: &World,
    beliefs: &[BeliefHypothesis],
    config: &HypothesisConfig,
) -> Vec<Vec<f64>> {
    let base: Vec<f64> = beliefs.iter().map(|h| h.log_prior.exp()).collect();
    let favoured = |class: ClassId, h: &BeliefHypothesis| {
        config.open_view_weight > 0.0
            && matches!(h.initial, InitialBelief::ThinksAt(place) if lies_in_the_open_at(world, class, place))
    };
    world
        .class_ids()
        .map(|class| {
            if !beliefs.iter().any(|h| favoured(class, h)) {
                // The world-blind prior as it is, not renormalised (the same bits).
                return beliefs.iter().map(|h| h.log_prior).collect();
            }
            let weights: Vec<f64> = beliefs
                .iter()
                .zip(&base)
                .map(|(h, &w)| {
                    if favoured(class, h) {
                        w * (1.0 + config.open_view_weight)
                    } else {
                        w
                    }
                })
                .collect();
            normalised_logs(&weights)
        })
        .collect()
}

/// The logs of `weights` over their sum (−∞ for a zero weight).
fn normalised_logs(weights: &[f64]) -> Vec<f64> {
    let log_total = weights.iter().sum::<f64>().ln();
    weights.iter().map(|w| w.ln() - log_total).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hypothesis::belief_hypotheses;
    use bip_episodes::Episode;

    fn world() -> World {
        Episode::from_json(
            r#"{"format": "bip-episode/1",
                "world": {"rooms": ["kitchen", "bedroom"],
                  "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
                                {"id": "desk", "room": "bedroom", "kind": "surface"}],
                  "objects": [{"id": "apple_1", "at": "fridge"}, {"id": "book_1", "at": "desk"}]},
                "agent": {"name": "A", "start": "kitchen"},
                "questions": [{"options": [{"goal": "remote control"}, {"goal": "apple"}],
                               "expected": "b"}]}"#,
            "t",
        )
        .unwrap()
        .into_parts()
        .world
    }

    #[test]
    fn a_class_the_house_lacks_is_a_less_likely_goal() {
        let world = world();
        let config = HypothesisConfig {
            absent_goal_weight: 0.25,
            ..HypothesisConfig::default()
        };
        let goals: Vec<ClassId> = world.class_ids().collect();
        let priors = goal_log_priors(&world, &goals, &config);
        let remote = world.class_by_name("remote control").unwrap();
        let apple = world.class_by_name("apple").unwrap();
        let p = |c: ClassId| priors[c.index()].exp();
        assert!((p(remote) / p(apple) - 0.25).abs() < 1e-12);
        assert!((priors.iter().map(|l| l.exp()).sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn only_a_class_lying_on_a_surface_gets_its_place_favoured() {
        let world = world();
        let config = HypothesisConfig {
            open_view_weight: 3.0,
            ..HypothesisConfig::default()
        };
        let hypotheses = belief_hypotheses(&world, &config);
        let priors = belief_log_priors(&world, &hypotheses, &config);
        let at = |name: &str| {
            let place = world.furniture_by_name(name).unwrap();
            hypotheses
                .iter()
                .position(|h| h.initial == InitialBelief::ThinksAt(place))
                .unwrap()
        };
        let (book, apple) = (
            world.class_by_name("book").unwrap(),
            world.class_by_name("apple").unwrap(),
        );
        let ratio = |class: ClassId| {
            (priors[class.index()][at("desk")] - priors[class.index()][at("fridge")]).exp()
        };
        // The book lies on the desk in the open; the apple is shut in the fridge.
        assert!((ratio(book) - 4.0).abs() < 1e-12);
        assert!((ratio(apple) - 1.0).abs() < 1e-12);
        for class in [book, apple] {
            let total: f64 = priors[class.index()].iter().map(|l| l.exp()).sum();
            assert!((total - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn the_neutral_settings_give_the_world_blind_prior() {
        let world = world();
        let config = HypothesisConfig {
            absent_goal_weight: 1.0,
            open_view_weight: 0.0,
            ..HypothesisConfig::default()
        };
        let hypotheses = belief_hypotheses(&world, &config);
        for per_class in belief_log_priors(&world, &hypotheses, &config) {
            for (prior, h) in per_class.iter().zip(&hypotheses) {
                assert!((prior - h.log_prior).abs() < 1e-12);
            }
        }
        let goals: Vec<ClassId> = world.class_ids().collect();
        let uniform = -(goals.len() as f64).ln();
        for prior in goal_log_priors(&world, &goals, &config) {
            assert!((prior - uniform).abs() < 1e-12);
        }
    }
}
