//! `bip study`: a grid of policies × themes over one question set, resumable after a
//! kill and shardable, reporting as `bip variance` does.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{bip, json, root, stderr_of, write_tiny_model, TempDir};

/// A plan over `questions` (`format`) in `themes`, into `out`, with `cells` (TOML tables)
/// and an optional `[subset]`.
fn plan(
    questions: &str,
    format: &str,
    themes: &str,
    out: &str,
    subset: &str,
    cells: &str,
) -> String {
    format!(
        "questions = {questions:?}\nformat = {format:?}\nthemes = {themes}\nout = {out:?}\n{subset}\n{cells}"
    )
}

/// Generated episodes (one question each, types in turn) in `dir`.
fn episodes(dir: &TempDir, n: usize) -> String {
    let path = dir.path().join("eps.jsonl");
    let path = path.to_string_lossy().into_owned();
    let out = bip([
        "generate",
        "--n",
        &n.to_string(),
        "--seed",
        "3",
        "--out",
        &path,
    ]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    path
}

/// A cell named "lm": the language-model policy over the model in `model`, pruned to one
/// hypothesis per option.
fn tiny_lm_cell(model: &Path) -> String {
    format!(
        "[[policy]]\nname = \"lm\"\nargs = [\"--policy\", \"lm\", \"--model\", {:?}, \"--prune-to\", \"1\"]\n",
        model.to_string_lossy()
    )
}

/// The lines of a results file after its header, parsed.
fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("results written");
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `(policy, theme, item)` of each record.
fn keys(records: &[Value]) -> Vec<(String, String, String)> {
    records
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().expect("a string").to_string();
            (s("policy"), s("theme"), s("item"))
        })
        .collect()
}

/// A report without its costs (times differ from run to run).
fn without_cost(mut report: Value) -> Value {
    for p in report["policies"].as_array_mut().expect("policies") {
        p.as_object_mut().expect("a policy").remove("cost");
    }
    report
}

fn report(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("report.json")).expect("report written");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn a_planner_grid_reports_as_variance_does_and_shards_merge_to_it() {
    let dir = TempDir::new();
    let input = root().join("tests/data/mmtom-sample.jsonl");
    let input = input.to_string_lossy().into_owned();
    let out = dir.path().join("run");
    let cells = "[[policy]]\nname = \"planner\"\n[[policy]]\nname = \"cold\"\nargs = [\"--beta\", \"0.5\"]\n";
    let text = plan(
        &input,
        "mmtom",
        "[\"egypt\", \"castle\"]",
        &out.to_string_lossy(),
        "",
        cells,
    );
    let file = dir.write("plan.toml", &text);
    let run = bip(["study", &file.to_string_lossy()]);
    assert!(run.status.success(), "{}", stderr_of(&run));
    assert!(String::from_utf8_lossy(&run.stdout).contains("| planner |"));
    let whole = report(&out);
    let variance = |policy: &[&str]| {
        let args = [
            "variance",
            &input,
            "--format",
            "mmtom",
            "--themes",
            "egypt,castle",
        ];
        json(&bip(args.iter().chain(policy).chain(&["--json"])))
    };
    assert_eq!(whole["policies"][0]["themes"], variance(&[]));
    assert_eq!(whole["policies"][1]["themes"], variance(&["--beta", "0.5"]));
    let pairs = whole["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 3, "one family per theme");
    assert_eq!(pairs[0]["pairs"][0]["first"], "planner");
    for name in ["report.md", "heatmap-planner.svg", "heatmap-cold.svg"] {
        assert!(out.join(name).is_file(), "{name}");
    }
    // The same grid in two shards, then a report over both, gives the same report.
    let sharded = dir.path().join("sharded");
    let text = plan(
        &input,
        "mmtom",
        "[\"egypt\", \"castle\"]",
        &sharded.to_string_lossy(),
        "",
        cells,
    );
    let file = dir.write("sharded.toml", &text);
    let file = file.to_string_lossy();
    let first = bip(["study", &file, "--shard", "1/2"]);
    assert!(
        stderr_of(&first).contains("still missing"),
        "{}",
        stderr_of(&first)
    );
    assert!(!sharded.join("report.json").exists());
    let early = bip(["study", &file, "--report-only"]);
    assert_eq!(early.status.code(), Some(2));
    assert!(
        stderr_of(&early).contains("results are missing"),
        "{}",
        stderr_of(&early)
    );
    assert!(bip(["study", &file, "--shard", "2/2"]).status.success());
    let merged = bip(["study", &file, "--report-only"]);
    assert!(merged.status.success(), "{}", stderr_of(&merged));
    assert_eq!(without_cost(report(&sharded)), without_cost(whole));
}

/// A language-model cell runs its units side by side through forks of the policy, as
/// `bip variance` runs its episodes, and answers as `bip variance` does.
#[test]
fn a_language_model_grid_reports_as_variance_does() {
    let dir = TempDir::new();
    let input = episodes(&dir, 10);
    let model = dir.path().join("tiny");
    write_tiny_model(&model);
    let cells = tiny_lm_cell(&model);
    let model = model.to_string_lossy().into_owned();
    let out = dir.path().join("run");
    let text = plan(
        &input,
        "episodes",
        "[\"egypt\", \"space\"]",
        &out.to_string_lossy(),
        "",
        &cells,
    );
    let file = dir.write("plan.toml", &text);
    let run = bip(["study", &file.to_string_lossy()]);
    assert!(run.status.success(), "{}", stderr_of(&run));
    let args = [
        "variance",
        &input,
        "--themes",
        "egypt,space",
        "--policy",
        "lm",
        "--model",
        &model,
        "--prune-to",
        "1",
        "--json",
    ];
    assert_eq!(report(&out)["policies"][0]["themes"], json(&bip(args)));
}

#[test]
fn replicate_cells_are_reported_as_mean_and_sd_across_the_group() {
    let dir = TempDir::new();
    let input = episodes(&dir, 20);
    let out = dir.path().join("run");
    let cell = |name: &str, args: [&str; 2], group: &str| {
        format!("[[policy]]\nname = {name:?}\nargs = {args:?}\n{group}\n")
    };
    // Blind to actions: β = 0, and no walk chosen by belief either.
    let blind = dir.write(
        "blind.json",
        r#"{"format": "bip-calibration/1", "policy": "planner", "beta": 0,
            "search_spread": 0, "mean_log_likelihood": 0, "questions": 1}"#,
    );
    let blind = blind.to_string_lossy();
    let cells = [
        cell("blind", ["--calibration", &blind], "group = \"betas\""),
        cell("warm", ["--beta", "1"], ""),
        cell("sharp", ["--beta", "3"], "group = \"betas\""),
    ]
    .concat();
    let study = |file: &str, out: &Path, cells: &str| {
        let text = plan(
            &input,
            "episodes",
            "[\"egypt\"]",
            &out.to_string_lossy(),
            "",
            cells,
        );
        bip(["study", &dir.write(file, &text).to_string_lossy()])
    };
    let run = study("plan.toml", &out, &cells);
    assert!(run.status.success(), "{}", stderr_of(&run));
    let report = report(&out);
    let group = &report["replicates"][0];
    assert_eq!(group["name"], "betas");
    assert_eq!(group["cells"], serde_json::json!(["blind", "sharp"]));
    let accuracy = |policy: usize, theme: usize| {
        report["policies"][policy]["themes"]["variants"][theme]["accuracy"]
            .as_f64()
            .expect("accuracy")
    };
    let mut spread = false;
    for theme in 0..2 {
        let (a, b) = (accuracy(0, theme), accuracy(2, theme));
        let m = &group["themes"][theme]["accuracy"];
        let close = |v: &Value, x: f64| (v.as_f64().expect("number") - x).abs() < 1e-12;
        assert!(close(&m["mean"], (a + b) / 2.0), "{m} vs {a}, {b}");
        assert!(
            close(&m["sd"], (a - b).abs() / 2f64.sqrt()),
            "{m} vs {a}, {b}"
        );
        spread |= a != b;
    }
    assert!(
        spread,
        "β = 0 (blind to actions) and β = 3 answer differently"
    );
    assert!(String::from_utf8_lossy(&run.stdout).contains("| betas (blind, sharp) |"));
    // A group of one cell, or named like a cell, is refused before anything runs.
    for (cells, expected) in [
        (
            cell("solo", ["--beta", "2"], "group = \"g\""),
            "group \"g\": one cell (solo)",
        ),
        (
            [
                cell("a", ["--beta", "2"], "group = \"b\""),
                cell("b", ["--beta", "4"], "group = \"b\""),
            ]
            .concat(),
            "group \"b\" is also a cell's name",
        ),
    ] {
        let out = dir.path().join("refused");
        let run = study("bad.toml", &out, &cells);
        assert_eq!(run.status.code(), Some(2));
        assert!(stderr_of(&run).contains(expected), "{}", stderr_of(&run));
        assert!(!out.exists());
    }
}

#[test]
fn the_stratified_subset_is_the_same_in_every_theme_and_policy_and_follows_its_seed() {
    let dir = TempDir::new();
    let input = episodes(&dir, 21);
    let cells = "[[policy]]\nname = \"planner\"\n[[policy]]\nname = \"cold\"\nargs = [\"--beta\", \"0.5\"]\n";
    let chosen = |seed: u64, name: &str| {
        let out = dir.path().join(name);
        let subset = format!("[subset]\nper_type = 2\nseed = {seed}\n");
        let text = plan(
            &input,
            "episodes",
            "[\"space\"]",
            &out.to_string_lossy(),
            &subset,
            cells,
        );
        let run = bip([
            "study",
            &dir.write(&format!("{name}.toml"), &text).to_string_lossy(),
        ]);
        assert!(run.status.success(), "{}", stderr_of(&run));
        let listed: Vec<(String, String)> = report(&out)["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| {
                (
                    i["item"].as_str().expect("key").into(),
                    i["type"].as_str().expect("type").into(),
                )
            })
            .collect();
        let mut per_cell: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
        for (policy, theme, item) in keys(&records(&out.join("results.jsonl"))) {
            per_cell.entry((policy, theme)).or_default().insert(item);
        }
        let items: BTreeSet<String> = listed.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(per_cell.len(), 4, "2 policies × 2 themes");
        for (cell, asked) in &per_cell {
            assert_eq!(asked, &items, "{cell:?} asks the listed questions");
        }
        let mut per_type: HashMap<String, usize> = HashMap::new();
        for (_, kind) in &listed {
            *per_type.entry(kind.clone()).or_default() += 1;
        }
        assert_eq!(per_type.len(), 7, "{per_type:?}");
        assert!(per_type.values().all(|&n| n == 2), "{per_type:?}");
        items
    };
    let one = chosen(5, "a");
    assert_eq!(
        chosen(5, "b"),
        one,
        "the same seed chooses the same questions"
    );
    assert_ne!(chosen(6, "c"), one, "another seed chooses others");
}

#[test]
fn bad_plans_are_refused_naming_the_file_and_field_before_anything_is_written() {
    let dir = TempDir::new();
    let input = episodes(&dir, 3);
    let out = dir.path().join("run");
    let out = out.to_string_lossy();
    let cells = |args: &str| format!("[[policy]]\nname = \"p\"\nargs = {args}\n");
    let cases = [
        (
            plan(
                &input,
                "episodes",
                "[\"egypt\"]",
                &out,
                "",
                &cells("[\"--bta\", \"2\"]"),
            ),
            "policy[0] (\"p\"): args: error: unexpected argument '--bta'",
        ),
        (
            plan(&input, "episodes", "[\"atlantis\"]", &out, "", &cells("[]")),
            "themes: no theme \"atlantis\"",
        ),
        (
            plan(
                "missing.jsonl",
                "episodes",
                "\"all\"",
                &out,
                "",
                &cells("[]"),
            ),
            "questions: missing.jsonl",
        ),
        (
            plan(
                &input,
                "episodes",
                "\"all\"",
                &out,
                "[subset]\nper_typ = 2\n",
                &cells("[]"),
            ),
            "unknown field `per_typ`",
        ),
        (
            plan(
                &input,
                "episodes",
                "\"all\"",
                &out,
                "",
                &format!("{}{}", cells("[]"), cells("[]")),
            ),
            "policy[1]: name: \"p\" names an earlier cell too",
        ),
    ];
    for (text, expected) in cases {
        let file = dir.write("bad.toml", &text);
        let run = bip(["study", &file.to_string_lossy()]);
        assert_eq!(run.status.code(), Some(2));
        let err = stderr_of(&run);
        assert!(
            err.starts_with("bip: ") && err.contains("bad.toml") && err.contains(expected),
            "{err} lacks {expected}"
        );
        assert!(!dir.path().join("run").exists(), "nothing written: {err}");
    }
}

/// A grid with a tiny language model, killed (SIGKILL) once some of its answers are
/// written, then run again: no question is answered twice, the lines written before the
/// kill stay as they were, and the report is that of a run never interrupted.
#[test]
fn a_grid_killed_mid_run_resumes_without_scoring_any_question_twice() {
    let dir = TempDir::new();
    let input = episodes(&dir, 14);
    let model = dir.path().join("tiny");
    write_tiny_model(&model);
    let cells = format!("[[policy]]\nname = \"planner\"\n{}", tiny_lm_cell(&model));
    let write = |name: &str| {
        let out = dir.path().join(name);
        let text = plan(
            &input,
            "episodes",
            "[\"egypt\"]",
            &out.to_string_lossy(),
            "",
            &cells,
        );
        (dir.write(&format!("{name}.toml"), &text), out)
    };
    let (whole_plan, whole) = write("whole");
    let run = bip(["study", &whole_plan.to_string_lossy()]);
    assert!(run.status.success(), "{}", stderr_of(&run));

    let (killed_plan, killed) = write("killed");
    let results = killed.join("results.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bip"))
        .args(["study", &killed_plan.to_string_lossy()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("bip starts");
    let started = Instant::now();
    let lm_lines = |text: &str| {
        text.lines()
            .filter(|l| l.contains("\"policy\":\"lm\""))
            .count()
    };
    loop {
        let text = std::fs::read_to_string(&results).unwrap_or_default();
        if lm_lines(&text) >= 3 {
            break;
        }
        assert!(
            child.try_wait().expect("waits").is_none(),
            "finished before it was killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no LM answer written"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let before = std::fs::read_to_string(&results).expect("results");
    let complete = &before[..before.rfind('\n').expect("a line") + 1];
    let total = 2 * 2 * 14;
    assert!(
        lm_lines(complete) < 28,
        "killed mid-run: {}",
        lm_lines(complete)
    );
    // A write cut short by the kill leaves a partial last line: the rerun drops it.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&results)
        .expect("opens");
    std::io::Write::write_all(&mut file, b"{\"policy\":\"lm\",\"line\":1,\"th").expect("appends");
    drop(file);

    let rerun = bip(["study", &killed_plan.to_string_lossy()]);
    assert!(rerun.status.success(), "{}", stderr_of(&rerun));
    let answered = format!(
        "policy lm: {} of 28 (theme, item) units",
        28 - lm_lines(complete)
    );
    assert!(
        stderr_of(&rerun).contains(&answered),
        "{}",
        stderr_of(&rerun)
    );
    let after = std::fs::read_to_string(&results).expect("results");
    assert!(
        after.starts_with(complete),
        "lines written before the kill are kept as they were"
    );
    let found = keys(&records(&results));
    let unique: BTreeSet<_> = found.iter().cloned().collect();
    assert_eq!(
        (found.len(), unique.len()),
        (total, total),
        "every question once"
    );
    assert_eq!(without_cost(report(&killed)), without_cost(report(&whole)));
}

/// `--cells` runs some cells now, while what a later cell needs (here its calibration
/// file) is still being made; the plan run whole afterwards answers only the rest.
#[test]
fn cells_run_now_while_a_later_cell_waits_for_its_calibration() {
    let dir = TempDir::new();
    let input = root().join("tests/data/mmtom-sample.jsonl");
    let out = dir.path().join("run");
    let calibration = dir.path().join("later.json");
    let cells = format!(
        "[[policy]]\nname = \"planner\"\n[[policy]]\nname = \"fitted\"\nargs = [\"--calibration\", {:?}]\n",
        calibration.to_string_lossy()
    );
    let text = plan(
        &input.to_string_lossy(),
        "mmtom",
        "[\"apartment\"]",
        &out.to_string_lossy(),
        "",
        &cells,
    );
    let file = dir.write("plan.toml", &text);
    let file = file.to_string_lossy();
    // Run whole, the plan is refused before anything is answered: the file is missing.
    let whole = bip(["study", &file]);
    assert_eq!(whole.status.code(), Some(2));
    assert!(
        stderr_of(&whole).contains("later.json"),
        "{}",
        stderr_of(&whole)
    );
    assert!(!out.join("results.jsonl").exists());
    let unknown = bip(["study", &file, "--cells", "planner,nonesuch"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr_of(&unknown).contains("\"nonesuch\" is not a cell"));
    let now = bip(["study", &file, "--cells", "planner"]);
    assert!(now.status.success(), "{}", stderr_of(&now));
    assert!(
        stderr_of(&now).contains("still missing"),
        "{}",
        stderr_of(&now)
    );
    assert!(!out.join("report.json").exists());
    let answered = records(&out.join("results.jsonl"));
    assert!(!answered.is_empty());
    assert!(answered.iter().all(|r| r["policy"] == "planner"));
    // The finished cell reports alone, apart from the whole study's report.
    let part = bip(["study", &file, "--report-only", "--cells", "planner"]);
    assert!(part.status.success(), "{}", stderr_of(&part));
    let text = std::fs::read_to_string(out.join("partial-report.json")).expect("written");
    let partial: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(partial["policies"].as_array().map(Vec::len), Some(1));
    assert_eq!(partial["policies"][0]["name"], "planner");
    assert!(!out.join("report.json").exists());
    let whole_early = bip(["study", &file, "--report-only"]);
    assert_eq!(whole_early.status.code(), Some(2));
    // The calibration is made (β = 0.5); the whole plan now answers the other cell only.
    std::fs::write(
        &calibration,
        r#"{"format": "bip-calibration/1", "policy": "planner", "beta": 0.5, "mean_log_likelihood": -0.5, "questions": 10}"#,
    )
    .expect("write");
    let rest = bip(["study", &file]);
    assert!(rest.status.success(), "{}", stderr_of(&rest));
    let all = records(&out.join("results.jsonl"));
    assert_eq!(all.len(), 2 * answered.len());
    assert_eq!(&all[..answered.len()], &answered[..]);
    assert!(out.join("report.json").is_file());
}

/// Each planner record of a results file: item → posterior.
fn planner_posteriors(path: &Path) -> HashMap<String, Value> {
    records(path)
        .into_iter()
        .filter(|r| r["policy"] == "planner")
        .map(|r| {
            (
                r["item"].as_str().expect("item").to_string(),
                r["posterior"].clone(),
            )
        })
        .collect()
}

/// The weak-to-strong plans in `examples/` are what wrote `results/`: every cell's flags
/// still parse (models and calibrations are not needed for cells not run), and the
/// planner cell, run again with the agent model of that run pinned by a calibration
/// (world-blind prior, search spread 0, beliefs that do not grow: all came later), gives
/// the committed posteriors on the same questions.
#[test]
fn the_shipped_w2s_plans_parse_and_their_planner_cells_give_the_committed_answers() {
    for name in ["w2s-study", "w2s-study-hybrid"] {
        let dir = TempDir::new();
        let text = std::fs::read_to_string(root().join(format!("examples/{name}.toml")))
            .expect("the plan is shipped");
        let out = dir.path().join("out");
        let written = format!("out = \"results/{name}\"");
        assert!(text.contains(&written), "{name}: {written}");
        let then = dir.write(
            "then.json",
            r#"{"format": "bip-calibration/1", "policy": "planner", "beta": 3,
                "search_spread": 0, "absent_goal_weight": 1, "open_view_weight": 0,
                "beliefs_grow": false, "mean_log_likelihood": 0, "questions": 1}"#,
        );
        let planner = "name = \"planner\"\n";
        assert_eq!(text.matches(planner).count(), 1, "{name}");
        let moved = text
            .replace(&written, &format!("out = {:?}", out.to_string_lossy()))
            .replace(
                planner,
                &format!(
                    "{planner}args = [\"--calibration\", {:?}]\n",
                    then.to_string_lossy()
                ),
            );
        let plan_path = dir.path().join("plan.toml");
        std::fs::write(&plan_path, moved).expect("write the plan");
        let run = Command::new(env!("CARGO_BIN_EXE_bip"))
            .current_dir(root())
            .arg("study")
            .arg(&plan_path)
            .args(["--cells", "planner"])
            .output()
            .expect("bip runs");
        assert!(run.status.success(), "{name}: {}", stderr_of(&run));
        let again = planner_posteriors(&out.join("results.jsonl"));
        let committed = planner_posteriors(&root().join(format!("results/{name}/results.jsonl")));
        assert_eq!(again.len(), 28, "{name}");
        assert_eq!(again, committed, "{name}");
    }
}
