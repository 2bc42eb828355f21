//! `bip variance merge` inputs: predictions files of shards (files separated by a
//! `====` line), merged into one report.

use bip_lab::variance::merge_shards;

use super::{signature, Scratch, Target};

/// Between two files in one input.
const SEPARATOR: &str = "\n====\n";

/// The variance-merge target.
pub(super) const TARGET: Target = Target {
    name: "variance",
    about:
        "bip variance merge inputs: shards' predictions files (separated by a ==== line), merged",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"\"run\"",
        b"\"format\"",
        b"\"bip-variance/1\"",
        b"\"shard\"",
        b"\"plan\"",
        b"\"themes\"",
        b"\"theme\"",
        b"\"apartment\"",
        b"\"egypt\"",
        b"\"posterior\"",
        b"\"margin\"",
        b"\"correct\"",
        b"\"unknowable\"",
        b"\"unreadable\"",
        b"\"1/2\"",
        b"\"2/2\"",
        b"\"0/0\"",
        b"-0.5",
        b"1e308",
        b"NaN",
        b"null",
        b"true",
        b"\n====\n",
    ],
    hot: 1 << 16,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    let files: Vec<(String, &str)> = text
        .split(SEPARATOR)
        .enumerate()
        .map(|(i, t)| (format!("f{i}"), t))
        .collect();
    match merge_shards(files.iter().map(|(n, t)| (n.as_str(), *t)), 0) {
        Ok(report) => {
            let json = serde_json::to_string(&report).map_or(0, |j| j.len());
            format!("{} themes, {json} bytes", report.variants.len())
        }
        Err(e) => signature(&e, scratch),
    }
}

/// One scored record.
fn item(theme: &str, episode: &str, answer: &str, expected: &str) -> String {
    let (p, correct) = if answer == "a" {
        ("[0.9, 0.1]", expected == "a")
    } else {
        ("[0.2, 0.8]", expected == "b")
    };
    format!(
        r#"{{"theme": "{theme}", "item": "{episode}/q1", "episode": "{episode}", "type": "1.1", "expected": "{expected}", "answer": "{answer}", "posterior": {p}, "margin": 0.7, "correct": {correct}}}"#
    )
}

/// A shard file of a run over apartment and egypt.
fn shard(k: usize, n: usize, items: &[(&str, &str, &str)]) -> String {
    let mut lines = vec![format!(
        r#"{{"run": {{"format": "bip-variance/1", "shard": "{k}/{n}", "plan": {{"themes": ["apartment", "egypt"]}}}}}}"#
    )];
    for theme in ["apartment", "egypt"] {
        for (episode, answer, expected) in items {
            lines.push(item(theme, episode, answer, expected));
        }
    }
    lines.push(
        r#"{"theme": "egypt", "line": 9, "unreadable": "field \"question\": missing"}"#.into(),
    );
    lines.join("\n")
}

fn seeds() -> Vec<Vec<u8>> {
    let one = shard(1, 2, &[("e1", "a", "a"), ("e3", "b", "a")]);
    let two = shard(2, 2, &[("e2", "b", "b"), ("e4", "a", "unknowable")]);
    vec![
        format!("{one}{SEPARATOR}{two}").into_bytes(),
        shard(1, 1, &[("e1", "a", "a"), ("e2", "b", "b")]).into_bytes(),
    ]
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let one = shard(1, 2, &[("e1", "a", "a")]);
    vec![
        ("missing-shard.jsonl", one.clone().into_bytes()),
        (
            "negative-posterior.jsonl",
            one.replace("[0.9, 0.1]", "[1.5, -0.5]").into_bytes(),
        ),
        (
            "unknown-theme.jsonl",
            shard(1, 1, &[("e1", "a", "a")])
                .replace("\"theme\": \"egypt\"", "\"theme\": \"mars\"")
                .into_bytes(),
        ),
        (
            "no-header.jsonl",
            item("apartment", "e1", "a", "a").into_bytes(),
        ),
    ]
}
