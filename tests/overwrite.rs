//! No command overwrites its own input, whatever path names it (the same name, a
//! symbolic link, a hard link), and a standard output that fails replaces no file.

use std::path::Path;

use crate::util::{bip, root, TempDir};

/// The bytes of every file in `d`, by name.
fn contents(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
        .expect("folder")
        .map(|e| {
            let e = e.expect("entry");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn an_output_that_is_an_input_is_refused_before_anything_is_written() {
    let example = root().join("episodes/examples/1.2-false-belief-short.json");
    let graph = root().join("tests/data/virtualhome/TestScene1_graph.json");
    let cases = [
        "infer {d}/e.json -o {d}/e.json",
        "infer {d}/e.json -o {d}/soft",
        "infer {d}/e.json -o {d}/hard",
        "infer {d}/e.json {d}/q.jsonl -o {d}/q.jsonl",
        "eval {d}/e.json --predictions {d}/e.json",
        "calibrate {d}/e.json --out {d}/e.json",
        "import mmtom {d}/q.jsonl --out {d}/q.jsonl",
        "import mmtom {d}/q.jsonl --out {d}/out.jsonl --report {d}/q.jsonl",
        "import hitom {d}/q.jsonl --out {d}/q.jsonl",
        "import tomi {d}/q.jsonl --out {d}/q.jsonl",
        "import tomi {d}/e.json --trace {d}/q.jsonl --out {d}/q.jsonl",
        "eval --format tomi {d}/q.jsonl --trace {d}/e.json --predictions {d}/e.json",
        "theme apply --theme egypt {d}/e.json {d}/e.json",
        "export virtualhome {d}/e.json --graph-out {d}/g.json --script-out {d}/e.json",
        "import virtualhome --graph {d}/graph.json --out {d}/graph.json",
        // Files the command reads beside its main input: a calibration, a theme file.
        "infer {d}/e.json --calibration {d}/cal.json -o {d}/cal.json",
    ];
    for line in cases {
        let d = TempDir::new();
        let folder = d.path();
        std::fs::copy(&example, folder.join("e.json")).expect("copy");
        std::fs::copy(&example, folder.join("q.jsonl")).expect("copy");
        std::fs::copy(&graph, folder.join("graph.json")).expect("copy");
        std::os::unix::fs::symlink(folder.join("e.json"), folder.join("soft")).expect("link");
        std::fs::hard_link(folder.join("e.json"), folder.join("hard")).expect("link");
        let cal = r#"{"format": "bip-calibration/1", "policy": "planner", "beta": 2.0,
            "mean_log_likelihood": -0.5, "questions": 3}"#;
        std::fs::write(folder.join("cal.json"), cal).expect("write");
        let before = contents(folder);
        let args: Vec<String> = line
            .split(' ')
            .map(|a| a.replace("{d}", &folder.display().to_string()))
            .collect();
        let out = bip(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{line}: {err}");
        assert!(
            err.contains("an input is never overwritten"),
            "{line}: {err}"
        );
        assert_eq!(contents(folder), before, "{line} changed a file");
    }
}

#[test]
fn a_failing_standard_output_replaces_no_file() {
    use std::process::{Command, Stdio};
    let example = root().join("episodes/examples/1.2-false-belief-short.json");
    let d = TempDir::new();
    let predictions = d.path().join("p.jsonl");
    std::fs::write(&predictions, "earlier predictions\n").expect("write");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let status = Command::new(env!("CARGO_BIN_EXE_bip"))
        .arg("eval")
        .arg(&example)
        .arg("--predictions")
        .arg(&predictions)
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(Stdio::null())
        .status()
        .expect("bip runs");
    assert_eq!(status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&predictions).expect("still there"),
        "earlier predictions\n"
    );
    let names: Vec<String> = std::fs::read_dir(d.path())
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["p.jsonl"], "no temporary is left");
}
