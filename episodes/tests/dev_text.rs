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
