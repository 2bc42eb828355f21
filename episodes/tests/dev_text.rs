//! The MMToM reader on the development half of MMToM-QA (`../shared/data/mmtom-qa`), as
//! written and perturbed: every question reads, and renaming the agent, swapping verbs
//! for synonyms the reader was not written around, and reordering clauses do not change
//! the reading.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bip_episodes::import::mmtom::read_text;
use bip_episodes::json::{ActionFile, EpisodeFile};

fn dev_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/mmtom-qa/dev.jsonl")
}

/// The question texts of the development half.
fn dev_texts() -> Vec<String> {
    let path = dev_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; the MMToM-QA development half must sit in ../shared beside \
             the checkout",
            path.display()
        )
    });
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON record");
            v["question"].as_str().expect("a question").to_string()
        })
        .collect()
}

/// What a reading says, free of ids that depend on wording order: the furniture, the
/// classes each piece starts with (in every reading), the actions (a walk to an object as
/// a walk to its place) and the options.
fn summary(file: &EpisodeFile) -> String {
    let class_of: BTreeMap<&str, &str> = file
        .world
        .objects
        .iter()
        .map(|o| (o.id.as_str(), o.class.as_deref().unwrap_or("")))
        .collect();
    let at_of: BTreeMap<&str, &str> = file
        .world
        .objects
        .iter()
        .map(|o| (o.id.as_str(), o.at.as_str()))
        .collect();
    let placement = |moved: &BTreeMap<String, String>| {
        let mut map: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for o in &file.world.objects {
            let at = moved.get(&o.id).unwrap_or(&o.at);
            map.entry(at.as_str())
                .or_default()
                .push(class_of[o.id.as_str()]);
        }
        map.values_mut().for_each(|v| v.sort_unstable());
        format!("{map:?}")
    };
    let mut worlds = vec![placement(&BTreeMap::new())];
    worlds.extend(
        file.world
            .alternatives
            .iter()
            .map(|a| placement(&a.objects)),
    );
    worlds.sort();
    let mut furniture: Vec<&str> = file.world.furniture.iter().map(|f| f.id.as_str()).collect();
    furniture.sort_unstable();
    let actions: Vec<String> = file
        .actions
        .iter()
        .map(|a| match a {
            ActionFile::WalkTo(id) => {
                format!("walk {}", at_of.get(id.as_str()).unwrap_or(&id.as_str()))
            }
            ActionFile::Open(id) => format!("open {id}"),
            ActionFile::Close(id) => format!("close {id}"),
            ActionFile::Grab(id) => format!("grab {}", class_of.get(id.as_str()).unwrap_or(&"?")),
            ActionFile::Put { object, onto } => format!("put {object} {onto}"),
        })
        .collect();
    let options: Vec<String> = file.questions[0]
        .options
        .iter()
        .map(|o| {
            format!(
                "{:?} {:?} given {:?}",
                o.goal,
                o.belief
                    .as_ref()
                    .map(|b| (&b.object, &b.container, b.inside)),
                o.given.as_ref().map(|g| (
                    &g.goal,
                    g.belief
                        .as_ref()
                        .map(|b| (&b.object, &b.container, b.inside))
                ))
            )
        })
        .collect();
    format!("furniture {furniture:?}\nworlds {worlds:?}\nactions {actions:?}\noptions {options:?}")
}

fn read(text: &str) -> Result<String, String> {
    read_text(text, "dev", None, None)
        .map(|f| summary(&f))
        .map_err(|e| e.to_string())
}

#[test]
fn every_development_question_reads() {
    let failures: Vec<String> = dev_texts()
        .iter()
        .enumerate()
        .filter_map(|(i, t)| read(t).err().map(|e| format!("line {}: {e}", i + 1)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} unreadable:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Paraphrases of development questions by other writers, `{"line", "question"}` a line.
fn paraphrases(file: &str) -> Vec<(usize, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/mmtom-unseen")
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON object");
            let line = v["line"].as_u64().expect("a line number") as usize;
            (
                line,
                v["question"].as_str().expect("a question").to_string(),
            )
        })
        .collect()
}

/// Every paraphrase in `file` reads as the development question it rewrites.
fn paraphrases_read_alike(file: &str) {
    let dev = dev_texts();
    let mut failures = Vec::new();
    let cases = paraphrases(file);
    for (line, text) in &cases {
        let original = read(&dev[line - 1]).expect("the development question reads");
        match read(text) {
            Ok(reading) if reading == original => {}
            Ok(reading) => failures.push(format!(
                "line {line}: read differently:\n{reading}\ninstead of\n{original}"
            )),
            Err(e) => failures.push(format!("line {line}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} paraphrases read differently:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn paraphrases_by_one_writer_read_as_the_originals() {
    paraphrases_read_alike("dev-paraphrase-a.jsonl");
}

#[test]
fn paraphrases_by_another_writer_read_as_the_originals() {
    paraphrases_read_alike("dev-paraphrase-b.jsonl");
}

#[test]
fn paraphrases_in_the_benchmark_style_read_as_the_originals() {
    paraphrases_read_alike("dev-paraphrase-c.jsonl");
}

/// The development text with the agent renamed everywhere.
fn renamed(text: &str) -> String {
    let name = text
        .split("Actions taken by ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_default()
        .trim()
        .to_string();
    text.replace(&name, "Quinn")
}

/// Verbs swapped for ones the reader has no entry for, where the sentence still says what
/// they do through its nouns and prepositions.
fn reworded(text: &str) -> String {
    const SWAPS: &[(&str, &str)] = &[
        (" contains ", " shelters "),
        (" houses ", " accommodates "),
        (" holds ", " cradles "),
        (" stores ", " keeps "),
        (" is equipped with ", " boasts "),
        (" features ", " showcases "),
        (" walks towards ", " glides towards "),
        (" walks to ", " glides to "),
        (" proceeds to the ", " drifts to the "),
        (" heads to ", " hurries to "),
        (" heads towards ", " hurries towards "),
        (" moves to ", " wanders over to "),
        (" moves towards ", " wanders towards "),
    ];
    SWAPS
        .iter()
        .fold(text.to_string(), |t, (from, to)| t.replace(from, to))
}

/// Scene sentences "A, while B." turned into "B, while A." where neither clause refers
/// back to the other.
fn reordered(text: &str) -> String {
    let (scene, rest) = text.split_at(text.find("Actions taken by").unwrap_or(text.len()));
    let swapped: Vec<String> = scene
        .split(". ")
        .map(|sentence| match sentence.split_once(", while ") {
            Some((a, b))
                if ![a, b].iter().any(|c| {
                    let c = c.to_lowercase();
                    ["it ", " it", "another", "latter", "former", "other", "one"]
                        .iter()
                        .any(|w| c.contains(w))
                }) =>
            {
                let b = b.trim_end_matches('.');
                let mut first = b.chars();
                let b = first
                    .next()
                    .map(|c| c.to_uppercase().collect::<String>() + first.as_str())
                    .unwrap_or_default();
                let a = a[..1].to_lowercase() + &a[1..];
                format!("{b}, while {a}")
            }
            _ => sentence.to_string(),
        })
        .collect();
    swapped.join(". ") + rest
}

#[test]
fn renaming_rewording_and_reordering_do_not_change_the_reading() {
    let mut failures = Vec::new();
    let mut changed = 0;
    for (i, text) in dev_texts().iter().enumerate() {
        let original = read(text).expect("the development question reads");
        for (how, perturbed) in [
            ("renamed", renamed(text)),
            ("reworded", reworded(text)),
            ("reordered", reordered(text)),
        ] {
            if perturbed == *text {
                continue;
            }
            changed += 1;
            match read(&perturbed) {
                Ok(reading) if reading == original => {}
                Ok(reading) => failures.push(format!(
                    "line {} {how}: {reading}\ninstead of\n{original}",
                    i + 1
                )),
                Err(e) => failures.push(format!("line {} {how}: {e}", i + 1)),
            }
        }
    }
    assert!(changed > 400, "only {changed} texts were perturbed");
    assert!(
        failures.is_empty(),
        "{} of {changed} perturbed texts read differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
