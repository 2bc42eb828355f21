//! The library facade used as an embedding program would.

use bip::engine::{hypotheses_at, infer_episode, BatchOptions, Inference, PlannerPolicy, Pruning};
use bip::episodes::{Episode, Proposition};
use bip::lab::generate::{generate, GenerateOptions};

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
        for (q, expected) in episode.questions().iter().zip(&batch.answers) {
            // The session a simulator would hold, over the same hypothesis space.
            let config = hypotheses_at(&episode, q.at, &Default::default());
            let mut session = Inference::for_episode(&episode, &policy, &config).expect("session");
            for action in &episode.actions()[..q.at] {
                session.push(action).expect("possible");
            }
            let online = bip::engine::answer(q, &session.posterior());
            assert_eq!(&online, expected, "{} {}", episode.id(), q.id);
        }
    }
}

#[test]
fn goal_and_belief_probabilities_are_coherent() {
    let policy = PlannerPolicy::default();
    for episode in shipped_and_generated_episodes() {
        let mut session =
            Inference::for_episode(&episode, &policy, &Default::default()).expect("session");
        for action in episode.actions() {
            session.push(action).expect("possible");
        }
        let posterior = session.posterior();
        let total: f64 = posterior.goals().iter().map(|(_, p)| p).sum();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "{}: goals sum to {total}",
            episode.id()
        );
        // "Thinks inside" and "thinks not inside" are complementary under any goal.
        for (goal, _) in posterior.goals() {
            for place in episode.world().furniture_ids() {
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
                    episode.id()
                );
            }
        }
    }
}

#[test]
fn pruning_scores_a_few_hypotheses_per_option_and_keeps_every_option_alive() {
    let policy = PlannerPolicy::default();
    let pruned = BatchOptions {
        pruning: Some(Pruning {
            per_option: 2,
            proposal_beta: bip::engine::DEFAULT_BETA,
        }),
        ..BatchOptions::default()
    };
    let mut agree = 0;
    let mut total = 0;
    for episode in shipped_and_generated_episodes() {
        let full = infer_episode(&episode, &policy, &BatchOptions::default()).expect("full");
        let few = infer_episode(&episode, &policy, &pruned).expect("pruned");
        for (((q, a), b), cost) in episode
            .questions()
            .iter()
            .zip(&full.answers)
            .zip(&few.answers)
            .zip(&few.costs)
        {
            assert!(cost.hypotheses <= 2 * q.options.len(), "{}", episode.id());
            assert!(cost.hypotheses < full.costs[0].hypotheses);
            // Every option keeps hypotheses under which it holds (a tie between options
            // the planner cannot tell apart keeps them tied).
            assert!(
                b.probabilities.iter().all(|p| p.is_some()),
                "{}",
                episode.id()
            );
            total += 1;
            agree += usize::from(a.choice == b.choice);
        }
    }
    // The pruned space keeps the planner's best reading of each option.
    assert!(agree * 10 >= total * 9, "{agree} of {total} agree");
}
