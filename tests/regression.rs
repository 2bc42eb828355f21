//! Answers that must not change: the planner's predictions on the MMToM-QA development
//! half (`../shared/data/mmtom-qa/dev.jsonl`), recorded in
//! `tests/data/mmtom-dev-predictions.jsonl` before multi-agent stories were added.

use crate::util::{bip, root, TempDir};

#[test]
fn mmtom_development_predictions_are_unchanged() {
    let dev = root().join("../shared/data/mmtom-qa/dev.jsonl");
    assert!(
        dev.exists(),
        "{} is missing: the MMToM-QA development half must sit in ../shared beside the checkout",
        dev.display()
    );
    let dir = TempDir::new();
    let predictions = dir.path().join("predictions.jsonl");
    let run = bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "mmtom".as_ref(),
        dev.as_os_str(),
        "--predictions".as_ref(),
        predictions.as_os_str(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let now = std::fs::read_to_string(&predictions).expect("predictions");
    let recorded = std::fs::read_to_string(root().join("tests/data/mmtom-dev-predictions.jsonl"))
        .expect("recorded predictions");
    for (i, (a, b)) in now.lines().zip(recorded.lines()).enumerate() {
        assert_eq!(a, b, "question {} changed", i + 1);
    }
    assert_eq!(now.lines().count(), recorded.lines().count());
}
