//! Stories on the command line: `bip import hitom`, `bip eval` (Hi-ToM text and story
//! files), `bip generate --kind nested`, `bip calibrate` and `bip infer` on stories.

use bip::episodes::test_support::{HITOM_RECORDS, STORY};

use crate::util::{bip, json, TempDir};

#[test]
fn import_writes_one_story_per_record_and_a_report_of_the_notes() {
    let dir = TempDir::new();
    let input = dir.write("records.jsonl", HITOM_RECORDS);
    let out = dir.path().join("stories");
    let report = dir.path().join("notes.txt");
    let run = bip([
        "import".as_ref(),
        "hitom".as_ref(),
        input.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--report".as_ref(),
        report.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("read 4 of 4 records, 0 failed"), "{stderr}");
    let story = std::fs::read_to_string(out.join("hitom-1-1.json")).expect("a story file");
    assert!(
        story.contains("\"agents\"") && story.contains("\"claim\""),
        "{story}"
    );
    let notes = std::fs::read_to_string(&report).expect("report");
    assert!(notes.contains("Pavel saw a cat."), "{notes}");
    let infer = json(&bip([
        "infer".as_ref(),
        out.join("hitom-1-1.json").as_os_str(),
        "--json".as_ref(),
    ]));
    let q = &infer["episodes"][0]["questions"][0];
    assert_eq!(q["answer"], "a");
    assert_eq!(q["correct"], true);
    assert_eq!(infer["episodes"][0]["policy"], "nested");
}

#[test]
fn an_unreadable_record_is_named_and_fails_the_import_unless_told_to_keep_going() {
    let dir = TempDir::new();
    let broken = HITOM_RECORDS.replacen(
        "moved the plum to the blue_basket",
        "moved the plum to the fridge",
        1,
    );
    let input = dir.write("records.jsonl", &broken);
    let out = dir.path().join("stories.jsonl");
    let args = |more: &[&str]| {
        let mut a = vec![
            "import",
            "hitom",
            input.to_str().unwrap_or_default(),
            "--out",
            out.to_str().unwrap_or_default(),
        ];
        a.extend_from_slice(more);
        bip(a)
    };
    let run = args(&[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("records.jsonl:1: story: cannot read \"the fridge\""),
        "{stderr}"
    );
    assert!(!out.exists());
    let run = args(&["--keep-going"]);
    assert!(run.status.success());
    let written = std::fs::read_to_string(&out).expect("written");
    assert_eq!(written.lines().count(), 3);
    let eval = json(&bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "hitom".as_ref(),
        input.as_os_str(),
        "--json".as_ref(),
    ]));
    assert_eq!(eval["unreadable"], 1);
    assert_eq!(eval["n"], 3);
}

#[test]
fn eval_reads_hitom_text_and_reports_every_facet() {
    let dir = TempDir::new();
    let input = dir.write("records.jsonl", HITOM_RECORDS);
    let eval = json(&bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "hitom".as_ref(),
        input.as_os_str(),
        "--json".as_ref(),
    ]));
    assert_eq!(
        (eval["n"].as_u64(), eval["correct"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(eval["unreadable"], 0);
    assert_eq!(eval["by"]["order"]["2"]["n"], 2);
    assert_eq!(eval["by"]["deception"]["yes"]["n"], 4);
    assert_eq!(eval["by"]["length"]["2"]["accuracy"], 1.0);
    assert!(eval["by"]["prompting"]["VP"]["ci95"].is_array());
    let table = bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "hitom".as_ref(),
        input.as_os_str(),
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("order 2") && text.contains("unreadable questions: 0"),
        "{text}"
    );
}

#[test]
fn generated_stories_are_reproducible_and_read_alike_as_episodes_and_as_text() {
    let dir = TempDir::new();
    let run = |seed: &str, name: &str| {
        let out = dir.path().join(format!("{name}.jsonl"));
        let text = dir.path().join(format!("{name}-text.jsonl"));
        let r = bip([
            "generate".as_ref(),
            "--kind".as_ref(),
            "nested".as_ref(),
            "--n".as_ref(),
            "25".as_ref(),
            "--seed".as_ref(),
            seed.as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
            "--text".as_ref(),
            text.as_os_str(),
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        (std::fs::read(&out).expect("out"), out, text)
    };
    let (a, episodes, text) = run("3", "a");
    let (b, _, _) = run("3", "b");
    let (c, _, _) = run("4", "c");
    assert_eq!(a, b);
    assert_ne!(a, c);
    let on_episodes = json(&bip([
        "eval".as_ref(),
        episodes.as_os_str(),
        "--json".as_ref(),
    ]));
    let on_text = json(&bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "hitom".as_ref(),
        text.as_os_str(),
        "--json".as_ref(),
    ]));
    assert_eq!(on_episodes["n"], 125);
    assert_eq!(on_episodes["correct"], on_text["correct"]);
    assert_eq!(on_text["unreadable"], 0);
    assert_eq!(on_episodes["by"]["order"]["0"]["accuracy"], 1.0);
}

#[test]
fn calibrate_fits_the_trust_that_eval_and_infer_then_read() {
    let dir = TempDir::new();
    let stories = dir.path().join("stories.jsonl");
    let cal = dir.path().join("trust.json");
    let r = bip([
        "generate".as_ref(),
        "--kind".as_ref(),
        "nested".as_ref(),
        "--n".as_ref(),
        "150".as_ref(),
        "--out".as_ref(),
        stories.as_os_str(),
    ]);
    assert!(r.status.success());
    let r = bip([
        "calibrate".as_ref(),
        stories.as_os_str(),
        "-o".as_ref(),
        cal.as_os_str(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&cal).expect("cal")).expect("JSON");
    assert_eq!(file["policy"], "nested");
    let trust = file["trust"].as_f64().expect("a trust");
    assert!((0.5..1.0).contains(&trust), "{trust}");
    let eval = json(&bip([
        "eval".as_ref(),
        stories.as_os_str(),
        "--calibration".as_ref(),
        cal.as_os_str(),
        "--json".as_ref(),
    ]));
    assert_eq!(eval["trust"].as_f64(), Some(trust));
    let story = dir.write("story.json", STORY);
    let bad = bip([
        "infer".as_ref(),
        story.as_os_str(),
        "--trust".as_ref(),
        "1.5".as_ref(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(
        said.contains("'--trust <TRUST>'") && said.contains("must lie in [0, 1]"),
        "{said}"
    );
    let episodes = bip([
        "eval".as_ref(),
        bip::episodes::test_support::example_paths()[0].as_os_str(),
        stories.as_os_str(),
    ]);
    assert_eq!(episodes.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&episodes.stderr).contains("mix single-agent episodes and stories")
    );
}
