use super::*;
use crate::test_support::HITOM_RECORDS;

fn records() -> Vec<HitomRecord> {
    read_jsonl(HITOM_RECORDS)
        .map(|(line, r)| r.unwrap_or_else(|e| panic!("line {line}: {e}")))
        .collect()
}

/// The first record with its story edited by `edit`, read.
fn edited(edit: impl Fn(&str) -> String) -> Result<HitomRecord, ImportError> {
    let line = HITOM_RECORDS.lines().next().unwrap_or_default();
    let mut value: Value = serde_json::from_str(line).expect("JSON");
    let story = value["story"].as_str().unwrap_or_default().to_string();
    value["story"] = Value::String(edit(&story));
    read_record(&value.to_string(), 1)
}

#[test]
fn the_records_read_with_their_labels_and_notes() {
    let r = records();
    let q = &r[0].story.questions()[0];
    assert_eq!(r[0].story.id(), "hitom-1-1");
    assert_eq!(
        q.label.as_ref().map(ToString::to_string).as_deref(),
        Some("order 2")
    );
    assert_eq!((q.order(), q.options.len()), (2, 6));
    assert_eq!(q.expected, Some(crate::Expected::Option(0)));
    let tags = r[0].story.tags();
    assert_eq!(tags.get("length").map(String::as_str), Some("2"));
    assert_eq!(tags.get("deception").map(String::as_str), Some("yes"));
    assert_eq!(tags.get("prompting").map(String::as_str), Some("VP"));
    let noted: Vec<&str> = r[0].notes.iter().map(|n| n.sentence.as_str()).collect();
    assert!(
        noted[0].starts_with("Read the following story"),
        "{noted:?}"
    );
    for distractor in [
        "Ines likes the green_drawer.",
        "Pavel saw a cat.",
        "Mara lost his gloves.",
    ] {
        assert!(noted.contains(&distractor), "{distractor}: {noted:?}");
    }
    assert_eq!(r[0].story.events().len(), 26);
    assert_eq!(r[3].story.questions()[0].order(), 0);
}

#[test]
fn the_same_story_in_other_words_reads_the_same() {
    let r = records();
    assert_eq!(r[0].file.events, r[2].file.events);
    assert_eq!(r[0].file.events, r[1].file.events);
    assert_eq!(r[0].file.world.objects.len(), 2);
    let options =
        |i: usize| serde_json::to_string(&r[i].file.questions[0].options).unwrap_or_default();
    assert_eq!(
        options(0),
        options(2).replace("In Mara's view, where would Tobias say the plum is?", "")
    );
}

#[test]
fn unreadable_records_name_the_sentence_and_the_words() {
    let e = edited(|s| {
        s.replace(
            "moved the plum to the blue_basket",
            "moved the plum to the fridge",
        )
    })
    .expect_err("no such container");
    assert_eq!(
        e.to_string(),
        "story: cannot read \"the fridge\" in \"Tobias moved the plum to the fridge.\": is not one of the record's containers"
    );
    let e = edited(|s| s.replace("16 The fig is in the blue_chest.\n", "")).expect_err("unplaced");
    assert!(
        e.to_string()
            .contains("\"fig\" in \"Tobias moved the fig to the red_bucket.\": is moved before"),
        "{e}"
    );
    let e = edited(|s| {
        s.replace(
            "21 Mara exited the cellar.",
            "21 Mara exited the greenhouse.",
        )
    })
    .expect_err("elsewhere");
    assert!(
        e.to_string()
            .contains("leaves the greenhouse but is in the cellar"),
        "{e}"
    );
    let line = HITOM_RECORDS.lines().next().unwrap_or_default();
    let e = read_record(
        &line.replace("\"answer\": \"red_crate\"", "\"answer\": \"attic\""),
        1,
    )
    .expect_err("answer");
    assert_eq!(
        e.to_string(),
        "field \"answer\": \"attic\" is not one of the choices"
    );
    let e = read_record(
        &line.replace("Where does Mara think", "Where does Zora think"),
        1,
    )
    .expect_err("agent");
    assert!(
        e.to_string().starts_with("question: cannot read \"Zora\""),
        "{e}"
    );
    // A numeric answer is an error, not an expected answer silently lost.
    let e = read_record(
        &line.replace("\"answer\": \"red_crate\"", "\"answer\": 3"),
        1,
    )
    .expect_err("numeric answer");
    assert_eq!(e.to_string(), "field \"answer\": must be a string, not 3");
    let absent = read_record(
        &line.replace("\"answer\": \"red_crate\"", "\"answer\": null"),
        1,
    )
    .expect("no answer is no expected answer");
    assert_eq!(absent.expected, None);
    assert!(matches!(
        read_record("{\"story\": 3}", 1),
        Err(ImportError::Field { field: "story", .. })
    ));
}
