//! Fixtures shared by the unit tests of the workspace's crates and by the integration
//! tests, so that none keeps a copy: the shipped example episodes and MMToM-QA-style
//! records. Built for this crate's own tests, and for other crates' tests with the
//! `test-support` feature (`[dev-dependencies] bip-episodes = { ..., features =
//! ["test-support"] }`); not part of the library otherwise.

use std::path::PathBuf;

use crate::episode::Episode;

/// Two MMToM-QA-style records written for the tests (not from the benchmark), one JSON
/// object a line: a 1.3 belief question about Ann and a 2.1 goal question about Bo.
pub const MMTOM_RECORDS: &str = r#"{"question": "What's inside the apartment: The apartment consists of a kitchen and a living room. The kitchen is equipped with a fridge, a microwave and two cabinets. The fridge contains an apple and a bottle of wine. The second cabinet holds a cupcake. The living room features a sofa with a remote control on it. \nActions taken by Ann: Ann is in the living room. She walks to the kitchen and is about to open the microwave. \nQuestion: If Ann has been trying to get a cupcake, which one of the following statements is more likely to be true? (a) Ann thinks that the cupcake is inside the microwave. (b) Ann thinks that the cupcake is not inside the microwave. Please respond with either a or b.", "answer": "a", "question_type": 1.3, "episode": 3}
{"question": "What's inside the apartment: The apartment consists of a bedroom and a kitchen. In the bedroom, there is a desk with a book and a wine glass on it. The kitchen is equipped with a fridge and a stove. The fridge holds two plates, and the stove contains a salmon. \nActions taken by Bo: Bo is in the bedroom. He heads to the kitchen and approaches the stove. \nQuestion: Which one of the following statements is more likely to be true? (a) Bo has been trying to get a book. (b) Bo has been trying to get a salmon. Please respond with either a or b.", "answer": "b", "question_type": 2.1, "episode": 4}
"#;

/// The first of [`MMTOM_RECORDS`]: Ann, about to open the microwave, and the cupcake in
/// the second cabinet (type 1.3, answer a).
pub fn mmtom_record() -> &'static str {
    MMTOM_RECORDS.lines().next().unwrap_or_default()
}

/// The shipped example episodes (`episodes/examples/*.json`), sorted by file name.
///
/// # Panics
/// If the folder cannot be listed.
pub fn example_paths() -> Vec<PathBuf> {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
}

/// The shipped example episodes, read, in the order of [`example_paths`]; an example
/// without an id takes its file stem.
///
/// # Panics
/// If one cannot be read or is not valid.
pub fn examples() -> Vec<Episode> {
    example_paths()
        .iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            Episode::from_json(&text, &stem).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// Four Hi-ToM-style records written for the tests (not from the benchmark), one JSON
/// object a line: a two-chapter story with a public and a private claim, told once in
/// Hi-ToM's words (with a VP instruction line, distractors and a closing `***`) and once
/// in other words; questions of orders 2, 1, 2 (reworded) and 0, answered by the rules
/// (red_crate, green_drawer, red_crate, red_bucket).
pub const HITOM_RECORDS: &str = include_str!("../../tests/data/hitom-sample.jsonl");

/// A small story written for the tests: Ann and Bo enter the patio, where the pear is in
/// the red box; Ann leaves; Bo moves the pear to the blue jar. One question: where does
/// Ann think the pear is (a: red box, expected; b: blue jar).
pub const STORY: &str = r#"{
  "format": "bip-episode/1",
  "id": "pear",
  "world": {"rooms": ["patio", "lobby"],
    "furniture": [{"id": "red_box", "room": "patio", "kind": "container"},
                  {"id": "blue_jar", "room": "patio", "kind": "container"}],
    "objects": [{"id": "pear", "at": "red_box"}]},
  "agents": [{"name": "Ann"}, {"name": "Bo"}],
  "events": [{"enter": {"agent": "Ann", "room": "patio"}},
             {"enter": {"agent": "Bo", "room": "patio"}},
             {"exit": {"agent": "Ann", "room": "patio"}},
             {"move": {"agent": "Bo", "object": "pear", "to": "blue_jar"}}],
  "questions": [{"id": "ann", "type": "order 1", "options": [
      {"belief": {"of": ["Ann"], "object": "pear", "container": "red_box"}},
      {"belief": {"of": ["Ann"], "object": "pear", "container": "blue_jar"}}],
    "expected": "a"}]
}"#;

/// The parts of [`STORY`], for tests to change and check again.
///
/// # Panics
/// If [`STORY`] does not read (a bug in the fixture).
pub fn story_parts() -> crate::story::StoryParts {
    crate::story::Story::from_json(STORY, "pear")
        .expect("the story fixture reads")
        .into_parts()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::mmtom::read_jsonl;

    #[test]
    fn the_fixtures_read() {
        assert!(!examples().is_empty());
        let records: Vec<_> = read_jsonl(MMTOM_RECORDS).collect();
        assert_eq!(records.len(), 2);
        assert!(records.iter().all(|(_, r)| r.is_ok()));
        assert_eq!(read_jsonl(mmtom_record()).count(), 1);
    }
}
