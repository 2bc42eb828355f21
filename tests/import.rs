//! `bip import mmtom` on real MMToM-QA questions (a few lines of the development half,
//! copied into `tests/data/mmtom-sample.jsonl`).

use bip::engine::{infer_episode, BatchOptions, PlannerPolicy};
use bip::episodes::import::mmtom::read_jsonl;
use bip::episodes::Episode;

use crate::util::{bip, json, root, TempDir};

fn sample() -> std::path::PathBuf {
    root().join("tests/data/mmtom-sample.jsonl")
}

const IDS: [&str; 6] = [
    "mmtom-23-1",
    "mmtom-23-2",
    "mmtom-65-3",
    "mmtom-447-4",
    "mmtom-447-5",
    "mmtom-1026-6",
];

/// Runs `bip import mmtom INPUT --out OUT`.
fn import_mmtom(input: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    bip([
        "import".as_ref(),
        "mmtom".as_ref(),
        input.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ])
}

#[test]
fn a_folder_gets_one_valid_episode_per_question() {
    let dir = TempDir::new();
    let out = dir.path().join("episodes");
    let run = import_mmtom(&sample(), &out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("read 6 of 6 questions, 0 failed"),
        "{stderr}"
    );
    let mut files: Vec<_> = std::fs::read_dir(&out)
        .expect("folder written")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = IDS.iter().map(|id| format!("{id}.json")).collect();
    expected.sort();
    assert_eq!(files, expected, "one file per question, no temporary left");
    let report = json(&bip(std::iter::once("infer".into())
        .chain(
            IDS.iter()
                .map(|id| out.join(format!("{id}.json")).into_os_string()),
        )
        .chain(["--json".into()])));
    let questions: Vec<&serde_json::Value> = report["episodes"]
        .as_array()
        .expect("episodes")
        .iter()
        .flat_map(|e| e["questions"].as_array().expect("questions"))
        .collect();
    let types: Vec<&str> = questions
        .iter()
        .map(|q| q["type"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(types, ["1.3", "1.1", "1.2", "2.4", "2.2", "2.1"]);
    assert!(questions.iter().all(|q| q["expected"].is_string()));
}

#[test]
fn the_episode_holds_what_the_text_says() {
    let dir = TempDir::new();
    let out = dir.path().join("episodes");
    let run = import_mmtom(&sample(), &out);
    assert!(run.status.success());
    let read = |id: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{id}.json"))).expect("file"),
        )
        .expect("JSON")
    };
    // "He then opens and shuts the seventh kitchen cabinet, followed by the microwave, and
    // the sixth kitchen cabinet."
    let episode = read("mmtom-447-5");
    let actions: Vec<String> = episode["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| a.to_string())
        .collect();
    let sequence = [
        r#"{"open":"kitchen_cabinet_7"}"#,
        r#"{"close":"kitchen_cabinet_7"}"#,
        r#"{"walk_to":"microwave"}"#,
        r#"{"open":"microwave"}"#,
        r#"{"close":"microwave"}"#,
        r#"{"walk_to":"kitchen_cabinet_6"}"#,
        r#"{"open":"kitchen_cabinet_6"}"#,
    ];
    assert!(
        actions.windows(sequence.len()).any(|w| w == sequence),
        "{actions:?}"
    );
    assert!(
        episode["world"].get("doors").is_none(),
        "every room opens onto every other"
    );
    assert_eq!(episode["agent"]["start"], "living_room");
    // "If Michael think there isn't a remote control inside the cabinet, ... (a) Michael has
    // been trying to get a salmon."
    let episode = read("mmtom-1026-6");
    let option = &episode["questions"][0]["options"][0];
    assert_eq!(option["goal"], "salmon");
    assert_eq!(
        option["given"]["belief"],
        serde_json::json!({"object": "remote_control", "container": "cabinet", "inside": false})
    );
    assert_eq!(
        episode["questions"][0]["at"],
        episode["actions"].as_array().expect("actions").len()
    );
    // "... and is about to open the microwave": the last action walks there, nothing opens it.
    let episode = read("mmtom-23-2");
    let last = episode["actions"]
        .as_array()
        .and_then(|a| a.last())
        .expect("actions");
    assert_eq!(last, &serde_json::json!({"walk_to": "microwave"}));
}

#[test]
fn writing_and_reading_back_gives_the_same_answers() {
    let dir = TempDir::new();
    let out = dir.path().join("episodes.jsonl");
    let run = import_mmtom(&sample(), &out);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = std::fs::read_to_string(&out).expect("written");
    let text = std::fs::read_to_string(sample()).expect("sample");
    let policy = PlannerPolicy::default();
    let options = BatchOptions::default();
    let records: Vec<_> = read_jsonl(&text)
        .map(|(_, r)| r.expect("readable"))
        .collect();
    assert_eq!(written.lines().count(), records.len());
    for (line, record) in written.lines().zip(&records) {
        let reread = Episode::from_json(line, "reread").expect("valid episode");
        assert_eq!(reread.id(), record.episode.id());
        let before = infer_episode(&record.episode, &policy, &options).expect("inference");
        let after = infer_episode(&reread, &policy, &options).expect("inference");
        assert_eq!(before.answers, after.answers, "{}", record.episode.id());
        assert_eq!(record.question_type, reread.questions()[0].question_type());
        assert_eq!(
            Some(record.expected.as_str()),
            reread.questions()[0].expected.map(|e| e.label()).as_deref()
        );
    }
}

#[test]
fn an_unreadable_question_is_reported_and_fails_the_import_unless_told_to_keep_going() {
    let dir = TempDir::new();
    let text = std::fs::read_to_string(sample()).expect("sample");
    let good = text.lines().next().expect("a line");
    let bad = good.replace("a kitchen table,", "a toaster, a kitchen table,");
    assert_ne!(good, bad, "the sample line has a kitchen table to replace");
    let input = dir.write("two.jsonl", &format!("{good}\n{bad}\n"));
    let out = dir.path().join("out.jsonl");
    let run = import_mmtom(&input, &out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("two.jsonl:2:"), "names the line: {stderr}");
    assert!(
        stderr.contains("\"a toaster\""),
        "names the phrase: {stderr}"
    );
    assert!(
        stderr.contains("The kitchen is equipped with"),
        "quotes the sentence: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.exists(), "nothing written");
    let run = bip([
        "import".as_ref(),
        "mmtom".as_ref(),
        input.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--keep-going".as_ref(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("read 1 of 2 questions, 1 failed"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&out)
            .expect("written")
            .lines()
            .count(),
        1
    );
}

#[test]
fn eval_reads_mmtom_text_directly() {
    let out = bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "mmtom".as_ref(),
        sample().as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["unreadable"], 0);
    assert_eq!(report["n"], 6);
    assert!(report["correct"].as_u64() >= Some(5), "{report}");
    let garbled = TempDir::new();
    let path = garbled.write(
        "garbled.jsonl",
        "{\"question\": \"Nothing to read here.\", \"answer\": \"a\"}\n",
    );
    let out = bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "mmtom".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["unreadable"], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("garbled.jsonl:1"));
}
