//! VirtualHome scene graphs with a program: read, imported into an episode (asking a goal
//! and a belief question), and exported back.

use bip_episodes::import::virtualhome::{export, import, read_graph, ImportOptions};
use bip_episodes::Episode;

use super::{signature, Scratch, Target};

/// Between the graph and the program in one input.
const SEPARATOR: &str = "\n----script----\n";

/// The VirtualHome target.
pub(super) const TARGET: Target = Target {
    name: "virtualhome",
    about: "VirtualHome graph + program (graph JSON, a `----script----` line, the program): imported and exported",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"\"Rooms\"",
        b"\"CAN_OPEN\"",
        b"\"CONTAINERS\"",
        b"\"SURFACES\"",
        b"\"GRABBABLE\"",
        b"\"INSIDE\"",
        b"\"ON\"",
        b"\"BETWEEN\"",
        b"\"CLOSED\"",
        b"\"OPEN\"",
        b"\"bounding_box\"",
        b"\"center\"",
        b"\"size\"",
        b"<char0> [Walk] <kitchen> (1)\n",
        b"[Open] <fridge> (2)\n",
        b"[Grab] <apple> (3)\n",
        b"[PutBack] <apple> (3) <kitchen_table> (4)\n",
        b"[Find]",
        b"(18446744073709551615)",
        b"-1",
        b"1e308",
    ],
    hot: 1 << 16,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    let (graph, script) = match text.split_once(SEPARATOR) {
        Some((graph, script)) => (graph, Some(script)),
        None => (text, None),
    };
    let graph = match read_graph(graph) {
        Ok(graph) => graph,
        Err(e) => return signature(&e, scratch),
    };
    let options = ImportOptions {
        ask_goal: true,
        ask_beliefs: vec![("apple".into(), "fridge".into())],
        ..ImportOptions::default()
    };
    let imported = match import(&graph, script, &options) {
        Ok(imported) => imported,
        Err(e) => match import(&graph, script, &ImportOptions::default()) {
            Ok(imported) => imported,
            Err(_) => return signature(&e, scratch),
        },
    };
    let exported = export(&imported.episode);
    match import(
        &exported.graph,
        Some(&exported.script),
        &ImportOptions::default(),
    ) {
        Ok(again) => format!(
            "imported {} notes, re-imported {} actions",
            imported.report.notes.len().min(5),
            again.episode.actions().len().min(5)
        ),
        Err(e) => format!("exported graph not importable: {}", signature(&e, scratch)),
    }
}

/// The small test scenes, and the shipped examples exported.
fn seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = [
        include_str!("../../../tests/data/virtualhome/dangling_edge.json"),
        include_str!("../../../tests/data/virtualhome/inside_cycle.json"),
        include_str!("../../../tests/data/virtualhome/no_class.json"),
    ]
    .map(|s| s.as_bytes().to_vec())
    .to_vec();
    let examples = [
        include_str!("../../../episodes/examples/1.2-false-belief-short.json"),
        include_str!("../../../episodes/examples/2.3-goal-updated-belief.json"),
        include_str!("../../../episodes/examples/kitchen-search.json"),
    ];
    for text in examples {
        if let Ok(episode) = Episode::from_json(text, "seed") {
            let exported = export(&episode);
            let graph = serde_json::to_string_pretty(&exported.graph).unwrap_or_default();
            seeds.push(format!("{graph}{SEPARATOR}{}", exported.script).into_bytes());
        }
    }
    seeds
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let rooms = |n: usize| {
        let nodes: Vec<String> = (1..=n)
            .map(|i| format!(r#"{{"id": {i}, "class_name": "room", "category": "Rooms"}}"#))
            .collect();
        format!(r#"{{"nodes": [{}], "edges": []}}"#, nodes.join(", "))
    };
    let huge_id = r#"{"nodes": [{"id": 18446744073709551615, "class_name": "kitchen", "category": "Rooms"}], "edges": []}"#;
    vec![
        ("rooms-300.json", rooms(300).into_bytes()),
        ("node-id-max.json", huge_id.as_bytes().to_vec()),
        ("script-only-separator.txt", SEPARATOR.as_bytes().to_vec()),
    ]
}
