use super::*;
use crate::document::AnyEpisode;
use crate::test_support::STORY;

fn error_of(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value: serde_json::Value = serde_json::from_str(STORY).expect("JSON");
    edit(&mut value);
    Story::from_json(&value.to_string(), "t")
        .expect_err("the edited story must be rejected")
        .to_string()
}

#[test]
fn stories_round_trip_through_their_files() {
    let story = Story::from_json(STORY, "t").expect("valid");
    let again = Story::from_json(&story.to_json(), "t").expect("valid again");
    assert_eq!(again.to_json(), story.to_json());
    assert_eq!(story.agents().len(), 2);
    assert_eq!(story.events().len(), 4);
    let q = &story.questions()[0];
    assert_eq!((q.id.as_str(), q.at, q.order()), ("ann", 4, 1));
    assert!(
        !story.to_json().contains("doors"),
        "every room joins every other"
    );
}

#[test]
fn errors_name_the_field_and_the_value() {
    assert_eq!(
        error_of(|v| v["events"][2]["exit"]["agent"] = "Zed".into()),
        "events[2].exit.agent: unknown agent \"Zed\""
    );
    assert_eq!(
        error_of(|v| v["events"][3]["move"]["to"] = "sofa".into()),
        "events[3].move.to: unknown container \"sofa\""
    );
    assert_eq!(
        error_of(|v| v["events"][2]["exit"]["room"] = "lobby".into()),
        "events[2] (Ann leaves lobby): impossible: Ann is not in lobby"
    );
    assert_eq!(
        error_of(|v| v["questions"][0]["options"][0]["belief"]["of"] = serde_json::json!([])),
        "questions[0].options[0].belief.of: \"[]\" is empty; name whose belief it is, or use \"location\""
    );
    assert_eq!(
        error_of(|v| v["questions"][0]["options"][1]["belief"]["of"][0] = "Cy".into()),
        "questions[0].options[1].belief.of[0]: unknown agent \"Cy\""
    );
    assert_eq!(
        error_of(|v| v["agents"][1]["name"] = "Ann".into()),
        "agents[1].name: id \"Ann\" is already used by agents[0].name"
    );
    let both = error_of(|v| {
        v["questions"][0]["options"][0]["location"] =
            serde_json::json!({"object": "pear", "container": "red_box"})
    });
    assert!(both.contains("has both"), "{both}");
    assert!(error_of(|v| v["events"][0] = serde_json::json!({"jump": {}})).starts_with("line 1"));
}

#[test]
fn either_kind_of_document_reads() {
    assert!(matches!(
        AnyEpisode::from_json(STORY, "t"),
        Ok(AnyEpisode::Story(_))
    ));
    for path in crate::test_support::example_paths() {
        let text = std::fs::read_to_string(&path).expect("example");
        let Ok(AnyEpisode::Single(e)) = AnyEpisode::from_json(&text, "x") else {
            panic!("{} must read as a single-agent episode", path.display());
        };
        let direct = crate::Episode::from_json(&text, "x").expect("valid");
        assert_eq!(e.to_json(), direct.to_json());
    }
    let broken = AnyEpisode::from_json("{\"format\": 1", "t").unwrap_err();
    assert!(matches!(broken, EpisodeError::Json { .. }));
}
