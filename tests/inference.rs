//! The library facade used as an embedding program would.

use bip::engine::{hypotheses_at, infer_episode, BatchOptions, Inference, PlannerPolicy, Pruning};
use bip::episodes::{Episode, Proposition};
use bip::lab::generate::{generate, GenerateOptions};

use crate::util::{bip, examples, posteriors, root, TempDir};

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

/// Questions of our own wording (tests/data/mmtom-world-prior.jsonl): Anna, unseen
/// cabinets before her, heads to the kitchen cabinet that holds a wine glass. Is she after
/// a remote control (the house has none) or a wine glass? Her walk alone cannot tell; the
/// world-aware prior does — a class the house holds is the likelier goal, whichever option
/// it is — and between two classes the house both lacks it stays a tie.
#[test]
fn a_goal_the_house_lacks_loses_to_one_it_holds_and_two_it_lacks_tie() {
    let dir = TempDir::new();
    let episodes = dir.path().join("episodes.jsonl");
    let text = root().join("tests/data/mmtom-world-prior.jsonl");
    let imported = bip([
        "import".as_ref(),
        "mmtom".as_ref(),
        text.as_os_str(),
        "-o".as_ref(),
        episodes.as_os_str(),
    ]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let world_blind = dir.write(
        "blind.json",
        r#"{"format": "bip-calibration/1", "policy": "planner", "beta": 3,
            "absent_goal_weight": 1, "open_view_weight": 0,
            "mean_log_likelihood": 0, "questions": 1}"#,
    );
    let by_default = posteriors(&bip([
        "infer".as_ref(),
        episodes.as_os_str(),
        "--json".as_ref(),
    ]));
    let blind = posteriors(&bip([
        "infer".as_ref(),
        episodes.as_os_str(),
        "--json".as_ref(),
        "--calibration".as_ref(),
        world_blind.as_os_str(),
    ]));
    let p = |posterior: &serde_json::Value, option: &str| posterior[option].as_f64().unwrap();
    // Remote control or wine glass; then the same, options swapped.
    assert!(p(&by_default[0], "b") > 0.9, "{by_default:?}");
    assert!(p(&by_default[1], "a") > 0.9, "{by_default:?}");
    // Remote control or cupcake: the house has neither.
    assert_eq!(p(&by_default[2], "a"), p(&by_default[2], "b"));
    // Without the prior, nothing in the walk tells them apart.
    for posterior in &blind {
        assert_eq!(p(posterior, "a"), p(posterior, "b"), "{blind:?}");
    }
}
