//! The Hi-ToM reader on the development half of Hi-ToM (`../shared/data/hi-tom`): every
//! record reads, and its story keeps the record's own facts (agents, an object placed
//! before the question, one option per choice, the answer among them).

use std::path::PathBuf;

use bip_episodes::import::hitom::read_jsonl;

fn dev_text() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hi-tom/dev.jsonl");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; the Hi-ToM development half must sit in ../shared beside \
             the checkout",
            path.display()
        )
    })
}

#[test]
fn every_development_record_reads() {
    let text = dev_text();
    let mut read = 0;
    let mut unreadable = Vec::new();
    for (line, record) in read_jsonl(&text) {
        match record {
            Ok(record) => {
                read += 1;
                let q = &record.story.questions()[0];
                assert_eq!(q.options.len(), 15, "line {line}");
                assert!(q.expected.is_some(), "line {line}");
                let label = q.label.as_ref().map(ToString::to_string);
                assert_eq!(label, Some(format!("order {}", q.order())), "line {line}");
            }
            Err(e) => unreadable.push(format!("line {line}: {e}")),
        }
    }
    assert!(unreadable.is_empty(), "{}", unreadable.join("\n"));
    assert_eq!(read, 600);
}

/// The development half reworded: verbs swapped for others the benchmark never uses, the
/// instruction line and distractors reworded, and the agents renamed. Every record must
/// read to the same events and question, up to the names.
#[test]
fn reworded_development_records_read_the_same() {
    let swaps = [
        (" entered the ", " walked into the "),
        (" exited the ", " walked out of the "),
        (" moved the ", " shifted the "),
        (" made no movements and stayed in the ", " waited in the "),
        (" publicly claimed that ", " announced to everyone that "),
        (" privately told ", " whispered to "),
        (" likes the ", " adores the "),
        (" saw a ", " caught sight of a "),
        ("Read the following story", "Please read this story"),
    ];
    let text = dev_text();
    for (line, record) in text.lines().enumerate() {
        let mut value: serde_json::Value = serde_json::from_str(record).expect("JSON");
        let original = bip_episodes::import::hitom::read_record(record, line + 1).expect("reads");
        let rename = |s: &str| {
            original.story.agents().iter().fold(s.to_string(), |s, a| {
                s.replace(&a.name, &format!("{}x", a.name))
            })
        };
        let mut story = value["story"].as_str().unwrap_or_default().to_string();
        for (from, to) in swaps {
            story = story.replace(from, to);
        }
        value["story"] = rename(&story).into();
        value["question"] = rename(value["question"].as_str().unwrap_or_default()).into();
        let reworded = bip_episodes::import::hitom::read_record(&value.to_string(), line + 1)
            .unwrap_or_else(|e| panic!("line {}: {e}", line + 1));
        let events = |r: &bip_episodes::import::hitom::HitomRecord| {
            serde_json::to_string(&r.file.events).unwrap_or_default()
        };
        assert_eq!(
            events(&reworded),
            rename(&events(&original)),
            "line {}",
            line + 1
        );
        let q = |r: &bip_episodes::import::hitom::HitomRecord| {
            serde_json::to_string(&r.file.questions[0].options).unwrap_or_default()
        };
        assert_eq!(q(&reworded), rename(&q(&original)), "line {}", line + 1);
    }
}
