use super::*;

const TEXT: &str = "What's inside the apartment: The apartment consists of a kitchen and a \
    bathroom. The kitchen is equipped with a refrigerator and a microwave. The fridge contains \
    an apple, and the microwave holds a cupcake.\nActions taken by Ann Lee: Ann Lee is in the \
    bathroom. She walks to the kitchen, opens the fridge and closes it, and is about to open the \
    microwave.\nQuestion: If Ann Lee has been trying to get a cupcake, which one of the following \
    statements is more likely to be true? (a) Ann Lee thinks that the cupcake is not inside the \
    microwave. (b) Ann Lee thinks that the cupcake is inside the microwave. Please respond with \
    either a or b.";

fn line(question: &str, extra: &str) -> String {
    format!(
        "{{\"question\": {}, \"answer\": \"b\", \"question_type\": 1.1{extra}}}",
        serde_json::json!(question)
    )
}

#[test]
fn a_record_becomes_a_valid_episode_with_its_answer_and_type() {
    let record = read_record(&line(TEXT, ", \"episode\": 12"), 4).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.episode.id(), "mmtom-12-4");
    assert_eq!(record.expected, "b");
    assert_eq!(record.question_type, Some(QuestionType::TrueBeliefShort));
    assert_eq!(record.mmtom_episode, Some(12));
    assert_eq!(record.file.agent.name, "Ann Lee");
    assert_eq!(record.file.agent.start, "bathroom");
    assert_eq!(
        record.episode.actions().len(),
        5,
        "walk, walk, open, close, walk"
    );
    let question = &record.file.questions[0];
    assert_eq!(question.at, Some(5));
    assert_eq!(question.label.as_deref(), Some("1.1"));
    assert_eq!(
        question.options[1].belief.as_ref().map(|b| b.inside),
        Some(true)
    );
}

#[test]
fn jsonl_lines_are_numbered_and_blank_lines_skipped() {
    let text = format!("{}\n\n{}\n", line(TEXT, ""), line("nonsense", ""));
    let read: Vec<_> = read_jsonl(&text).collect();
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].0, 1);
    assert_eq!(
        read[0].1.as_ref().map(|r| r.episode.id().to_string()).ok(),
        Some("mmtom-1".into())
    );
    assert_eq!(read[1].0, 3);
    assert!(matches!(
        read[1].1,
        Err(ImportError::MissingPart {
            part: Part::Narrative,
            ..
        })
    ));
}

#[test]
fn malformed_records_name_the_field() {
    assert!(matches!(read_record("{", 1), Err(ImportError::Json { .. })));
    assert!(matches!(
        read_record("{\"answer\": \"a\"}", 1),
        Err(ImportError::Field {
            field: "question",
            ..
        })
    ));
    let no_answer = format!("{{\"question\": {}}}", serde_json::json!(TEXT));
    assert!(matches!(
        read_record(&no_answer, 1),
        Err(ImportError::Field {
            field: "answer",
            ..
        })
    ));
    let bad_answer = line(TEXT, "").replace("\"answer\": \"b\"", "\"answer\": \"e\"");
    assert!(matches!(
        read_record(&bad_answer, 1),
        Err(ImportError::Field {
            field: "answer",
            ..
        })
    ));
}

#[test]
fn missing_parts_are_named() {
    let no_question = TEXT.replace("Question:", "Query:");
    assert!(matches!(
        read_text(&no_question, "x", None, None),
        Err(ImportError::MissingPart {
            part: Part::Question,
            ..
        })
    ));
    let no_name = TEXT.replace("Actions taken by Ann Lee:", "Actions taken by");
    assert!(matches!(
        read_text(&no_name, "x", None, None),
        Err(ImportError::MissingPart {
            part: Part::Narrative,
            ..
        })
    ));
}

#[test]
fn errors_quote_the_sentence() {
    let text = TEXT.replace("opens the fridge", "opens the toaster");
    let e = read_text(&text, "x", None, None).expect_err("unknown place");
    assert!(
        e.to_string().starts_with("narrative: cannot read \"the toaster\" in \"She walks to the kitchen, opens the toaster"),
        "{e}"
    );
}

#[test]
fn no_prefix_or_mangling_of_a_question_panics() {
    for (end, _) in TEXT.char_indices() {
        let _ = read_text(&TEXT[..end], "x", Some("a"), None);
    }
    for (i, word) in TEXT.split(' ').enumerate() {
        let dropped = TEXT.replacen(&format!(" {word} "), " ", 1);
        let doubled = TEXT.replacen(word, &format!("{word} {word}"), 1);
        let shouted = TEXT.replacen(word, &word.to_uppercase(), 1);
        for text in [dropped, doubled, shouted] {
            let _ = read_text(&text, &i.to_string(), Some("b"), Some("1.1"));
        }
    }
}
