use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use bip_episodes::{Action, Episode, Place, State};

use super::*;
use crate::belief::Belief;
use crate::error::EngineError;
use crate::hypothesis::HypothesisConfig;
use crate::inference::Inference;
use crate::policy::{HybridPolicy, PlannerPolicy};
use crate::sightings::Sightings;

/// A stand-in LM: each continuation word gets a log-probability read off the prompt's
/// and word's lengths, so that different prompts score differently and deterministically.
#[derive(Default)]
struct FakeScorer {
    requests: AtomicUsize,
    calls: AtomicUsize,
    tokens: AtomicU64,
    fail: bool,
}

impl TextScorer for FakeScorer {
    fn name(&self) -> &str {
        "fake"
    }

    fn score(&self, requests: &[TextRequest<'_>]) -> Result<Vec<TextScore>, PolicyFailure> {
        if self.fail {
            return Err("the model ran out of context".into());
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.requests.fetch_add(requests.len(), Ordering::Relaxed);
        Ok(requests
            .iter()
            .map(|r| {
                let prompt_tokens = r.prompt.split_whitespace().count();
                let logprobs: Vec<f64> = r
                    .continuation
                    .split_whitespace()
                    .map(|w| -((r.prompt.len() % 7 + w.len()) as f64) / 10.0)
                    .collect();
                self.tokens
                    .fetch_add((prompt_tokens + logprobs.len()) as u64, Ordering::Relaxed);
                TextScore {
                    logprobs,
                    prompt_tokens,
                }
            })
            .collect())
    }

    fn tokens_computed(&self) -> u64 {
        self.tokens.load(Ordering::Relaxed)
    }

    fn fork(&self) -> Option<Box<dyn TextScorer>> {
        Some(Box::new(FakeScorer {
            fail: self.fail,
            ..FakeScorer::default()
        }))
    }
}

fn episode() -> Episode {
    Episode::from_json(
        r#"{"format": "bip-episode/1",
            "world": {"rooms": ["kitchen", "living_room"],
              "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
                            {"id": "kitchen_cabinet_1", "room": "kitchen", "kind": "container"},
                            {"id": "coffee_table", "room": "living_room", "kind": "surface"}],
              "objects": [{"id": "wine_glass_1", "at": "fridge"},
                          {"id": "apple_1", "at": "coffee_table"}]},
            "agent": {"name": "Ann", "start": "living_room"},
            "actions": [{"walk_to": "kitchen"}, {"walk_to": "fridge"}, {"open": "fridge"}]}"#,
        "lm-test",
    )
    .expect("valid episode")
}

fn situation<'a>(
    episode: &'a Episode,
    state: &'a State,
    goal: &str,
    belief: &'a Belief,
) -> Situation<'a> {
    Situation {
        world: episode.world(),
        state,
        goal: episode.world().class_by_name(goal).expect("class"),
        belief,
        seen: Sightings::none(),
    }
}

#[test]
fn prompts_put_the_shared_parts_first_and_the_hypothesis_last() {
    let episode = episode();
    let world = episode.world();
    let state = episode.initial_state();
    let fridge = world.furniture_by_name("fridge").expect("fridge");
    let (sure, lost) = (Belief::thinks_at(fridge, 3, 0.05), Belief::uniform(3));
    let template = PromptTemplate::default();
    let a = template.prompt(&situation(&episode, &state, "wine_glass", &sure));
    let b = template.prompt(&situation(&episode, &state, "apple", &lost));
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    assert!(
        a[..shared].contains("- kitchen: fridge, kitchen cabinet 1\n"),
        "{a}"
    );
    assert!(
        a[..shared].ends_with("Now: in the living room.\nGoal: get the "),
        "{a}"
    );
    assert!(a.ends_with(
        "Goal: get the wine glass.\nBelief: the wine glass is in the fridge.\nNext action:"
    ));
    assert!(b.ends_with("Belief: they do not know where the apple is.\nNext action:"));
    let walk = Action::WalkTo(Place::Furniture(fridge));
    assert_eq!(template.action(world, &walk), " walk to the fridge");
}

#[test]
fn beliefs_render_what_was_seen_and_what_is_still_considered() {
    let episode = episode();
    let world = episode.world();
    let template = PromptTemplate {
        style: PromptStyle::BipAlm,
        ..PromptTemplate::default()
    };
    let mut state = episode.initial_state();
    let fridge = world.furniture_by_name("fridge").expect("fridge");
    let cabinet = world
        .furniture_by_name("kitchen_cabinet_1")
        .expect("cabinet");
    let wine = world.class_by_name("wine_glass").expect("wine");
    let mut among = Belief::thinks_among(&[fridge, cabinet], 3, 0.05);
    let prompt = template.prompt(&situation(&episode, &state, "wine_glass", &among));
    assert!(prompt
        .contains("belief: the wine glass is in the fridge or in the kitchen cabinet 1.\naction:"));
    for action in episode.actions() {
        state.apply(world, action).expect("possible");
        among.observe(world, wine, &state.observe(world));
    }
    let prompt = template.prompt(&situation(&episode, &state, "wine_glass", &among));
    assert!(prompt.contains("the person is in the kitchen, at the fridge; open: fridge.\n"));
    assert!(
        prompt.contains("belief: the wine glass is in the fridge.\n"),
        "{prompt}"
    );
}

#[test]
fn prompts_with_observations_say_what_was_seen_before_where_the_agent_is() {
    let episode = episode();
    let world = episode.world();
    let template = PromptTemplate {
        observations: true,
        ..PromptTemplate::default()
    };
    let lost = Belief::uniform(3);
    let mut state = episode.initial_state();
    let mut states = vec![state.clone()];
    // At the start the agent sees the coffee table's apple.
    let seen = Sightings::of_states(world, &states);
    let start = template.prompt(&Situation {
        seen: &seen,
        ..situation(&episode, &state, "wine_glass", &lost)
    });
    assert!(
        start.contains("Seen: on the coffee table: apple.\nNow: in the living room.\n"),
        "{start}"
    );
    for action in episode.actions() {
        state.apply(world, action).expect("possible");
        states.push(state.clone());
    }
    // Walking into the kitchen shows no surface there; opening the fridge shows the wine
    // glass. The record grows at its end, so the earlier step's prompt shares it.
    let seen = Sightings::of_states(world, &states);
    let prompt = |goal| {
        template.prompt(&Situation {
            seen: &seen,
            ..situation(&episode, &state, goal, &lost)
        })
    };
    let (wine, apple) = (prompt("wine_glass"), prompt("apple"));
    let record = "Seen: on the coffee table: apple; in the fridge: wine glass.\n";
    assert!(
        wine.contains(&format!("{record}Now: in the kitchen")),
        "{wine}"
    );
    assert!(apple.contains(record));
    assert!(start.starts_with(&wine[..wine.find("apple").expect("apple") + 5]));
    // Without the option, the prompt is the one the policy always rendered.
    let plain = PromptTemplate::default().prompt(&situation(&episode, &state, "apple", &lost));
    assert_eq!(apple.replace(record, ""), plain);
}

#[test]
fn each_distinct_prompt_is_scored_once_and_remembered() {
    let episode = episode();
    let state = episode.initial_state();
    let fridge = episode.world().furniture_by_name("fridge").expect("fridge");
    let sure = Belief::thinks_at(fridge, 3, 0.05);
    let lost = Belief::uniform(3);
    let policy = LmPolicy::new(Box::<FakeScorer>::default());
    let situations = [
        situation(&episode, &state, "apple", &sure),
        situation(&episode, &state, "apple", &lost),
        situation(&episode, &state, "apple", &sure),
    ];
    let walk = Action::WalkTo(Place::Room(
        episode.world().room_by_name("kitchen").expect("room"),
    ));
    let first = policy.log_probs(&situations, &walk).expect("scored");
    assert_eq!(first[0], first[2]);
    assert_ne!(first[0], first[1]);
    let computed = policy.work().lm_tokens;
    let again = policy.log_probs(&situations, &walk).expect("scored");
    assert_eq!(first, again);
    assert_eq!(
        policy.work().lm_tokens,
        computed,
        "nothing was scored twice"
    );
    // Unshared work counts every hypothesis at every call, as BIP-ALM would run them.
    assert!(policy.work().lm_tokens_unshared > 2 * computed);
    assert_eq!(policy.log_prob(&situations[1], &walk), first[1]);
}

#[test]
fn mean_and_sum_reduce_the_same_token_scores() {
    let episode = episode();
    let state = episode.initial_state();
    let lost = Belief::uniform(3);
    let s = [situation(&episode, &state, "apple", &lost)];
    let fridge = episode.world().furniture_by_name("fridge").expect("fridge");
    let walk = Action::WalkTo(Place::Furniture(fridge));
    let mean = LmPolicy::new(Box::<FakeScorer>::default());
    let sum = LmPolicy::with_options(
        Box::<FakeScorer>::default(),
        PromptTemplate::default(),
        TokenReduction::Sum,
    );
    let (m, t) = (
        mean.log_probs(&s, &walk).expect("m")[0],
        sum.log_probs(&s, &walk).expect("s")[0],
    );
    // " walk to the fridge" is four words, so four fake tokens.
    assert!((t - 4.0 * m).abs() < 1e-12, "{t} vs {m}");
}

#[test]
fn the_hybrid_weights_the_planner_and_the_lm_in_log_space() {
    let episode = episode();
    let state = episode.initial_state();
    let lost = Belief::uniform(3);
    let s = [situation(&episode, &state, "apple", &lost)];
    let kitchen = episode.world().room_by_name("kitchen").expect("room");
    let walk = Action::WalkTo(Place::Room(kitchen));
    let planner = PlannerPolicy::default().log_probs(&s, &walk).expect("p")[0];
    let lm = LmPolicy::new(Box::<FakeScorer>::default())
        .log_probs(&s, &walk)
        .expect("l")[0];
    let hybrid = HybridPolicy::new(
        Box::new(PlannerPolicy::default()),
        Box::new(LmPolicy::new(Box::<FakeScorer>::default())),
        0.5,
        2.0,
    )
    .expect("valid weights");
    let both = hybrid.log_probs(&s, &walk).expect("h")[0];
    assert!((both - (0.5 * planner + 2.0 * lm)).abs() < 1e-12);
    assert!(hybrid.serial(), "an LM inside makes the hybrid serial");
    let bad = HybridPolicy::new(
        Box::new(PlannerPolicy::default()),
        Box::new(PlannerPolicy::default()),
        -1.0,
        1.0,
    );
    assert!(bad.is_err());
}

#[test]
fn a_failing_scorer_stops_the_session_with_a_named_error() {
    let episode = episode();
    let policy = LmPolicy::new(Box::new(FakeScorer {
        fail: true,
        ..FakeScorer::default()
    }));
    // One step, or a run scored ahead: the error names the first step either way.
    for run in [1, episode.actions().len()] {
        let mut session = Inference::for_episode(&episode, &policy, &HypothesisConfig::default())
            .expect("session");
        match session.push_all(&episode.actions()[..run]) {
            Err(EngineError::PolicyFailed { step, source, .. }) => {
                assert_eq!(step, 0);
                assert!(source.to_string().contains("out of context"), "{source}");
            }
            other => panic!("expected a policy failure, got {other:?}"),
        }
        assert_eq!(session.steps(), 0, "the session is unchanged");
    }
}

#[test]
fn every_policy_scores_goals_about_classes_the_world_lacks() {
    let episode = Episode::from_json(
        r#"{"format": "bip-episode/1",
            "world": {"rooms": ["kitchen", "living_room"],
              "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
                            {"id": "coffee_table", "room": "living_room", "kind": "surface"}],
              "objects": [{"id": "apple_1", "at": "coffee_table"}]},
            "agent": {"name": "Ann", "start": "living_room"},
            "actions": [{"walk_to": "kitchen"}, {"walk_to": "fridge"}, {"open": "fridge"}],
            "questions": [{"options": [{"goal": "apple"}, {"goal": "cupcake"}]}]}"#,
        "absent",
    )
    .expect("a goal may name a class no object has");
    let lm = LmPolicy::new(Box::<FakeScorer>::default());
    let planner = PlannerPolicy::default();
    let hybrid = HybridPolicy::new(
        Box::new(PlannerPolicy::default()),
        Box::new(LmPolicy::new(Box::<FakeScorer>::default())),
        1.0,
        1.0,
    )
    .expect("weights");
    let policies: [&dyn crate::policy::Policy; 3] = [&planner, &lm, &hybrid];
    for policy in policies {
        let result = crate::infer_episode(&episode, policy, &crate::BatchOptions::default())
            .expect("inference over an absent class runs");
        let p = &result.answers[0].posterior;
        assert!(p.iter().all(|x| x.is_finite()), "{}: {p:?}", policy.name());
        if policy.name() == "planner" {
            // Ann walked away from the apple in view to open the fridge: she wants
            // something she has not seen, which here is only the cupcake.
            assert!(p[1] > 0.9, "{p:?}");
        }
    }
}

/// A [`FakeScorer`] whose counters the test keeps after the policy takes the scorer.
struct Shared(std::sync::Arc<FakeScorer>);

impl TextScorer for Shared {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn score(&self, requests: &[TextRequest<'_>]) -> Result<Vec<TextScore>, PolicyFailure> {
        self.0.score(requests)
    }

    fn tokens_computed(&self) -> u64 {
        self.0.tokens_computed()
    }

    fn fork(&self) -> Option<Box<dyn TextScorer>> {
        self.0.fork()
    }
}

#[test]
fn a_run_of_actions_is_scored_in_one_call_with_the_same_posterior_as_step_by_step() {
    let episode = episode();
    let config = HypothesisConfig::default();
    for likelihood in [ActionLikelihood::Text, ActionLikelihood::Choice] {
        let posterior_after = |push_all: bool| {
            let scorer = std::sync::Arc::new(FakeScorer::default());
            let policy =
                LmPolicy::new(Box::new(Shared(scorer.clone()))).with_likelihood(likelihood);
            let mut session = Inference::for_episode(&episode, &policy, &config).expect("session");
            if push_all {
                session.push_all(episode.actions()).expect("pushed");
            } else {
                for action in episode.actions() {
                    session.push(action).expect("pushed");
                }
            }
            let posterior = session.posterior();
            let weights = posterior.hypothesis_log_weights(&[]);
            (weights, scorer.calls.load(Ordering::Relaxed))
        };
        let (ahead, ahead_calls) = posterior_after(true);
        let (stepwise, stepwise_calls) = posterior_after(false);
        assert_eq!(ahead, stepwise, "{likelihood:?}");
        assert_eq!(stepwise_calls, episode.actions().len());
        assert_eq!(
            ahead_calls, 1,
            "every step announced, then scored in one call ({likelihood:?})"
        );
    }
}

#[test]
fn episodes_run_side_by_side_through_forks_answer_as_one_after_another() {
    let episodes: Vec<Episode> = (0..10).map(|_| episode()).collect();
    let run = |side_by_side: bool| {
        let scorer = std::sync::Arc::new(FakeScorer::default());
        let policy = LmPolicy::new(Box::new(Shared(std::sync::Arc::clone(&scorer))));
        let options = crate::BatchOptions {
            side_by_side,
            // The fixture asks nothing: the trace makes every action scored.
            trace_top: Some(3),
            ..crate::BatchOptions::default()
        };
        let results = crate::infer_all(&episodes, &policy, &options, &|| {});
        let answers: Vec<_> = results
            .into_iter()
            .map(|r| r.expect("runs").trace)
            .collect();
        (answers, scorer.requests.load(Ordering::Relaxed))
    };
    let (serial, asked_serially) = run(false);
    let (forked, asked_of_the_parent) = run(true);
    assert_eq!(serial, forked);
    assert!(asked_serially > 0);
    assert_eq!(
        asked_of_the_parent, 0,
        "forks, not the policy itself, scored"
    );
}

/// The policy's log-likelihood of every action possible in `state`, per hypothesis.
fn every_action(
    policy: &LmPolicy,
    episode: &Episode,
    state: &State,
    hypotheses: &[(&str, &Belief)],
) -> Vec<(Action, Vec<f64>)> {
    let situations: Vec<Situation<'_>> = hypotheses
        .iter()
        .map(|(goal, belief)| situation(episode, state, goal, belief))
        .collect();
    state
        .possible_actions(episode.world())
        .into_iter()
        .map(|a| (a, policy.log_probs(&situations, &a).expect("scored")))
        .collect()
}

#[test]
fn a_choice_is_the_text_score_normalised_over_the_possible_actions() {
    let episode = episode();
    let world = episode.world();
    let state = episode.initial_state();
    let lost = Belief::uniform(3);
    let hypotheses = [("wine_glass", &lost)];
    let policy = |likelihood| {
        LmPolicy::with_options(
            Box::new(FakeScorer::default()),
            PromptTemplate::default(),
            TokenReduction::Sum,
        )
        .with_likelihood(likelihood)
    };
    let texts = every_action(
        &policy(ActionLikelihood::Text),
        &episode,
        &state,
        &hypotheses,
    );
    let choices = every_action(
        &policy(ActionLikelihood::Choice),
        &episode,
        &state,
        &hypotheses,
    );
    let total = crate::logprob::log_sum_exp(&texts.iter().map(|(_, s)| s[0]).collect::<Vec<_>>());
    let text_of = |target: Place| {
        texts
            .iter()
            .find(|(a, _)| *a == Action::WalkTo(target))
            .map(|(_, s)| s[0])
            .expect("a possible walk")
    };
    let kitchen = Place::Room(world.room_by_name("kitchen").expect("kitchen"));
    for (action, scores) in &choices {
        let Action::WalkTo(to) = *action else {
            unreachable!("only walks are possible in the living room");
        };
        let expected = if to == kitchen {
            // A walk into the kitchen is on the way to everything in it.
            let inside: Vec<f64> = ["fridge", "kitchen_cabinet_1"]
                .iter()
                .map(|f| text_of(Place::Furniture(world.furniture_by_name(f).expect("f"))))
                .chain([text_of(kitchen)])
                .collect();
            crate::logprob::log_sum_exp(&inside) - total
        } else {
            text_of(to) - total
        };
        assert!((scores[0] - expected).abs() < 1e-12, "{action:?}");
        assert!(scores[0] < 0.0);
    }
}

#[test]
fn under_choice_what_a_prompt_adds_to_every_action_cancels() {
    // The stand-in's mean per-word score is an offset read off the prompt plus a term of
    // the action's words: prompts of different hypotheses shift every action alike.
    let episode = episode();
    let world = episode.world();
    let state = episode.initial_state();
    let fridge = world.furniture_by_name("fridge").expect("fridge");
    let (sure, lost) = (Belief::thinks_at(fridge, 3, 0.05), Belief::uniform(3));
    let hypotheses = [("wine_glass", &sure), ("apple", &lost)];
    let policy =
        |likelihood| LmPolicy::new(Box::new(FakeScorer::default())).with_likelihood(likelihood);
    let texts = every_action(
        &policy(ActionLikelihood::Text),
        &episode,
        &state,
        &hypotheses,
    );
    assert!(texts.iter().all(|(_, s)| s[0] != s[1]), "{texts:?}");
    let choices = every_action(
        &policy(ActionLikelihood::Choice),
        &episode,
        &state,
        &hypotheses,
    );
    for (action, scores) in &choices {
        assert!(
            (scores[0] - scores[1]).abs() < 1e-12,
            "{action:?}: {scores:?}"
        );
    }
}
