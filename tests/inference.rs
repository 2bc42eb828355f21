//! The library facade used as an embedding program would.

use bip::engine::generate::{generate, GenerateOptions};
use bip::engine::{hypotheses_at, infer_episode, BatchOptions, Inference, PlannerPolicy};
use bip::episodes::{Episode, Proposition};

use crate::util::examples;

fn shipped_and_generated_episodes() -> Vec<Episode> {
    let mut episodes: Vec<Episode> = examples()
        .iter()
        .map(|p| bip::io::read_episode(p).expect("example reads"))
        .collect();
    episodes.extend(generate(&GenerateOptions::default(), 21).expect("generated"));
    episodes
}

#[test]
fn online_session_matches_batch_inference() {
    let policy = PlannerPolicy::default();
    for episode in shipped_and_generated_episodes() {
        let batch = infer_episode(&episode, &policy, &BatchOptions::default()).expect("batch");
        for (q, expected) in episode.questions.iter().zip(&batch.answers) {
            // The session a simulator would hold, over the same hypothesis space.
            let config = hypotheses_at(&episode, q.at, &Default::default());
            let mut session = Inference::for_episode(&episode, &policy, &config).expect("session");
            for action in &episode.actions[..q.at] {
                session.push(action).expect("possible");
            }
            let online = bip::engine::answer(q, &session.posterior());
            assert_eq!(&online, expected, "{} {}", episode.id, q.id);
        }
    }
}

#[test]
fn goal_and_belief_probabilities_are_coherent() {
    let policy = PlannerPolicy::default();
    for episode in shipped_and_generated_episodes() {
        let mut session =
            Inference::for_episode(&episode, &policy, &Default::default()).expect("session");
        for action in &episode.actions {
            session.push(action).expect("possible");
        }
        let posterior = session.posterior();
        let total: f64 = posterior.goals().iter().map(|(_, p)| p).sum();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "{}: goals sum to {total}",
            episode.id
        );
        // "Thinks inside" and "thinks not inside" are complementary under any goal.
        for (goal, _) in posterior.goals() {
            for place in episode.world.furniture_ids() {
                let claim = |inside| Proposition::Belief {
                    class: goal,
                    place,
                    inside,
                };
                let given = Some(Proposition::Goal(goal));
                let yes = posterior
                    .conditional(claim(true), given)
                    .expect("goal has mass");
                let no = posterior
                    .conditional(claim(false), given)
                    .expect("goal has mass");
                assert!(
                    (yes + no - 1.0).abs() < 1e-9,
                    "{}: {yes} + {no}",
                    episode.id
                );
            }
        }
    }
}
