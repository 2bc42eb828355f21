use super::*;
use crate::batch::{infer_episode, BatchOptions};
use bip_episodes::Place;

/// The shipped example episodes (every MMToM-QA question type).
fn examples() -> Vec<Episode> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../episodes/examples");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("examples folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("readable");
            Episode::from_json(&text, "example").expect("valid example")
        })
        .collect()
}

/// The example where the agent searches several kitchen places in turn.
fn kitchen_search() -> Episode {
    examples()
        .into_iter()
        .find(|e| e.id() == "kitchen-search")
        .expect("kitchen-search example")
}

/// `episode` with every question asked after `at` actions.
fn asked_at(episode: &Episode, at: usize) -> Episode {
    let mut file = episode.to_file();
    for question in &mut file.questions {
        question.at = Some(at);
    }
    Episode::from_file(file, "asked").expect("still valid")
}

fn planner() -> Arc<dyn Policy> {
    Arc::new(PlannerPolicy::default())
}

fn session(episode: &Episode, options: LiveOptions) -> LiveSession {
    LiveSession::new(Arc::new(episode.clone()), planner(), options).expect("session")
}

/// After every push, the live session answers every question exactly as batch inference
/// answers it asked at that moment.
fn assert_live_answers_as_batch(options: LiveOptions, batch: &BatchOptions) {
    for episode in examples() {
        let mut live = session(&episode, options.clone());
        for at in 0..=episode.actions().len() {
            if at > 0 {
                live.push(&episode.actions()[at - 1]).expect("possible");
            }
            let expected =
                infer_episode(&asked_at(&episode, at), planner().as_ref(), batch).expect("batch");
            for (question, want) in episode.questions().iter().zip(&expected.answers) {
                let got = live.answer(question);
                assert_eq!(
                    got.probabilities,
                    want.probabilities,
                    "{} {} at {at}",
                    episode.id(),
                    question.id
                );
            }
        }
    }
}

#[test]
fn pushed_search_sets_answer_as_batch_at_every_moment() {
    assert_live_answers_as_batch(LiveOptions::default(), &BatchOptions::default());
}

#[test]
fn pruned_sessions_answer_as_pruned_batch_at_every_moment() {
    let pruning = Some(Pruning {
        per_option: 2,
        proposal_beta: 2.0,
    });
    let options = LiveOptions {
        pruning,
        ..LiveOptions::default()
    };
    let batch = BatchOptions {
        pruning,
        ..BatchOptions::default()
    };
    assert_live_answers_as_batch(options, &batch);
}

#[test]
fn episode_search_sets_follow_the_batch_trace() {
    let batch = BatchOptions {
        trace_top: Some(5),
        ..BatchOptions::default()
    };
    for episode in examples() {
        let trace = infer_episode(&episode, planner().as_ref(), &batch)
            .expect("batch")
            .trace;
        let options = LiveOptions {
            search_sets: SearchSets::Episode,
            ..LiveOptions::default()
        };
        let mut live = session(&episode, options);
        for step in &trace {
            if let Some(action) = &step.action {
                live.push(action).expect("possible");
            }
            let posterior = live.posterior();
            assert_eq!(posterior.goals(), step.goals, "{}", episode.id());
            assert_eq!(posterior.top(5), step.top, "{}", episode.id());
        }
        assert_eq!(live.rebuilds(), 0, "the space is fixed from the start");
    }
}

#[test]
fn the_space_is_rebuilt_only_when_the_agent_walks_to_new_furniture() {
    let episode = kitchen_search();
    let walks: Vec<_> = episode
        .actions()
        .iter()
        .filter_map(|a| match a {
            Action::WalkTo(Place::Furniture(f)) => Some(*f),
            _ => None,
        })
        .collect();
    let mut distinct = walks.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut live = session(&episode, LiveOptions::default());
    live.push_all(episode.actions()).expect("possible");
    // The first walk to furniture brings search sets where there were none; each later
    // new place changes them.
    assert_eq!(live.rebuilds(), distinct.len());
    let mut fixed = session(
        &episode,
        LiveOptions {
            search_sets: SearchSets::None,
            ..LiveOptions::default()
        },
    );
    fixed.push_all(episode.actions()).expect("possible");
    assert_eq!(fixed.rebuilds(), 0);
    assert!(fixed.search_sets().is_empty());
}

/// The planner, counting the situations it is asked to score.
#[derive(Default)]
struct Counting {
    planner: PlannerPolicy,
    scored: std::sync::atomic::AtomicUsize,
}

impl Counting {
    fn scored(&self) -> usize {
        self.scored.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Policy for Counting {
    fn name(&self) -> &str {
        "counting planner"
    }

    fn log_prob(&self, situation: &crate::Situation<'_>, action: &Action) -> f64 {
        self.scored
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.planner.log_prob(situation, action)
    }
}

#[test]
fn a_new_space_scores_only_its_new_hypotheses_over_the_past() {
    let episode = kitchen_search();
    let counting = Arc::new(Counting::default());
    let policy: Arc<dyn Policy> = Arc::clone(&counting) as _;
    let mut live = LiveSession::new(Arc::new(episode.clone()), policy, LiveOptions::default())
        .expect("session");
    let goals = episode.goal_candidates().len();
    let mut saved = 0;
    for action in episode.actions() {
        let (scored, hypotheses, rebuilds) =
            (counting.scored(), live.hypothesis_count(), live.rebuilds());
        let sets: Vec<Vec<FurnitureId>> = live.search_sets().iter().map(|s| s.to_vec()).collect();
        live.push(action).expect("possible");
        let now = live.hypothesis_count();
        let cost = counting.scored() - scored;
        if live.rebuilds() == rebuilds {
            assert_eq!(cost, hypotheses, "one score per hypothesis");
            continue;
        }
        let new_sets = live
            .search_sets()
            .iter()
            .filter(|s| !sets.contains(&s.to_vec()))
            .count();
        let past = live.steps() - 1;
        // Every hypothesis of the new space scored once for this step, and the new
        // ones for every step before it.
        assert_eq!(cost, now + goals * new_sets * past, "{action:?}");
        saved += now * live.steps() - cost;
    }
    assert!(
        live.rebuilds() > 1 && saved > 0,
        "replaying would score {saved} more"
    );
}

#[test]
fn an_impossible_push_changes_nothing() {
    let episode = examples().remove(0);
    let mut live = session(&episode, LiveOptions::default());
    live.push(&episode.actions()[0]).expect("possible");
    let before = live.posterior().goals();
    let again = live.push(&episode.actions()[0]).unwrap_err();
    assert!(
        matches!(again, EngineError::ImpossibleAction { step: 1, .. }),
        "{again}"
    );
    assert_eq!(live.steps(), 1);
    assert_eq!(live.posterior().goals(), before);
}

#[test]
fn episodes_with_several_readings_and_pruning_without_questions_are_refused() {
    let text = r#"{"format": "bip-episode/1",
      "world": {"rooms": ["kitchen"],
        "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
                      {"id": "cabinet", "room": "kitchen", "kind": "container"}],
        "objects": [{"id": "apple_1", "at": "fridge"}],
        "alternatives": [{"objects": {"apple_1": "cabinet"}}]},
      "agent": {"name": "Bo", "start": "kitchen"}}"#;
    let episode = Episode::from_json(text, "two").expect("valid");
    let err = LiveSession::new(Arc::new(episode.clone()), planner(), LiveOptions::default())
        .err()
        .expect("refused");
    assert!(
        matches!(err, EngineError::SeveralReadings { readings: 2, .. }),
        "{err}"
    );
    let one = episode.readings().remove(0);
    let pruned = LiveOptions {
        pruning: Some(Pruning {
            per_option: 1,
            proposal_beta: 3.0,
        }),
        ..LiveOptions::default()
    };
    let err = LiveSession::new(Arc::new(one), planner(), pruned)
        .err()
        .expect("refused");
    assert!(
        matches!(err, EngineError::PruningWithoutQuestions { .. }),
        "{err}"
    );
}

#[test]
fn the_belief_table_is_the_conditional_of_belief_claims() {
    use bip_episodes::Proposition;
    for episode in examples() {
        let mut live = session(&episode, LiveOptions::default());
        live.push_all(episode.actions()).expect("possible");
        let posterior = live.posterior();
        let world = episode.world();
        for (goal, row) in posterior.beliefs_given_goals() {
            let row = row.expect("every goal has mass under the planner");
            for (place, p) in world.furniture_ids().zip(row) {
                let claim = Proposition::Belief {
                    class: goal,
                    place,
                    inside: true,
                };
                let want = posterior
                    .conditional(claim, Some(Proposition::Goal(goal)))
                    .expect("possible condition");
                assert!((p - want).abs() < 1e-12, "{p} vs {want}");
            }
        }
    }
}
