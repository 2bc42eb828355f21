//! Hostile input and failing outputs (the reproducers of the hostile-input report): every
//! one a clean error naming its cause (status 2) or the right result; nothing written
//! half, nothing clobbered.

use std::os::unix::fs::FileTypeExt;
use std::process::Output;

use crate::util::{bip, root, TempDir};

/// An episode of two rooms joined by `door`, with a fridge holding an apple and one goal
/// question whose options are `options`.
fn episode(door: &str, options: &str) -> String {
    format!(
        r#"{{"format": "bip-episode/1",
  "world": {{"rooms": ["kitchen", "hall"], "doors": [{door}],
    "furniture": [{{"id": "fridge", "room": "kitchen", "kind": "container"}}],
    "objects": [{{"id": "apple_1", "at": "fridge"}}]}},
  "agent": {{"name": "A", "start": "hall"}},
  "actions": [{{"walk_to": "kitchen"}}],
  "questions": [{{"id": "q", "options": [{options}]}}]}}"#
    )
}

const GOALS: &str = r#"{"goal": "apple"}, {"goal": "pear"}"#;

/// One room holding `n` containers.
fn one_room(n: usize) -> String {
    let cabinets: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"id": "cabinet_{i}", "room": "kitchen", "kind": "container"}}"#))
        .collect();
    format!(
        r#"{{"format": "bip-episode/1", "world": {{"rooms": ["kitchen"], "furniture": [{}],
  "objects": [{{"id": "apple_1", "at": "cabinet_3"}}, {{"id": "plate_1", "at": "cabinet_7"}}]}},
  "agent": {{"name": "A", "start": "kitchen"}},
  "actions": [{{"walk_to": "cabinet_1"}}, {{"open": "cabinet_1"}}, {{"walk_to": "cabinet_3"}}],
  "questions": [{{"options": [{{"goal": "apple"}}, {{"goal": "plate"}}]}}]}}"#,
        cabinets.join(", ")
    )
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `args` (`{d}` stands for the folder) and checks status 2 and a message with
/// every one of `says`.
fn refused(d: &TempDir, args: &[&str], says: &[&str]) -> Output {
    let folder = d.path().display().to_string();
    let args: Vec<String> = args.iter().map(|a| a.replace("{d}", &folder)).collect();
    let output = bip(&args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
    for part in says {
        assert!(
            message.contains(part),
            "{args:?}: \"{message}\" lacks \"{part}\""
        );
    }
    assert!(!message.contains("panicked"), "{message}");
    output
}

/// Runs each `(command line, expected)` case: the line split at spaces (`{d}` the folder,
/// `{e}` an example episode, `''` an empty argument), and every `|`-separated part of
/// `expected` in the message of a status-2 error.
fn refused_all(d: &TempDir, cases: &[(&str, &str)]) {
    let example = root().join("episodes/examples/1.2-false-belief-short.json");
    for (line, expected) in cases {
        let line = line.replace("{e}", &example.display().to_string());
        let args: Vec<&str> = line
            .split(' ')
            .map(|a| if a == "''" { "" } else { a })
            .collect();
        let says: Vec<&str> = expected.split('|').collect();
        refused(d, &args, &says);
    }
}

#[test]
fn bad_flags_are_refused_with_the_flag_named() {
    let d = TempDir::new();
    let egypt = root().join("themes/data/egypt.json").display().to_string();
    let theme = format!("theme list --theme-file {egypt}");
    let reserved = std::fs::read_to_string(&egypt).expect("egypt").replacen(
        "\"id\": \"egypt\"",
        "\"id\": \"all\"",
        1,
    );
    let reserved = d.write("all.json", &reserved).display().to_string();
    let reserved = format!("theme list --theme-file {reserved}");
    refused_all(
        &d,
        &[
            (
                "infer {e} --abstain-below nan",
                "--abstain-below NaN|between 0 and 1",
            ),
            ("infer {e} --abstain-below=-1", "--abstain-below -1"),
            ("eval {e} --abstain-below 2", "--abstain-below 2"),
            ("infer {e} --beta 1e308", "--beta 1e308|in [0, 1e6]"),
            // Refused even where single-agent episodes make no use of it.
            ("infer {e} --trust nan", "--trust|trust = NaN|[0, 1]"),
            ("eval {e} --trust 1.5", "--trust|must lie in [0, 1]"),
            (
                "infer {e} --max-belief-values 0",
                "--max-belief-values must be at least 1",
            ),
            ("variance {e} --themes ''", "--themes|names no theme"),
            ("variance {e} --themes ,", "names no theme"),
            (
                &theme,
                "egypt.json|\"egypt\" is already the id of a built-in theme",
            ),
            (&reserved, "all.json|\"all\" is a word of the command line"),
            (
                "generate --n 1 --unknowable nan -o {d}/g.jsonl",
                "--unknowable NaN",
            ),
            (
                "--max-input-size 1.5G infer {e}",
                "--max-input-size|not a size",
            ),
            (
                "lm score --prompt a --continuation ''",
                "--continuation|a value is required",
            ),
        ],
    );
}

#[test]
fn hostile_files_are_refused_with_their_cause_named() {
    let d = TempDir::new();
    let door = r#"{"between": ["kitchen", "hall"], "distance": 1e308}"#;
    d.write("door.json", &episode(door, GOALS));
    let calibration = r#"{"format": "bip-calibration/1", "policy": "planner", "beta": 1e308, "mean_log_likelihood": 0, "questions": 1}"#;
    d.write("beta.json", calibration);
    d.write("room300.json", &one_room(300));
    d.write("room6000.json", &one_room(6_000));
    let folder = d.path().display().to_string();
    let own = format!(
        "questions = \"{folder}/self.toml\"\nout = \"{folder}/self-out\"\n[[policy]]\nname = \"p\"\n"
    );
    d.write("self.toml", &own);
    // One room of 8 containers read 63 other ways (the apple and the plate anywhere).
    let readings: Vec<String> = (0..64)
        .filter(|k| *k != 3 * 8 + 7)
        .map(|k| {
            format!(
                r#"{{"objects": {{"apple_1": "cabinet_{}", "plate_1": "cabinet_{}"}}}}"#,
                k / 8,
                k % 8
            )
        })
        .collect();
    let many = one_room(8).replacen(
        r#""objects": [{"id": "apple_1""#,
        &format!(
            r#""alternatives": [{}], "objects": [{{"id": "apple_1""#,
            readings.join(", ")
        ),
        1,
    );
    d.write("readings.json", &many);
    let long = "x".repeat(500_000);
    let belief = format!(
        r#"{{"belief": {{"object": "apple", "container": "{long}", "inside": true}}}}, {GOALS}"#
    );
    d.write("long.json", &episode(r#"["kitchen", "hall"]"#, &belief));
    d.write("empty.json", "");
    // Base words with one word of the space theme among them.
    let stray = "The kitchen has a fridge, a stove and a sofa; the fridge holds an apple, \
                 and the stove a plate. Ann walks to the replicator station.";
    d.write("stray.txt", stray);
    let record =
        std::fs::read_to_string(root().join("tests/data/mmtom-sample.jsonl")).expect("sample");
    let first = record.lines().next().expect("a record");
    let counted = first.replacen(" is a ", " is nine hundred ", 1);
    assert_ne!(counted, first, "the sample's scene has \" is a \"");
    d.write("counts.jsonl", &counted);
    refused_all(
        &d,
        &[
            (
                "infer {e} --calibration {d}/beta.json",
                "beta.json|beta: 1e308",
            ),
            (
                "infer {d}/door.json",
                "door.json|world.doors[0].distance|1e308",
            ),
            (
                "infer /dev/zero --max-input-size 1M",
                "/dev/zero|limit of 1048576 bytes|--max-input-size",
            ),
            (
                "infer {d}/room300.json",
                "301 places|limit of 256|--max-places",
            ),
            (
                "infer {d}/room300.json --max-places 400 --max-hypotheses 50",
                "hypotheses exceed the limit of 50|--max-hypotheses",
            ),
            (
                "infer {d}/readings.json --max-readings 10",
                "world.alternatives: 64 readings of the world|limit of 10|--max-readings",
            ),
            (
                "study {d}/self.toml",
                "self.toml: questions|holds no question bip could read",
            ),
            (
                "infer {d}/room6000.json --max-places 7000",
                "belief values exceed the limit of 67108864|--max-belief-values",
            ),
            (
                "infer {d}/empty.json",
                "empty.json: line 1, column 0: EOF while parsing a value",
            ),
            (
                "--max-input-size 1M train --base smollm2-135m --data /dev/zero --out {d}/t",
                "/dev/zero|input limit of 1048576 bytes",
            ),
            (
                "theme apply --format mmtom --inverse --theme auto {d}/stray.txt {d}/out.txt",
                "stray.txt|cannot tell the theme|name it with --theme",
            ),
            (
                "import mmtom {d}/counts.jsonl --out {d}/counts-out.jsonl",
                "nine hundred|not taken literally",
            ),
        ],
    );
    // A 500 KB name is quoted shortened, and the JSON reader's place is said once.
    let output = refused(
        &d,
        &["infer", "{d}/long.json"],
        &["unknown furniture", "(500000 bytes)"],
    );
    assert!(
        stderr(&output).len() < 1_000,
        "{} bytes of error",
        stderr(&output).len()
    );
    let output = refused(&d, &["infer", "{d}/empty.json"], &[]);
    assert!(!stderr(&output).contains("at line"), "{}", stderr(&output));
}

#[test]
fn a_room_of_a_thousand_containers_is_answered() {
    let d = TempDir::new();
    let path = d.write("room1000.json", &one_room(1_000));
    // Its cost is measured, not asserted here: docs/results.md, "Large rooms".
    let output = bip([
        "infer".as_ref(),
        path.as_os_str(),
        "--max-places".as_ref(),
        "1100".as_ref(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("q1 after 3 actions"),
        "{}",
        stdout(&output)
    );
}

/// What the folder holds, sorted (temporaries included).
fn listing(d: &TempDir) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(d.path())
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failing_output_writes_none_of_the_command_s_files() {
    let graph = root()
        .join("tests/data/virtualhome/TestScene1_graph.json")
        .display()
        .to_string();
    let cases = [
        (
            format!(
                "import virtualhome --graph {graph} --out {{d}}/e.json --report {{d}}/nodir/r.txt"
            ),
            "--report|nodir does not exist",
        ),
        (
            "export virtualhome {e} --graph-out {d}/g.json --script-out {d}/nodir/s".into(),
            "--script-out|nodir does not exist",
        ),
        (
            "generate --n 2 --out {d}/e.jsonl --training-pairs {d}/nodir/p".into(),
            "--training-pairs",
        ),
        (
            "eval {e} --predictions {d}/p.jsonl --plot {d}/nodir/p.svg".into(),
            "--plot",
        ),
        (
            "export virtualhome {e} --graph-out {d}/same --script-out {d}/same".into(),
            "--script-out|the same file as --graph-out",
        ),
        (
            "export virtualhome {e} --graph-out - --script-out /dev/stdout".into(),
            "the same file as --graph-out -",
        ),
        (
            "eval {e} --predictions /dev/stdout".into(),
            "--predictions /dev/stdout|the same file as the report",
        ),
        ("infer {e} -o {d}".into(), "is a folder"),
        (
            "import mmtom {e} --out {d}/x.jsonl --report {d}/x.jsonl".into(),
            "--report|the same file as --out",
        ),
    ];
    for (line, says) in &cases {
        let d = TempDir::new();
        refused_all(&d, &[(line.as_str(), says)]);
        assert!(listing(&d).is_empty(), "{line} left {:?}", listing(&d));
    }
}

#[test]
fn devices_pipes_links_and_stdout_are_written_through_not_replaced() {
    let d = TempDir::new();
    let example = root().join("episodes/examples/1.2-false-belief-short.json");
    let e = example.to_str().expect("utf-8 path");
    let full = refused(
        &d,
        &["infer", e, "-o", "/dev/full"],
        &["--output /dev/full", "No space left"],
    );
    assert!(stdout(&full).is_empty());
    for device in ["/dev/full", "/dev/null"] {
        let kind = std::fs::symlink_metadata(device)
            .expect("device")
            .file_type();
        assert!(kind.is_char_device(), "{device} is still a device");
    }
    let null = bip(["infer", e, "-o", "/dev/null"]);
    assert!(
        null.status.success() && null.stdout.is_empty(),
        "{}",
        stderr(&null)
    );
    for to_stdout in ["-", "/dev/stdout"] {
        let output = bip(["infer", e, "-o", to_stdout]);
        assert!(
            stdout(&output).contains("1.2-false-belief-short"),
            "{to_stdout}: {}",
            stderr(&output)
        );
    }
    // A symbolic link stays a link; the file it points to gets the output.
    let target = d.write("target.txt", "old");
    let link = d.path().join("link");
    std::os::unix::fs::symlink("target.txt", &link).expect("link");
    let output = bip([
        "infer".as_ref(),
        e.as_ref(),
        "-o".as_ref(),
        link.as_os_str(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .expect("target")
        .contains("policy planner"));
    assert_eq!(listing(&d), ["link", "target.txt"]);
}

#[test]
fn a_fifo_is_written_through() {
    let d = TempDir::new();
    let fifo = d.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the fifo"))
    };
    let example = root().join("episodes/examples/1.2-false-belief-short.json");
    let output = bip([
        "infer".as_ref(),
        example.as_os_str(),
        "-o".as_ref(),
        fifo.as_os_str(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(reader.join().expect("reader").contains("policy planner"));
    let kind = std::fs::symlink_metadata(&fifo).expect("fifo").file_type();
    assert!(kind.is_fifo(), "still a FIFO");
}

#[test]
fn options_past_z_print_their_own_texts() {
    let d = TempDir::new();
    let options: Vec<String> = (0..29)
        .map(|i| format!(r#"{{"text": "option text {i}", "goal": "apple"}}"#))
        .collect();
    let path = d.write(
        "many.json",
        &episode(r#"["kitchen", "hall"]"#, &options.join(", ")),
    );
    let output = bip(["infer".as_ref(), path.as_os_str()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for (i, letter) in ["a", "z", "option27", "option29"].iter().enumerate() {
        let n = [0, 25, 26, 28][i];
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{letter} ")))
            .expect("row");
        assert!(row.ends_with(&format!("option text {n}")), "{row}");
    }
}

#[test]
fn an_empty_evaluation_says_zero_not_minus_zero() {
    let d = TempDir::new();
    let empty = d.write("empty.jsonl", "");
    let output = bip(["eval".as_ref(), empty.as_os_str()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stdout(&output).contains("-0.0"), "{}", stdout(&output));
}

#[test]
fn an_interrupted_command_exits_130_and_leaves_no_temporary() {
    let d = TempDir::new();
    let out = d.path().join("episodes.jsonl");
    // Generation writes its temporary as it goes, so there is one to clean up.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bip"))
        .args([
            "generate".as_ref(),
            "--n".as_ref(),
            "1000000".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ])
        .spawn()
        .expect("bip starts");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(kill.expect("kill runs").success());
    let status = child.wait().expect("bip ends");
    assert_eq!(status.code(), Some(130));
    assert!(listing(&d).is_empty(), "{:?}", listing(&d));
}

/// `bip variance merge` over files written as `name`: `text` pairs.
fn merge(d: &TempDir, files: &[(&str, String)], says: &[&str]) {
    let mut args = vec!["variance".to_string(), "merge".into()];
    for (name, text) in files {
        args.push(d.write(name, text).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(d, &args, says);
}

#[test]
fn variance_merge_refuses_missing_shards_impossible_figures_and_unknown_themes() {
    let d = TempDir::new();
    let run = |k: usize, n: usize| {
        format!(
            r#"{{"run": {{"format": "bip-variance/1", "shard": "{k}/{n}", "plan": {{"themes": ["apartment", "egypt"]}}}}}}"#
        )
    };
    let item = r#"{"theme": "apartment", "item": "e1/q1", "episode": "e1", "expected": "a", "answer": "a", "posterior": [0.9, 0.1], "margin": 0.8, "correct": true}"#;
    let one = format!("{}\n{item}\n", run(1, 2));
    merge(&d, &[("one.jsonl", one.clone())], &["shard 2/2 is missing"]);
    let negative = one.replace("[0.9, 0.1]", "[1.5, -0.5]");
    merge(
        &d,
        &[("neg.jsonl", negative)],
        &["neg.jsonl:2", "posterior: 1.5 is not a probability"],
    );
    let mars = format!("{}\n{}\n", run(1, 1), item.replace("apartment", "mars"));
    merge(
        &d,
        &[("mars.jsonl", mars)],
        &["mars.jsonl:2", "theme \"mars\""],
    );
    merge(
        &d,
        &[("bare.jsonl", item.to_string())],
        &["bare.jsonl: no run line"],
    );
}

/// `bip` with `args`, its standard output or standard error (`stream`) a full device:
/// the exit status.
fn status_writing_to_full(args: &[&str], stream: &str) -> Option<i32> {
    use std::process::{Command, Stdio};
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens")
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_bip"));
    command.args(args).stdin(Stdio::null());
    match stream {
        "stdout" => command.stdout(full()).stderr(Stdio::null()),
        _ => command.stderr(full()).stdout(Stdio::null()),
    };
    command.status().expect("bip runs").code()
}

#[test]
fn a_standard_error_that_cannot_be_written_is_no_panic() {
    let missing = root().join("episodes/examples/no-such-episode.json");
    let missing = missing.to_str().expect("a UTF-8 path");
    // The error cannot be shown, but the status still says what happened: 2, not a
    // panic's 101.
    assert_eq!(
        status_writing_to_full(&["infer", missing], "stderr"),
        Some(2)
    );
    assert_eq!(
        status_writing_to_full(&["--no-such-flag"], "stderr"),
        Some(2)
    );
    // A command that succeeds and only notes progress on standard error still succeeds.
    let example = root().join("episodes/examples/1.2-false-belief-short.json");
    assert_eq!(
        status_writing_to_full(&["infer", example.to_str().expect("UTF-8")], "stderr"),
        Some(0)
    );
}

#[test]
fn help_that_cannot_be_written_is_not_success() {
    assert_eq!(status_writing_to_full(&["--help"], "stdout"), Some(2));
    assert_eq!(status_writing_to_full(&["--version"], "stdout"), Some(2));
    let written = bip(["--help"]);
    assert!(written.status.success());
    assert!(String::from_utf8_lossy(&written.stdout).contains("Usage: bip"));
}
