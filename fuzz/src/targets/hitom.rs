//! Hi-ToM records (JSON Lines): every line read into a story, and each story's questions
//! answered by nested-belief inference.

use super::{answered, record_outcomes, Scratch, Target};
use bip_episodes::import::hitom::read_jsonl;

/// The Hi-ToM target.
pub(super) const TARGET: Target = Target {
    name: "hitom",
    about: "Hi-ToM records (JSONL): story, question and choices read, then inferred",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b" entered the ",
        b" exited the ",
        b" moved the ",
        b" to the ",
        b" is in the ",
        b" publicly claimed that ",
        b" privately told ",
        b" that the ",
        b" made no movements and stayed in the ",
        b" for 1 minute.",
        b" dislikes the ",
        b"Where does ",
        b" think ",
        b" thinks ",
        b" really is?",
        b", and ",
        b" and ",
        b"\\n",
        b"\\n100000000 ",
        b"red_crate",
        b"A. ",
        b", B. ",
        b"\"choices\"",
        b"\"answer\"",
    ],
    hot: 1 << 16,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    // Each story's questions answered by nested-belief inference.
    record_outcomes(read_jsonl(text), scratch, |r| answered(&r.story))
}

/// The records written for the tests, one per input.
fn seeds() -> Vec<Vec<u8>> {
    include_str!("../../../tests/data/hitom-sample.jsonl")
        .lines()
        .map(|l| l.as_bytes().to_vec())
        .collect()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let sample = include_str!("../../../tests/data/hitom-sample.jsonl");
    let first = sample.lines().next().unwrap_or_default();
    let many = first.replacen("1 Mara, Tobias", "100000000 Mara, Tobias", 1);
    let deep = first.replacen(
        "Where does Mara think Tobias thinks",
        &format!(
            "Where does Mara think {}",
            "Tobias thinks Mara thinks ".repeat(2_000)
        ),
        1,
    );
    vec![
        ("line-number-1e8.jsonl", many.into_bytes()),
        ("question-order-4000.jsonl", deep.into_bytes()),
        ("not-json.jsonl", b"{\"story\": \"1 Mara".to_vec()),
    ]
}
