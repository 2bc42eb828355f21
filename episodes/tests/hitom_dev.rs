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
