use super::*;

/// A valid episode as a JSON value, for tests to break one field at a time.
fn valid() -> serde_json::Value {
    serde_json::json!({
        "format": "bip-episode/1",
        "world": {
            "rooms": ["kitchen", "living_room"],
            "doors": [["kitchen", "living_room"]],
            "furniture": [
                {"id": "fridge", "room": "kitchen", "kind": "container"},
                {"id": "kitchen_table", "room": "kitchen", "kind": "surface"},
                {"id": "sofa", "room": "living_room", "kind": "surface"}
            ],
            "objects": [
                {"id": "apple_1", "at": "fridge"},
                {"id": "apple_2", "at": "sofa"},
                {"id": "book", "at": "kitchen_table"}
            ]
        },
        "agent": {"name": "Ann", "start": "living_room"},
        "actions": [{"walk_to": "fridge"}, {"open": "fridge"}, {"grab": "apple_1"}],
        "questions": [{
            "options": [{"goal": "apple"}, {"goal": "book"}],
            "expected": "a"
        }]
    })
}

fn read(value: &serde_json::Value) -> Result<Episode, EpisodeError> {
    Episode::from_json(&value.to_string(), "test")
}

fn error_of(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value = valid();
    edit(&mut value);
    read(&value)
        .expect_err("edited episode must be rejected")
        .to_string()
}

#[test]
fn valid_episode_reads_with_classes_from_ids() {
    let e = read(&valid()).expect("valid");
    assert_eq!(e.id(), "test");
    assert_eq!(e.world().classes, vec!["apple", "book"]);
    assert_eq!(e.actions().len(), 3);
    assert_eq!(
        e.questions()[0].at,
        3,
        "a question defaults to the end of the episode"
    );
    assert_eq!(e.questions()[0].expected, Some(Expected::Option(0)));
}

#[test]
fn episode_survives_a_round_trip_through_json() {
    let e = read(&valid()).expect("valid");
    let again = Episode::from_json(&e.to_json(), "other").expect("re-read");
    assert_eq!(again.to_json(), e.to_json());
    assert_eq!(again.id(), "test");
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = Episode::from_json("{\n  \"format\": \"bip-episode/1\",\n  oops\n}", "t").unwrap_err();
    assert!(matches!(e, EpisodeError::Json { line: 3, .. }), "{e}");
}

#[test]
fn wrong_format_is_named() {
    let msg = error_of(|v| v["format"] = "bip-episode/9".into());
    assert!(
        msg.contains("format") && msg.contains("bip-episode/9"),
        "{msg}"
    );
}

#[test]
fn unknown_ids_name_field_and_value() {
    let msg = error_of(|v| v["actions"][0] = serde_json::json!({"walk_to": "garage"}));
    assert_eq!(
        msg,
        "actions[0].walk_to: unknown room, furniture or object \"garage\""
    );
    let msg = error_of(|v| v["world"]["furniture"][0]["room"] = "attic".into());
    assert_eq!(msg, "world.furniture[0].room: unknown room \"attic\"");
    let msg = error_of(|v| v["questions"][0]["options"][1]["goal"] = "".into());
    assert_eq!(
        msg,
        "questions[0].options[1].goal: unknown object class \"\""
    );
}

#[test]
fn goals_and_beliefs_may_name_a_class_no_object_has() {
    let mut value = valid();
    value["questions"][0]["options"][1]["goal"] = "piano".into();
    value["questions"][0]["options"][0] =
        serde_json::json!({"belief": {"object": "cupcake", "container": "fridge", "inside": true}});
    let e = read(&value).expect("absent classes are goal and belief candidates");
    let piano = e.world().class_by_name("piano").expect("piano is a class");
    assert!(e.world().objects.iter().all(|o| o.class != piano));
    assert!(e.goal_candidates().contains(&piano));
    assert!(e.world().class_by_name("cupcake").is_some());
}

#[test]
fn alternatives_move_objects_and_must_admit_the_actions() {
    let mut value = valid();
    value["world"]["furniture"]
        .as_array_mut()
        .expect("furniture")
        .push(serde_json::json!({"id": "shelf", "room": "kitchen", "kind": "surface"}));
    value["world"]["alternatives"] = serde_json::json!([{"objects": {"book": "shelf"}}]);
    let e = read(&value).expect("valid alternative");
    let readings = e.readings();
    assert_eq!(readings.len(), 2);
    let book = e.world().object_by_name("book").expect("book");
    let shelf = e.world().furniture_by_name("shelf").expect("shelf");
    assert_eq!(readings[1].world().object(book).start, shelf);
    assert_ne!(readings[0].world().object(book).start, shelf);
    let back = Episode::from_file(e.to_file(), "test").expect("round trip");
    assert_eq!(back.alternatives(), e.alternatives());

    value["world"]["alternatives"] = serde_json::json!([{"objects": {"apple_1": "shelf"}}]);
    let msg = read(&value)
        .expect_err("the grab is impossible")
        .to_string();
    assert!(msg.starts_with("world.alternatives[0]"), "{msg}");
    value["world"]["alternatives"] = serde_json::json!([{"objects": {"pear_1": "shelf"}}]);
    let msg = read(&value).expect_err("unknown object").to_string();
    assert!(msg.contains("pear_1"), "{msg}");
}

#[test]
fn a_reading_or_a_goal_listed_twice_is_refused_not_counted_twice() {
    let mut value = valid();
    value["world"]["furniture"]
        .as_array_mut()
        .expect("furniture")
        .push(serde_json::json!({"id": "shelf", "room": "kitchen", "kind": "surface"}));
    let book_at = value["world"]["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .find(|o| o["id"] == "book")
        .map(|o| o["at"].clone())
        .expect("a book");
    value["world"]["alternatives"] = serde_json::json!([
        {"objects": {"book": "shelf"}},
        {"objects": {"book": "shelf"}}
    ]);
    let msg = read(&value).expect_err("a repeated reading").to_string();
    assert_eq!(
        msg,
        "world.alternatives[1]: the same reading as world.alternatives[0]; list each reading once"
    );
    value["world"]["alternatives"] = serde_json::json!([{"objects": {"book": book_at}}]);
    let msg = read(&value)
        .expect_err("the world's own reading")
        .to_string();
    assert!(msg.contains("the same reading as the world's own"), "{msg}");

    let mut value = valid();
    value["agent"]["goals"] = serde_json::json!(["apple", "book", "apple"]);
    let msg = read(&value).expect_err("a repeated goal").to_string();
    assert_eq!(
        msg,
        "agent.goals[2]: \"apple\" is listed twice (also agent.goals[0])"
    );
}

#[test]
fn duplicate_ids_are_rejected() {
    let msg = error_of(|v| v["world"]["objects"][1]["id"] = "fridge".into());
    assert!(
        msg.starts_with("world.objects[1].id: id \"fridge\" is already used"),
        "{msg}"
    );
}

#[test]
fn object_lying_in_a_room_is_rejected() {
    let msg = error_of(|v| v["world"]["objects"][0]["at"] = "kitchen".into());
    assert!(
        msg.starts_with("world.objects[0].at: \"kitchen\" is a room"),
        "{msg}"
    );
}

#[test]
fn opening_a_surface_is_impossible() {
    let msg = error_of(|v| {
        v["actions"] = serde_json::json!([{"walk_to": "kitchen_table"}, {"open": "kitchen_table"}]);
    });
    assert_eq!(
        msg,
        "actions[1] (open kitchen_table): impossible: kitchen_table is a surface, not a container"
    );
}

#[test]
fn grabbing_what_is_elsewhere_or_shut_away_is_impossible() {
    let msg =
        error_of(|v| v["actions"] = serde_json::json!([{"walk_to": "fridge"}, {"grab": "book"}]));
    assert!(msg.contains("book is not where the agent is"), "{msg}");
    let msg = error_of(|v| {
        v["actions"] = serde_json::json!([{"walk_to": "fridge"}, {"grab": "apple_1"}])
    });
    assert!(
        msg.contains("apple_1 is inside fridge, which is closed"),
        "{msg}"
    );
}

#[test]
fn question_after_the_end_is_rejected() {
    let msg = error_of(|v| v["questions"][0]["at"] = 4.into());
    assert_eq!(
        msg,
        "questions[0].at: \"4\" is after the end of the episode (3 actions)"
    );
}

#[test]
fn expected_letter_must_name_an_option() {
    let msg = error_of(|v| v["questions"][0]["expected"] = "c".into());
    assert!(msg.starts_with("questions[0].expected: \"c\""), "{msg}");
    let mut value = valid();
    value["questions"][0]["expected"] = "unknowable".into();
    let e = read(&value).expect("unknowable is a valid expectation");
    assert_eq!(e.questions()[0].expected, Some(Expected::Unknowable));
}

#[test]
fn unreachable_rooms_and_bad_distances_are_rejected() {
    let msg = error_of(|v| v["world"]["doors"] = serde_json::json!([]));
    assert!(msg.contains("cannot be reached"), "{msg}");
    let msg = error_of(|v| {
        v["world"]["doors"] =
            serde_json::json!([{"between": ["kitchen", "living_room"], "distance": -1}]);
    });
    assert!(msg.starts_with("world.doors[0].distance"), "{msg}");
}

#[test]
fn option_needs_exactly_one_claim() {
    let msg = error_of(|v| {
        v["questions"][0]["options"][0] = serde_json::json!({
            "goal": "apple",
            "belief": {"object": "apple", "container": "fridge", "inside": true}
        });
    });
    assert!(msg.contains("has both"), "{msg}");
}

#[test]
fn default_class_strips_instance_numbers_only() {
    assert_eq!(default_class("apple_2"), "apple");
    assert_eq!(default_class("kitchen_cabinet_10"), "kitchen_cabinet");
    assert_eq!(default_class("remote_control"), "remote_control");
    assert_eq!(default_class("_1"), "_1");
}

#[test]
fn walking_to_an_object_walks_to_where_it_is() {
    let mut value = valid();
    value["actions"] = serde_json::json!([{"walk_to": "apple_2"}]);
    let e = read(&value).expect("valid");
    let sofa = e.world().furniture_by_name("sofa").expect("sofa");
    assert_eq!(e.actions()[0], Action::WalkTo(Place::Furniture(sofa)));
    value["actions"] =
        serde_json::json!([{"walk_to": "sofa"}, {"grab": "apple_2"}, {"walk_to": "apple_2"}]);
    let msg = read(&value).expect_err("held").to_string();
    assert!(msg.contains("is held by the agent"), "{msg}");
}

#[test]
fn single_actions_and_questions_resolve_against_a_world() {
    let episode = read(&valid()).expect("valid");
    let world = episode.world();
    let state = episode.initial_state();
    let walk: ActionFile = serde_json::from_str(r#"{"walk_to": "fridge"}"#).expect("json");
    let fridge = world.furniture_by_name("fridge").expect("fridge");
    assert_eq!(
        Action::from_file(&walk, world, &state).expect("resolves"),
        Action::WalkTo(Place::Furniture(fridge))
    );
    let unknown: ActionFile = serde_json::from_str(r#"{"open": "oven"}"#).expect("json");
    let err = Action::from_file(&unknown, world, &state).unwrap_err();
    assert!(err.to_string().starts_with("action.open"), "{err}");
    let question: QuestionFile =
        serde_json::from_str(r#"{"options": [{"goal": "apple"}, {"goal": "nothing_known"}]}"#)
            .expect("json");
    let err = Question::from_file(&question, world, 0).unwrap_err();
    assert!(
        err.to_string().starts_with("question.options[1].goal"),
        "{err}"
    );
}

#[test]
fn names_with_control_characters_are_refused_and_echoed_escaped() {
    let mut value = valid();
    value["world"]["rooms"][0] = serde_json::json!("kitchen\u{1b}[2J");
    let msg = read(&value).expect_err("a control character").to_string();
    assert!(
        msg.starts_with("world.rooms[0]") && msg.contains("\\u{1b}[2J") && !msg.contains('\u{1b}'),
        "{msg}"
    );
    let mut value = valid();
    value["agent"]["goals"] = serde_json::json!(["apple\nmove the sofa"]);
    let msg = read(&value).expect_err("a line break").to_string();
    assert!(
        msg.starts_with("agent.goals[0]") && !msg.contains('\n'),
        "{msg}"
    );
    // Free text for people may break lines.
    let mut value = valid();
    value["description"] = serde_json::json!("two lines\nof notes");
    assert!(read(&value).is_ok());
}
