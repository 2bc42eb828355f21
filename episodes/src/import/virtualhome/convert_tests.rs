//! Programs and questions on a small two-room scene.

use super::*;
use crate::import::virtualhome::graph::read_graph;
use crate::import::virtualhome::report::NoteKind;
use crate::json::ActionFile;

/// Kitchen (1) with a closed fridge (2) holding an apple (3), a table (4) with a plate (5)
/// and a TV (6); a bedroom (7) with a desk (8); a door (9) between them; the character (10)
/// in the bedroom.
const GRAPH: &str = r#"{"nodes": [
  {"id": 1, "class_name": "kitchen", "category": "Rooms"},
  {"id": 2, "class_name": "fridge", "category": "Appliances", "properties": ["CAN_OPEN", "CONTAINERS"], "states": ["CLOSED"]},
  {"id": 3, "class_name": "apple", "category": "Food", "properties": ["GRABBABLE"]},
  {"id": 4, "class_name": "kitchen_table", "category": "Furniture", "properties": ["SURFACES"]},
  {"id": 5, "class_name": "plate", "category": "Props", "properties": ["GRABBABLE"]},
  {"id": 6, "class_name": "tv", "category": "Electronics", "properties": ["HAS_SWITCH"]},
  {"id": 7, "class_name": "bedroom", "category": "Rooms"},
  {"id": 8, "class_name": "desk", "category": "Furniture", "properties": ["SURFACES"]},
  {"id": 9, "class_name": "door", "category": "Doors", "properties": ["CAN_OPEN"]},
  {"id": 10, "class_name": "character", "category": "Characters"}],
 "edges": [
  {"from_id": 2, "relation_type": "INSIDE", "to_id": 1},
  {"from_id": 3, "relation_type": "INSIDE", "to_id": 2},
  {"from_id": 4, "relation_type": "INSIDE", "to_id": 1},
  {"from_id": 5, "relation_type": "ON", "to_id": 4},
  {"from_id": 6, "relation_type": "INSIDE", "to_id": 1},
  {"from_id": 8, "relation_type": "INSIDE", "to_id": 7},
  {"from_id": 9, "relation_type": "BETWEEN", "to_id": 1},
  {"from_id": 9, "relation_type": "BETWEEN", "to_id": 7},
  {"from_id": 10, "relation_type": "INSIDE", "to_id": 7}]}"#;

fn run(script: &str, options: &ImportOptions) -> Result<Imported, VirtualHomeError> {
    import(&read_graph(GRAPH)?, Some(script), options)
}

fn walk(to: &str) -> String {
    format!("{:?}", ActionFile::WalkTo(to.into()))
}

fn actions(imported: &Imported) -> Vec<String> {
    imported
        .file
        .actions
        .iter()
        .map(|a| format!("{a:?}"))
        .collect()
}

#[test]
fn a_program_becomes_actions_with_notes_for_every_liberty() {
    let script = "\
<char0> [Walk] <kitchen> (1)
[Find] <kitchen> (1)
[Open] <fridge> (2)
[Grab] <apple> (3)
[SwitchOn] <tv> (6)
[Walk] <tv> (6)
<char1> [Walk] <bedroom> (7)
[PutBack] <apple> (3) <kitchen_table> (4)
[Open] <door> (9)
[Dance] <kitchen> (1)
";
    let imported = run(script, &ImportOptions::default()).expect("imports");
    assert_eq!(
        actions(&imported),
        vec![
            walk("kitchen"),
            walk("fridge"),
            format!("{:?}", ActionFile::Open("fridge".into())),
            format!("{:?}", ActionFile::Grab("apple".into())),
            walk("kitchen"),
            walk("kitchen_table"),
            format!(
                "{:?}",
                ActionFile::Put {
                    object: "apple".into(),
                    onto: "kitchen_table".into()
                }
            ),
        ]
    );
    let lines = |kind| -> Vec<usize> { imported.report.of(kind).filter_map(|n| n.line).collect() };
    assert_eq!(lines(NoteKind::Redundant), vec![2]);
    assert_eq!(lines(NoteKind::AddedWalk), vec![3, 8]);
    assert_eq!(lines(NoteKind::SkippedAction), vec![5, 10]);
    assert_eq!(lines(NoteKind::WalkToRoom), vec![6]);
    assert_eq!(lines(NoteKind::SkippedTarget), vec![7, 9]);
    let dance = imported
        .report
        .of(NoteKind::SkippedAction)
        .nth(1)
        .expect("line 10");
    assert!(dance
        .to_string()
        .contains("script line 10: [Dance] is not an action bip knows"));
}

#[test]
fn lines_played_one_at_a_time_give_what_the_whole_program_gives() {
    let script = "\
<char0> [Walk] <kitchen> (1)
[Find] <kitchen> (1)
[Open] <fridge> (2)
[Grab] <apple> (3)
[SwitchOn] <tv> (6)
[Walk] <tv> (6)
[PutBack] <apple> (3) <kitchen_table> (4)
[Dance] <kitchen> (1)
";
    let whole = run(script, &ImportOptions::default()).expect("imports");
    let bare = import(
        &read_graph(GRAPH).expect("graph"),
        None,
        &ImportOptions::default(),
    )
    .expect("imports");
    let world = bare.episode.world();
    let mut state = bare.episode.initial_state();
    let (mut actions, mut notes) = (Vec::new(), Vec::new());
    for (i, line) in script.lines().enumerate() {
        let played = bare.player.play(world, &state, i + 1, line).expect("plays");
        for action in &played.actions {
            state.apply(world, action).expect("possible");
        }
        actions.extend(played.actions);
        notes.extend(played.notes);
    }
    assert_eq!(actions, whole.episode.actions());
    let line_notes: Vec<_> = whole
        .report
        .notes
        .iter()
        .filter(|n| n.line.is_some())
        .collect();
    assert_eq!(notes.iter().collect::<Vec<_>>(), line_notes);
    // A line the agent cannot do there is an error naming its number.
    let err = bare
        .player
        .play(
            world,
            &bare.episode.initial_state(),
            7,
            "[Close] <fridge> (2)",
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("script line 7 ([Close] <fridge> (2))"),
        "{err}"
    );
}

#[test]
fn strict_rejects_what_would_be_skipped_or_added() {
    let strict = ImportOptions {
        strict: true,
        ..ImportOptions::default()
    };
    for (script, line) in [
        (
            "[Walk] <fridge> (2)\n[Open] <fridge> (2)\n[SwitchOn] <tv> (6)",
            3,
        ),
        ("[Walk] <kitchen> (1)\n[Open] <fridge> (2)", 2),
        ("[Walk] <tv> (6)", 1),
        ("<char1> [Walk] <kitchen> (1)", 1),
    ] {
        match run(script, &strict) {
            Err(VirtualHomeError::Strict { line: l, .. }) => assert_eq!(l, line, "{script}"),
            other => panic!("{script}: {:?}", other.map(|_| ())),
        }
    }
    let redundant =
        run("[Walk] <bedroom> (7)\n[Walk] <kitchen> (1)", &strict).expect("a no-op is fine");
    assert_eq!(redundant.file.actions.len(), 1);
}

#[test]
fn bad_lines_name_the_line_and_the_node() {
    for (script, needle) in [
        (
            "[Walk] <kitchen> (1)\n[Walk] <fridge> (99)",
            "no node has id 99",
        ),
        (
            "[Walk] <kitchen> (1)\n[Walk] <microwave> (2)",
            "node 2 is a fridge, not a microwave",
        ),
        (
            "[Walk] <kitchen> (1)\n[Grab] <apple> (3)",
            "inside fridge, which is closed",
        ),
        (
            "[Walk] <kitchen> (1)\n[Open] <fridge> (2) <apple> (3)",
            "takes 1 argument, found 2",
        ),
        (
            "[Walk] <fridge> (2)\n[Close] <fridge> (2)",
            "already closed",
        ),
    ] {
        match run(script, &ImportOptions::default()) {
            Err(e @ VirtualHomeError::Script { line: 2, .. }) => {
                assert!(e.to_string().contains(needle), "{script}: {e}");
            }
            other => panic!("{script}: {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn questions_from_flags() {
    let options = ImportOptions {
        goals: Some(vec!["apple".into(), "5".into()]),
        ask_goal: true,
        ask_beliefs: vec![("apple".into(), "2".into())],
        agent: "Ann".into(),
        ..ImportOptions::default()
    };
    let imported = run("[Walk] <kitchen> (1)", &options).expect("imports");
    assert_eq!(
        imported.file.agent.goals,
        Some(vec!["apple".into(), "plate".into()])
    );
    let q = imported.episode.questions();
    assert_eq!(q.len(), 2);
    assert_eq!(q[0].options.len(), 2);
    assert_eq!(q[1].id, "belief-apple-fridge");
    assert_eq!(q[1].at, 1);
    for (goals, beliefs, flag) in [
        (Some(vec!["sofa".to_string()]), vec![], "--goals"),
        (
            None,
            vec![("apple".to_string(), "tv".to_string())],
            "--ask-belief",
        ),
        (
            Some(vec!["plate".to_string()]),
            vec![("apple".to_string(), "fridge".to_string())],
            "--ask-belief",
        ),
    ] {
        let options = ImportOptions {
            goals,
            ask_beliefs: beliefs,
            ..ImportOptions::default()
        };
        match run("", &options) {
            Err(VirtualHomeError::Question { flag: f, .. }) => assert_eq!(f, flag),
            other => panic!("{flag}: {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn names_doors_and_start_come_from_the_graph() {
    let imported = run("", &ImportOptions::default()).expect("imports");
    let file = &imported.file;
    assert_eq!(file.world.rooms, vec!["kitchen", "bedroom"]);
    assert_eq!(file.agent.start, "bedroom");
    assert_eq!(
        imported.names.get(&NodeId(2)).map(String::as_str),
        Some("fridge")
    );
    assert!(imported.report.mentions(NoteKind::Doors, NodeId(7)));
    let doors = file.world.doors.as_ref().expect("doors written");
    assert_eq!(
        doors.len(),
        1,
        "the door BETWEEN joins the rooms, at distance 1 without boxes"
    );
    assert!(imported.report.mentions(NoteKind::NotModelled, NodeId(6)));
}
