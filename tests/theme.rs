//! Thematic variants end to end: `bip theme apply` and its inverse, and `bip variance`
//! with shards and merge.

use serde_json::Value;

use bip_episodes::test_support::MMTOM_RECORDS as RECORDS;

use crate::util::{bip, examples, json, TempDir};

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("written")).expect("JSON")
}

#[test]
fn theme_then_inverse_gives_back_every_example_episode() {
    let dir = TempDir::new();
    for example in examples() {
        let themed = dir.path().join("themed.json");
        let back = dir.path().join("back.json");
        let out = bip(["theme", "apply", "--theme", "castle"]
            .map(Into::into)
            .into_iter()
            .chain([
                example.clone().into_os_string(),
                themed.clone().into_os_string(),
            ]));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = bip(["theme", "apply", "--inverse", "--theme", "castle"]
            .map(Into::into)
            .into_iter()
            .chain([
                themed.clone().into_os_string(),
                back.clone().into_os_string(),
            ]));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let original: Value = read_json(&example);
        assert_eq!(read_json(&back), original, "{}", example.display());
        assert_ne!(read_json(&themed), original);
    }
}

#[test]
fn mmtom_records_round_trip_and_the_theme_is_detected() {
    let dir = TempDir::new();
    let input = dir.write("q.jsonl", RECORDS);
    let themed = dir.path().join("space.jsonl");
    let back = dir.path().join("back.jsonl");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = bip(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "theme".as_ref(),
        "apply".as_ref(),
        "--format".as_ref(),
        "mmtom".as_ref(),
        "--theme".as_ref(),
        "space".as_ref(),
        input.as_os_str(),
        themed.as_os_str(),
    ]);
    let text = std::fs::read_to_string(&themed).expect("written");
    assert!(
        text.contains("replicator station") && !text.contains("kitchen"),
        "{text}"
    );
    run(&[
        "theme".as_ref(),
        "apply".as_ref(),
        "--format".as_ref(),
        "mmtom".as_ref(),
        "--inverse".as_ref(),
        "--theme".as_ref(),
        "auto".as_ref(),
        themed.as_os_str(),
        back.as_os_str(),
    ]);
    let lines = |t: &str| {
        t.lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lines(&std::fs::read_to_string(&back).expect("written")),
        lines(RECORDS)
    );
}

#[test]
fn variance_reads_every_theme_and_shards_merge_to_the_whole_run() {
    let dir = TempDir::new();
    let input = dir.write("q.jsonl", RECORDS);
    let input = input.to_string_lossy().into_owned();
    let whole = json(&bip(["variance", &input, "--format", "mmtom", "--json"]));
    let variants = whole["variants"].as_array().expect("variants");
    assert_eq!(variants.len(), 6);
    assert_eq!(variants[0]["name"], "apartment");
    for v in variants {
        assert_eq!(
            (v["n"].as_u64(), v["unreadable"].as_u64()),
            (Some(2), Some(0)),
            "{v}"
        );
    }
    assert_eq!(variants[1]["versus_baseline"]["paired"], 2);
    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let file = dir.path().join(format!("shard{}.jsonl", &k[..1]));
        let file = file.to_string_lossy().into_owned();
        let out = bip([
            "variance",
            &input,
            "--format",
            "mmtom",
            "--shard",
            k,
            "--predictions",
            &file,
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        shards.push(file);
    }
    let merged = json(&bip([
        "variance", "merge", &shards[0], &shards[1], "--json",
    ]));
    assert_eq!(merged, whole);
    // The same shard twice is refused.
    let out = bip(["variance", "merge", &shards[0], &shards[0]]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already"));
}

#[test]
fn variance_plots_and_needs_predictions_to_shard() {
    let dir = TempDir::new();
    let input = dir.write("q.jsonl", RECORDS).to_string_lossy().into_owned();
    let plot = dir.path().join("v.svg").to_string_lossy().into_owned();
    let out = bip([
        "variance", &input, "--format", "mmtom", "--themes", "egypt", "--plot", &plot,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&plot).expect("written");
    assert!(svg.starts_with("<svg") && svg.contains(">egypt<") && svg.contains(">apartment<"));
    let out = bip(["variance", &input, "--format", "mmtom", "--shard", "1/2"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn user_theme_files_are_checked_and_named_in_errors() {
    let dir = TempDir::new();
    let good = dir.write(
        "den.json",
        r#"{"format": "bip-theme/1", "id": "den", "name": "Den", "world": "den", "furniture": {"fridge": "ice pit"}}"#,
    );
    let out = bip([
        "theme".as_ref(),
        "show".as_ref(),
        "den".as_ref(),
        "--theme-file".as_ref(),
        good.as_os_str(),
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("ice pit"));
    let bad = dir.write(
        "bad.json",
        r#"{"format": "bip-theme/1", "id": "bad", "name": "Bad", "world": "den", "furniture": {"fridge": "chest", "wardrobe": "chest"}}"#,
    );
    let out = bip([
        "theme".as_ref(),
        "list".as_ref(),
        "--theme-file".as_ref(),
        bad.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("one-to-one"),
        "{err}"
    );
}
