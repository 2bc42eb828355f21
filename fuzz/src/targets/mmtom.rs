//! MMToM-QA text questions (JSON Lines): every line read into an episode.

use bip_episodes::import::mmtom::read_jsonl;

use super::{record_outcomes, Scratch, Target};

/// The MMToM-QA target.
pub(super) const TARGET: Target = Target {
    name: "mmtom",
    about: "MMToM-QA text questions (JSONL records): scene, narrative and question read",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b" the ",
        b" a ",
        b" two ",
        b" 100000000 ",
        b" each ",
        b" respectively",
        b" except ",
        b" the others",
        b" cabinet ",
        b" cabinets ",
        b" kitchen ",
        b" fridge ",
        b" wine glasses ",
        b" is inside ",
        b" on the ",
        b" opens ",
        b" walks to ",
        b" the second ",
        b" Question: ",
        b" (a) ",
        b" (b) ",
        b". ",
        b", ",
        b"\\n",
        b"\"answer\"",
        b"\"question_type\"",
    ],
    hot: 1 << 16,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    record_outcomes(read_jsonl(text), scratch, |r| {
        format!("read {} actions", r.episode.actions().len().min(3))
    })
}

/// The sample records and questions written for the tests, one per input.
fn seeds() -> Vec<Vec<u8>> {
    let files = [
        include_str!("../../../tests/data/mmtom-sample.jsonl"),
        include_str!("../../../tests/data/mmtom-unseen/whole-a.jsonl"),
        include_str!("../../../tests/data/mmtom-unseen/whole-b.jsonl"),
    ];
    files
        .iter()
        .flat_map(|f| f.lines().filter(|l| l.starts_with('{')).take(8))
        .map(|l| l.as_bytes().to_vec())
        .collect()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let sample = include_str!("../../../tests/data/mmtom-sample.jsonl");
    let first = sample.lines().next().unwrap_or_default();
    let glasses = first.replacen("a desk.", "a desk with 100000000 wine glasses on it.", 1);
    let long = first.replacen(
        "a desk.",
        &format!("a desk with {} on it.", "x".repeat(20_000)),
        1,
    );
    vec![
        ("wine-glasses-1e8.jsonl", glasses.into_bytes()),
        ("unknown-word-20kb.jsonl", long.into_bytes()),
        ("not-json.jsonl", b"{\"question\": \"What's".to_vec()),
    ]
}
