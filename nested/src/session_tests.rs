//! The rules of nested-belief inference, one small story each.

use bip_episodes::json::{EventFile, StoryFile};
use bip_episodes::{AgentId, FurnitureId, Story};

use super::*;
use crate::{infer_story, Trust};

/// A story in a room with three boxes (the pear starts in box_a) and a hall, agents A, B
/// and C, and events written `"A enter room"`, `"A exit room"`, `"A move box_b"`, `"A
/// tell B box_c"` (private) or `"A tell all box_c"` (public).
fn story(events: &[&str]) -> Story {
    let events: Vec<EventFile> = events
        .iter()
        .map(|e| {
            let w: Vec<String> = e.split(' ').map(str::to_string).collect();
            match w[1].as_str() {
                "enter" => EventFile::Enter {
                    agent: w[0].clone(),
                    room: w[2].clone(),
                },
                "exit" => EventFile::Exit {
                    agent: w[0].clone(),
                    room: w[2].clone(),
                },
                "move" => EventFile::Move {
                    agent: w[0].clone(),
                    object: "pear".into(),
                    to: w[2].clone(),
                },
                _ => EventFile::Claim {
                    speaker: w[0].clone(),
                    object: "pear".into(),
                    container: w[3].clone(),
                    listener: (w[2] != "all").then(|| w[2].clone()),
                },
            }
        })
        .collect();
    let mut file: StoryFile = serde_json::from_str(
        r#"{"format": "bip-episode/1",
            "world": {"rooms": ["room", "hall"],
              "furniture": [{"id": "box_a", "room": "room", "kind": "container"},
                            {"id": "box_b", "room": "room", "kind": "container"},
                            {"id": "box_c", "room": "room", "kind": "container"}],
              "objects": [{"id": "pear", "at": "box_a"}]},
            "agents": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}"#,
    )
    .expect("a story file");
    file.events = events;
    Story::from_file(file, "t").expect("a valid story")
}

fn chain(names: &str) -> Vec<AgentId> {
    names
        .chars()
        .map(|c| AgentId::new(usize::from(c as u8 - b'A')))
        .collect()
}

/// P(pear in `place`) for the chain `names` ("AB": A thinks B thinks) after every event.
fn p(story: &Story, names: &str, place: usize) -> f64 {
    let mut session = NestedInference::new(story, Trust::new(0.8).expect("trust"));
    for e in story.events() {
        session.push(e).expect("possible");
    }
    let pear = story.world().object_by_name("pear").expect("pear");
    session
        .belief(&chain(names), pear)
        .probability(FurnitureId::new(place))
}

const A: usize = 0;
const B: usize = 1;
const C: usize = 2;

#[test]
fn agents_see_what_happens_in_their_room_until_they_leave() {
    let s = story(&[
        "A enter room",
        "B enter room",
        "A exit room",
        "B move box_b",
    ]);
    assert_eq!(p(&s, "", B), 1.0, "where it really is");
    assert_eq!(p(&s, "B", B), 1.0);
    assert_eq!(p(&s, "A", A), 1.0, "A left before the move");
    assert_eq!(p(&s, "BA", A), 1.0, "B saw A leave");
    assert_eq!(p(&s, "AB", A), 1.0, "A did not see the move");
    assert_eq!(p(&s, "C", A), 1.0 / 3.0, "C saw nothing");
}

#[test]
fn entering_later_shows_where_things_are_and_who_is_there() {
    let s = story(&[
        "A enter room",
        "A move box_c",
        "A exit room",
        "B enter room",
    ]);
    assert_eq!(p(&s, "B", C), 1.0);
    assert_eq!(
        p(&s, "AB", C),
        1.0 / 3.0,
        "A left before B came: no shared presence"
    );
    let s = story(&[
        "A enter room",
        "A move box_c",
        "B enter room",
        "A exit room",
    ]);
    assert_eq!(p(&s, "AB", C), 1.0, "A saw B come in and see the box");
}

#[test]
fn a_hearer_trusts_a_speaker_who_left_later_and_doubts_one_who_left_earlier() {
    let base = [
        "A enter room",
        "B enter room",
        "A exit room",
        "B move box_b",
        "B exit room",
    ];
    let s = story(
        &[
            &base[..],
            &["A enter hall", "B enter hall", "B tell A box_c"],
        ]
        .concat(),
    );
    assert!((p(&s, "A", C) - 0.8).abs() < 1e-12, "B left after A");
    let s = story(
        &[
            &base[..],
            &["A enter hall", "B enter hall", "A tell B box_c"],
        ]
        .concat(),
    );
    assert!((p(&s, "B", C) - 0.2).abs() < 1e-12, "A left before B");
    assert!((p(&s, "B", B) - 0.8).abs() < 1e-12);
    assert_eq!(p(&s, "A", A), 1.0, "a speaker's own belief does not move");
    assert!(
        (p(&s, "AB", C) - 0.8).abs() < 1e-12,
        "a speaker expects to be believed"
    );
    assert!(
        (p(&s, "BA", C) - 0.2).abs() < 1e-12,
        "a doubted speaker is not taken at its word"
    );
}

#[test]
fn private_claims_reach_one_listener_and_public_ones_everyone_present() {
    let base = [
        "A enter room",
        "B enter room",
        "C enter room",
        "A exit room",
        "B exit room",
        "C exit room",
        "A enter hall",
        "B enter hall",
        "C enter hall",
    ];
    let s = story(&[&base[..], &["C tell A box_c"]].concat());
    assert!(p(&s, "A", C) > 0.7);
    assert_eq!(p(&s, "B", C), 0.0, "B did not hear it");
    assert_eq!(p(&s, "BA", C), 0.0, "nor can B know what A heard");
    let s = story(&[&base[..], &["C tell all box_c"]].concat());
    assert!(p(&s, "A", C) > 0.7 && p(&s, "B", C) > 0.7);
    assert_eq!(
        p(&s, "AB", C),
        0.0,
        "a third party's model of a hearer does not move"
    );
    assert!(p(&s, "CB", C) > 0.7);
}

#[test]
fn testimony_does_not_override_what_a_hearer_sees() {
    let s = story(&["A enter room", "B enter room", "B tell A box_c"]);
    assert_eq!(p(&s, "A", A), 1.0);
}

#[test]
fn chains_tracked_late_match_chains_tracked_from_the_start() {
    let s = story(&[
        "A enter room",
        "B enter room",
        "A exit room",
        "B move box_b",
        "B exit room",
        "A enter hall",
        "B enter hall",
        "B tell A box_c",
        "A tell B box_a",
    ]);
    let pear = s.world().object_by_name("pear").expect("pear");
    let trust = Trust::new(0.7).expect("trust");
    let mut early = NestedInference::new(&s, trust);
    let chains: Vec<Vec<AgentId>> = ["", "A", "B", "AB", "BA", "ABA"]
        .iter()
        .map(|c| chain(c))
        .collect();
    for c in &chains {
        early.belief(c, pear);
    }
    let mut late = NestedInference::new(&s, trust);
    for e in s.events() {
        early.push(e).expect("possible");
        late.push(e).expect("possible");
    }
    for c in &chains {
        let (a, b) = (early.belief(c, pear).clone(), late.belief(c, pear).clone());
        assert_eq!(a, b, "{c:?}");
        assert!(a.probabilities().iter().all(|p| p.is_finite()));
    }
}

#[test]
fn impossible_events_are_refused_and_leave_the_session_unchanged() {
    let s = story(&["A enter room"]);
    let mut session = NestedInference::new(&s, Trust::default());
    let wrong = bip_episodes::Event::Exit {
        agent: AgentId::new(1),
        room: bip_episodes::RoomId::new(0),
    };
    let e = session.push(&wrong).unwrap_err();
    assert_eq!(
        e.to_string(),
        "event 0 (B leaves room): impossible: B is not in room"
    );
    assert_eq!(session.steps(), 0);
}

#[test]
fn batch_answers_are_the_session_s_and_never_read_the_label() {
    let mut parts = bip_episodes::test_support::story_parts();
    let first = infer_story(&Story::new(parts.clone()).expect("valid"), Trust::default());
    assert_eq!(first.answers[0].choice, Some(0));
    parts.questions[0].label = Some(bip_episodes::QuestionLabel::parse("order 4"));
    parts.questions[0].text = Some("Where is it?".into());
    let relabelled = infer_story(&Story::new(parts.clone()).expect("valid"), Trust::default());
    assert_eq!(first, relabelled);
    parts.questions[0].options.reverse();
    let reversed = infer_story(&Story::new(parts).expect("valid"), Trust::default());
    assert_eq!(
        reversed.answers[0].choice,
        Some(1),
        "the answer follows its claim"
    );
}
