//! `bip infer` driven as a user would.

use crate::util::{bip, examples, json, TempDir};

const SMALL: &str = r#"{
  "format": "bip-episode/1",
  "world": {
    "rooms": ["kitchen", "living_room"],
    "furniture": [
      {"id": "fridge", "room": "kitchen", "kind": "container"},
      {"id": "microwave", "room": "kitchen", "kind": "container"},
      {"id": "sofa", "room": "living_room", "kind": "surface"}
    ],
    "objects": [{"id": "cupcake_1", "at": "fridge"}, {"id": "remote_control_1", "at": "sofa"}]
  },
  "agent": {"name": "Mark", "start": "living_room"},
  "actions": [{"walk_to": "kitchen"}, {"walk_to": "microwave"}],
  "questions": [{"id": "q", "options": [
    {"belief": {"object": "cupcake", "container": "microwave", "inside": true}, "given": {"goal": "cupcake"}},
    {"belief": {"object": "cupcake", "container": "microwave", "inside": false}, "given": {"goal": "cupcake"}}
  ], "expected": "a"}]
}"#;

#[test]
fn shipped_examples_are_answered_as_expected() {
    let files = examples();
    assert!(files.len() >= 7, "one example per MMToM type at least");
    let report = json(&bip(std::iter::once("infer".into())
        .chain(files.iter().map(|p| p.clone().into_os_string()))
        .chain(["--json".into()])));
    let mut labels = std::collections::BTreeSet::new();
    for episode in report["episodes"].as_array().expect("episodes") {
        for q in episode["questions"].as_array().expect("questions") {
            labels.insert(q["type"].as_str().unwrap_or("-").to_string());
            assert_eq!(q["correct"], true, "{} {}: {q}", episode["id"], q["id"]);
        }
    }
    for t in ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "2.4"] {
        assert!(labels.contains(t), "no shipped example of type {t}");
    }
    let summary = &report["summary"];
    assert_eq!(summary["correct"], summary["with_expected"]);
}

#[test]
fn swapping_options_swaps_the_letter_not_the_probabilities() {
    let dir = TempDir::new();
    let mut value: serde_json::Value = serde_json::from_str(SMALL).expect("fixture");
    let original = dir.write("original.json", &value.to_string());
    let options = value["questions"][0]["options"]
        .as_array_mut()
        .expect("options");
    options.swap(0, 1);
    value["questions"][0]["expected"] = "b".into();
    let swapped = dir.write("swapped.json", &value.to_string());
    let a = json(&bip([
        "infer".as_ref(),
        original.as_os_str(),
        "--json".as_ref(),
    ]));
    let b = json(&bip([
        "infer".as_ref(),
        swapped.as_os_str(),
        "--json".as_ref(),
    ]));
    let qa = &a["episodes"][0]["questions"][0];
    let qb = &b["episodes"][0]["questions"][0];
    assert_eq!(qa["answer"], "a");
    assert_eq!(qb["answer"], "b");
    assert_eq!(qa["posterior"]["a"], qb["posterior"]["b"]);
    assert_eq!(qa["posterior"]["b"], qb["posterior"]["a"]);
    assert_eq!(qa["margin"], qb["margin"]);
}

fn assert_clean_failure(file_contents: &str, expected_fragments: &[&str]) {
    let dir = TempDir::new();
    let path = dir.write("broken.json", file_contents);
    let out = bip(["infer".as_ref(), path.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("broken.json"), "names the file: {stderr}");
    for fragment in expected_fragments {
        assert!(stderr.contains(fragment), "mentions {fragment:?}: {stderr}");
    }
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing half-printed");
}

#[test]
fn malformed_json_fails_naming_file_and_line() {
    assert_clean_failure(
        "{\"format\": \"bip-episode/1\",\n \"world\": [",
        &["line 2"],
    );
}

#[test]
fn unknown_id_fails_naming_field_and_value() {
    assert_clean_failure(
        &SMALL.replace(r#"{"walk_to": "microwave"}"#, r#"{"walk_to": "oven"}"#),
        &["actions[1].walk_to", "\"oven\""],
    );
}

#[test]
fn impossible_action_fails_naming_the_action() {
    assert_clean_failure(
        &SMALL.replace(r#"{"walk_to": "microwave"}"#, r#"{"open": "microwave"}"#),
        &["actions[1] (open microwave)", "not at microwave"],
    );
}

#[test]
fn missing_file_fails_naming_it() {
    let out = bip(["infer", "no/such/episode.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/episode.json"));
}

#[test]
fn invalid_beta_is_refused() {
    let dir = TempDir::new();
    let path = dir.write("e.json", SMALL);
    let out = bip([
        "infer".as_ref(),
        path.as_os_str(),
        "--beta".as_ref(),
        "-1".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("beta"));
}

#[test]
fn trace_reports_every_step() {
    let dir = TempDir::new();
    let path = dir.write("e.json", SMALL);
    let report = json(&bip([
        "infer".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
        "--trace".as_ref(),
    ]));
    let trace = report["episodes"][0]["trace"].as_array().expect("trace");
    assert_eq!(trace.len(), 3, "start plus two actions");
    assert_eq!(trace[2]["action"], "walk_to microwave");
    let total: f64 = trace[2]["goals"]
        .as_object()
        .expect("goals")
        .values()
        .filter_map(|p| p.as_f64())
        .sum();
    assert!((total - 1.0).abs() < 1e-9);
}

#[test]
fn output_file_holds_the_report_and_check_flags_wrong_answers() {
    let dir = TempDir::new();
    let wrong = dir.write(
        "e.json",
        &SMALL.replace(r#""expected": "a""#, r#""expected": "b""#),
    );
    let out_path = dir.path().join("report.json");
    let out = bip([
        "infer".as_ref(),
        wrong.as_os_str(),
        "--json".as_ref(),
        "--check".as_ref(),
        "-o".as_ref(),
        out_path.as_os_str(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "--check fails on a wrong answer"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_path).expect("written")).expect("JSON");
    assert_eq!(report["episodes"][0]["questions"][0]["correct"], false);
    let entries = std::fs::read_dir(dir.path()).expect("list").count();
    assert_eq!(entries, 2, "the episode and the report, no temporary left");
}

#[test]
fn human_output_shows_options_answer_and_margin() {
    let dir = TempDir::new();
    let path = dir.write("e.json", SMALL);
    let out = bip(["infer".as_ref(), path.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("→ a"), "{text}");
    assert!(
        text.contains("answer a, expected a: correct, margin"),
        "{text}"
    );
}

/// Runs `bip infer` on the small episode with standard output sent to `stdout`.
fn infer_into(stdout: impl Into<std::process::Stdio>) -> std::process::Output {
    let dir = TempDir::new();
    let path = dir.write("e.json", SMALL);
    std::process::Command::new(env!("CARGO_BIN_EXE_bip"))
        .args(["infer".as_ref(), path.as_os_str(), "--json".as_ref()])
        .stdout(stdout)
        .output()
        .expect("bip runs")
}

#[test]
fn a_standard_output_closed_by_its_reader_ends_quietly() {
    // The reading end is closed before bip starts, so its first write meets a broken
    // pipe, as under `bip infer E | head -c 10` once head has left.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = infer_into(writer);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "nothing on standard error: {stderr}");
}

#[test]
fn a_full_standard_output_is_an_error_naming_it() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("no /dev/full on this system: nothing to write to");
        return;
    };
    let out = infer_into(full);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("standard output"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Each flag that takes a name accepts exactly the names of the library's option, and a
/// wrong name is refused with that list.
#[test]
fn named_flags_take_exactly_the_librarys_names() {
    use bip::engine::{ActionLikelihood, Named, PromptStyle, TokenReduction};
    use bip::policy::PolicyKind;

    fn names<T: Named>() -> Vec<&'static str> {
        T::VALUES.iter().map(|(_, name, _)| *name).collect()
    }
    let example = examples()[0].clone().into_os_string();
    let infer = |flag: &str, value: &str| {
        bip([
            "infer".into(),
            example.clone(),
            flag.into(),
            value.into(),
            "--model".into(),
            "/no/such/model.gguf".into(),
        ])
    };
    let flags = [
        ("--policy", names::<PolicyKind>()),
        ("--lm-score", names::<TokenReduction>()),
        ("--lm-likelihood", names::<ActionLikelihood>()),
        ("--prompt-style", names::<PromptStyle>()),
    ];
    for (flag, names) in flags {
        for name in &names {
            let out = infer(flag, name);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("invalid value"), "{flag} {name}: {stderr}");
        }
        let out = infer(flag, "nonesuch");
        assert_eq!(out.status.code(), Some(2), "{flag} nonesuch");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let listed = format!("[possible values: {}]", names.join(", "));
        assert!(stderr.contains(&listed), "{flag}: {stderr}");
    }
    // The planner needs no model: the LM flags are accepted and the example answered.
    let planner = infer("--lm-likelihood", "choice");
    assert!(planner.status.success(), "{planner:?}");
}
