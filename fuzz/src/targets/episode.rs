//! `bip-episode/1` JSON: read, validated, written back and read again, exported to
//! VirtualHome, and (when small) inferred with the planner.

use bip_engine::{infer_episode, BatchOptions, HypothesisConfig, PlannerPolicy};
use bip_episodes::import::virtualhome::export;
use bip_episodes::Episode;

use super::{signature, Scratch, Target};

/// The episode target.
pub(super) const TARGET: Target = Target {
    name: "episode",
    about: "bip-episode/1 JSON: read, written back and re-read, exported, and inferred when small",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"\"walk_to\"",
        b"\"open\"",
        b"\"grab\"",
        b"\"put\"",
        b"\"container\"",
        b"\"surface\"",
        b"\"alternatives\"",
        b"\"between\"",
        b"\"distance\"",
        b"\"given\"",
        b"\"belief\"",
        b"\"goal\"",
        b"\"inside\"",
        b"\"expected\"",
        b"\"unknowable\"",
        b"1e308",
        b"-1",
        b"0",
        b"null",
        b"[]",
        b"{}",
        b"\"kitchen\"",
        b"\"fridge\"",
    ],
    hot: 1 << 16,
};

/// Episodes with more places or actions than this are read but not inferred, so that
/// one execution stays well under the campaign's 5 s (the limits of inference are
/// tested by the CLI's tests).
const INFER_PLACES: usize = 48;
const INFER_ACTIONS: usize = 200;

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    let episode = match Episode::from_json(text, "fuzz") {
        Ok(episode) => episode,
        Err(e) => return signature(&e, scratch),
    };
    // What is written reads back as the same episode.
    let again = match Episode::from_json(&episode.to_json(), "fuzz") {
        Ok(again) => again,
        Err(e) => return format!("written back, unreadable: {}", signature(&e, scratch)),
    };
    if again.to_json() != episode.to_json() {
        return "written back, read differently".into();
    }
    let exported = export(&episode);
    let world = episode.world();
    if world.rooms.len() + world.furniture.len() > INFER_PLACES
        || episode.actions().len() > INFER_ACTIONS
    {
        return format!("read, {} nodes exported", exported.graph.nodes.len());
    }
    let options = BatchOptions {
        hypotheses: HypothesisConfig {
            max_hypotheses: 2_000,
            ..HypothesisConfig::default()
        },
        ..BatchOptions::default()
    };
    match infer_episode(&episode, &PlannerPolicy::default(), &options) {
        Ok(inference) => format!("inferred {} answers", inference.answers.len()),
        Err(e) => signature(&e, scratch),
    }
}

/// The shipped examples.
fn seeds() -> Vec<Vec<u8>> {
    [
        include_str!("../../../episodes/examples/1.1-true-belief-short.json"),
        include_str!("../../../episodes/examples/1.2-false-belief-short.json"),
        include_str!("../../../episodes/examples/1.3-belief-tracking-long.json"),
        include_str!("../../../episodes/examples/2.1-goal-true-belief.json"),
        include_str!("../../../episodes/examples/2.4-goal-future-actions.json"),
        include_str!("../../../episodes/examples/kitchen-search.json"),
    ]
    .map(|s| s.as_bytes().to_vec())
    .to_vec()
}

/// A small episode with `world` and `questions` spliced in.
fn episode(world: &str, actions: &str, questions: &str) -> Vec<u8> {
    format!(
        r#"{{"format": "bip-episode/1", "world": {world}, "agent": {{"name": "A", "start": "hall"}}, "actions": {actions}, "questions": {questions}}}"#
    )
    .into_bytes()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let world = |doors: &str, furniture: &str| {
        format!(
            r#"{{"rooms": ["kitchen", "hall"], "doors": {doors}, "furniture": [{furniture}], "objects": [{{"id": "apple_1", "at": "fridge"}}]}}"#
        )
    };
    let fridge = r#"{"id": "fridge", "room": "kitchen", "kind": "container"}"#;
    let goals = r#"[{"options": [{"goal": "apple"}, {"goal": "pear"}]}]"#;
    let far_door = world(
        r#"[{"between": ["kitchen", "hall"], "distance": 1e308}]"#,
        fridge,
    );
    let cabinets: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"id": "cabinet_{i}", "room": "kitchen", "kind": "container"}}"#))
        .collect();
    let many = world("[]", &format!("{fridge}, {}", cabinets.join(", ")))
        .replace(r#""doors": []"#, r#""doors": [["kitchen", "hall"]]"#);
    let options: Vec<String> = (0..29)
        .map(|i| format!(r#"{{"text": "option {i}", "goal": "apple"}}"#))
        .collect();
    let long_name = format!(
        r#"[{{"options": [{{"goal": "{}"}}, {{"goal": "pear"}}]}}]"#,
        "x".repeat(20_000)
    );
    let plain = world(r#"[["kitchen", "hall"]]"#, fridge);
    vec![
        (
            "door-1e308.json",
            episode(&far_door, r#"[{"walk_to": "kitchen"}]"#, goals),
        ),
        ("room-300-containers.json", episode(&many, "[]", goals)),
        (
            "29-options.json",
            episode(
                &plain,
                "[]",
                &format!(r#"[{{"options": [{}]}}]"#, options.join(", ")),
            ),
        ),
        ("class-name-20kb.json", episode(&plain, "[]", &long_name)),
        ("empty.json", Vec::new()),
    ]
}
