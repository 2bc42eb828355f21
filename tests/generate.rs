//! `bip generate` and `bip eval`: the generated corpus and its scoring.

use crate::util::{bip, TempDir};

fn generate(dir: &TempDir, name: &str, n: usize, seed: u64, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.path().join(name);
    let mut args = vec![
        "generate".to_string(),
        "--n".to_string(),
        n.to_string(),
        "--seed".to_string(),
        seed.to_string(),
        "--out".to_string(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let result = bip(&args);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    out
}

fn lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("generated file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON episode a line"))
        .collect()
}

#[test]
fn same_seed_is_byte_identical_and_seeds_differ() {
    let dir = TempDir::new();
    let a = std::fs::read(generate(&dir, "a.jsonl", 30, 5, &[])).expect("a");
    let b = std::fs::read(generate(&dir, "b.jsonl", 30, 5, &[])).expect("b");
    let c = std::fs::read(generate(&dir, "c.jsonl", 30, 6, &[])).expect("c");
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_thousand_episodes_cover_every_type_with_balanced_answers() {
    let dir = TempDir::new();
    let episodes = lines(&generate(&dir, "g.jsonl", 1000, 11, &[]));
    assert_eq!(episodes.len(), 1000);
    let (mut first, mut belief, mut inside) = (0, 0, 0);
    let mut types = std::collections::BTreeSet::new();
    for e in &episodes {
        let q = &e["questions"][0];
        types.insert(q["type"].as_str().expect("type").to_string());
        let expected = q["expected"].as_str().expect("expected");
        first += usize::from(expected == "a");
        let correct = &q["options"][usize::from(expected == "b")];
        if let Some(b) = correct.get("belief") {
            belief += 1;
            inside += usize::from(b["inside"] == true);
        }
    }
    assert_eq!(types.len(), 7, "{types:?}");
    let share_a = first as f64 / 1000.0;
    let share_inside = inside as f64 / belief as f64;
    assert!(
        (0.45..=0.55).contains(&share_a),
        "correct option is a in {share_a}"
    );
    assert!(
        (0.45..=0.55).contains(&share_inside),
        "inside in {share_inside}"
    );
}

#[test]
fn types_flag_restricts_the_questions() {
    let dir = TempDir::new();
    let episodes = lines(&generate(&dir, "g.jsonl", 20, 1, &["--types", "1.3,2.3"]));
    for e in episodes {
        let t = e["questions"][0]["type"]
            .as_str()
            .expect("type")
            .to_string();
        assert!(t == "1.3" || t == "2.3", "{t}");
    }
    let out = bip(["generate", "--n", "2", "--out", "x.jsonl", "--types", "3.1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown question type \"3.1\""));
}

#[test]
fn eval_scores_generated_episodes_and_writes_predictions() {
    let dir = TempDir::new();
    let file = generate(&dir, "g.jsonl", 70, 3, &[]);
    let predictions = dir.path().join("p.jsonl");
    let out = bip([
        "eval".as_ref(),
        file.as_os_str(),
        "--json".as_ref(),
        "--predictions".as_ref(),
        predictions.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["n"], 70);
    let accuracy = report["accuracy"].as_f64().expect("accuracy");
    assert!(
        accuracy >= 0.9,
        "planner accuracy on generated episodes: {accuracy}"
    );
    assert_eq!(report["by_type"].as_object().expect("by_type").len(), 7);
    let ci = report["ci95"].as_array().expect("ci95");
    assert!(ci[0].as_f64() <= Some(accuracy) && Some(accuracy) <= ci[1].as_f64());
    let lines = lines(&predictions);
    assert_eq!(lines.len(), 70);
    assert_eq!(lines[0]["hash"].as_str().map(str::len), Some(16));
    // Equal content gives an equal hash: evaluating again reproduces every line.
    let again = dir.path().join("p2.jsonl");
    let out = bip([
        "eval".as_ref(),
        file.as_os_str(),
        "--predictions".as_ref(),
        again.as_os_str(),
    ]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(&predictions).expect("p"),
        std::fs::read(&again).expect("p2")
    );
}

#[test]
fn eval_reads_plain_episode_files_and_names_bad_lines() {
    let dir = TempDir::new();
    let file = generate(&dir, "g.jsonl", 3, 3, &[]);
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push_str("{\"format\": \"bip-episode/1\"}\n");
    let broken = dir.write("broken.jsonl", &text);
    let out = bip(["eval".as_ref(), broken.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.jsonl:4"), "{stderr}");
    let examples = crate::util::examples();
    let out =
        bip(std::iter::once("eval".into())
            .chain(examples.iter().map(|p| p.clone().into_os_string())));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn unknowable_questions_are_refused_and_answerable_ones_answered() {
    let dir = TempDir::new();
    let file = generate(&dir, "g.jsonl", 28, 9, &["--unknowable", "0.5"]);
    let curve = dir.path().join("rc.csv");
    let out = bip([
        "eval".as_ref(),
        file.as_os_str(),
        "--json".as_ref(),
        "--abstain-below".as_ref(),
        "--risk-coverage".as_ref(),
        curve.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let abstention = &report["abstention"];
    assert_eq!(abstention["margin"], 0.02);
    assert!(abstention["unknowable"].as_u64() > Some(5), "{abstention}");
    assert_eq!(
        abstention["refusal_recall"], 1.0,
        "every unknowable question ties exactly"
    );
    assert!(
        abstention["over_refusal"].as_f64() <= Some(0.2),
        "{abstention}"
    );
    let csv = std::fs::read_to_string(&curve).expect("curve");
    assert!(csv.starts_with("margin,coverage,selective_accuracy,refusal_recall,over_refusal\n"));
    assert!(csv.lines().count() > 3);
}

#[test]
fn calibrate_saves_a_beta_that_eval_reads() {
    let dir = TempDir::new();
    let file = generate(&dir, "g.jsonl", 7, 4, &[]);
    let calibration = dir.path().join("calibration.json");
    let out = bip([
        "calibrate".as_ref(),
        file.as_os_str(),
        "--out".as_ref(),
        calibration.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fit: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&calibration).expect("saved")).expect("JSON");
    assert_eq!(fit["format"], "bip-calibration/1");
    let beta = fit["beta"].as_f64().expect("beta");
    let plot = dir.path().join("reliability.svg");
    let with_fit = bip([
        "eval".as_ref(),
        file.as_os_str(),
        "--json".as_ref(),
        "--calibration".as_ref(),
        calibration.as_os_str(),
        "--plot".as_ref(),
        plot.as_os_str(),
    ]);
    let same_beta = bip([
        "eval".as_ref(),
        file.as_os_str(),
        "--json".as_ref(),
        "--calibration-report".as_ref(),
        "--beta".as_ref(),
        beta.to_string().as_ref(),
    ]);
    let a: serde_json::Value = serde_json::from_slice(&with_fit.stdout).expect("JSON");
    let b: serde_json::Value = serde_json::from_slice(&same_beta.stdout).expect("JSON");
    assert_eq!(
        a["calibration"], b["calibration"],
        "--calibration FILE means --beta of its β"
    );
    assert!(std::fs::read_to_string(&plot)
        .expect("svg")
        .starts_with("<svg"));
    let both = bip([
        "eval".as_ref(),
        file.as_os_str(),
        "--beta".as_ref(),
        "2".as_ref(),
        "--calibration".as_ref(),
        calibration.as_os_str(),
    ]);
    assert_eq!(
        both.status.code(),
        Some(2),
        "--beta and --calibration conflict"
    );
}

#[test]
fn training_pairs_with_observations_add_only_the_record_of_what_was_seen() {
    let dir = TempDir::new();
    let pairs = |name: &str, extra: &[&str]| {
        let path = dir.path().join(name);
        let mut args = vec!["--training-pairs", path.to_str().expect("utf-8 path")];
        args.extend(extra);
        generate(&dir, &format!("{name}.episodes"), 20, 3, &args);
        lines(&path)
    };
    let plain = pairs("plain.jsonl", &[]);
    let seen = pairs("seen.jsonl", &["--prompt-observations"]);
    assert_eq!(plain.len(), seen.len());
    let mut with_record = 0;
    for (p, s) in plain.iter().zip(&seen) {
        assert_eq!(p["action"], s["action"]);
        let (p, s) = (
            p["prompt"].as_str().expect("p"),
            s["prompt"].as_str().expect("s"),
        );
        match s.find("Seen: ") {
            // The record is one line just before "Now:"; without it the prompts agree.
            Some(start) => {
                let end = start + s[start..].find(".\nNow: ").expect("ends before Now") + 2;
                assert_eq!(format!("{}{}", &s[..start], &s[end..]), p);
                with_record += 1;
            }
            None => assert_eq!(s, p),
        }
    }
    // Agents that look into containers before finding their object see something.
    assert!(
        with_record > plain.len() / 2,
        "{with_record} of {}",
        plain.len()
    );
}
