//! ToMi on the command line: `bip import tomi` and `bip eval --format tomi` on the
//! development split, on stories written for these tests in other words
//! (`tests/data/tomi-own.txt`), and on the development split reworded.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::util::{bip, json, root, TempDir};

/// The development split and its trace, beside the checkout.
fn dev() -> (PathBuf, PathBuf) {
    let dir = root().join("../shared/data/tomi");
    let (text, trace) = (dir.join("dev.txt"), dir.join("dev.trace"));
    assert!(
        text.is_file() && trace.is_file(),
        "{} is missing: ToMi's development split must sit in ../shared beside the checkout",
        text.display()
    );
    (text, trace)
}

fn own() -> PathBuf {
    root().join("tests/data/tomi-own.txt")
}

/// `bip eval --format tomi FILE [--trace TRACE] --json --predictions P`: the report, and
/// each question's answer by line.
fn eval(
    file: &std::path::Path,
    trace: Option<&std::path::Path>,
) -> (serde_json::Value, HashMap<String, serde_json::Value>) {
    let dir = TempDir::new();
    let predictions = dir.path().join("p.jsonl");
    let mut args = vec![
        "eval".into(),
        "--format".into(),
        "tomi".into(),
        file.as_os_str().to_owned(),
        "--json".into(),
        "--predictions".into(),
        predictions.as_os_str().to_owned(),
    ];
    if let Some(t) = trace {
        args.extend(["--trace".into(), t.as_os_str().to_owned()]);
    }
    let report = json(&bip(args));
    let answers = std::fs::read_to_string(&predictions)
        .expect("predictions")
        .lines()
        .map(|l| {
            let p: serde_json::Value = serde_json::from_str(l).expect("a prediction");
            (
                p["episode"].as_str().unwrap_or_default().to_string(),
                p["answer"].clone(),
            )
        })
        .collect();
    (report, answers)
}

#[test]
fn dev_is_read_whole_and_every_label_that_follows_the_logic_is_answered() {
    let (text, trace) = dev();
    let (report, _) = eval(&text, Some(&trace));
    assert_eq!(report["unreadable"], 0);
    assert_eq!(report["n"], 5994);
    let by = &report["by"];
    assert_eq!(by["logic"]["follows"]["accuracy"], 1.0, "{by}");
    // Labels that depart from Sally–Anne logic are all second-order ones, and bip does
    // not imitate them.
    assert_eq!(by["logic"]["departs"]["correct"], 0, "{by}");
    for question in [
        "first_order_0_no_tom",
        "first_order_1_no_tom",
        "first_order_1_tom",
        "second_order_0_tom",
        "second_order_1_tom",
        "reality",
        "memory",
    ] {
        assert_eq!(
            by["question"][question]["accuracy"], 1.0,
            "{question}: {by}"
        );
    }
    assert_eq!(by["story"]["false_belief"]["n"], 1998);
}

#[test]
fn stories_written_in_other_words_are_read_and_answered() {
    let (report, answers) = eval(&own(), None);
    assert_eq!(report["unreadable"], 0);
    assert!(report["n"].as_u64() >= Some(100), "{report}");
    assert_eq!(report["correct"], report["n"], "{report}");
    assert_eq!(
        answers.len() as u64,
        report["n"].as_u64().unwrap_or_default()
    );
}

/// Dev reworded line by line: other names (per story), other verbs, a pronoun for an
/// agent the sentence before named alone, other question wordings.
fn reword(text: &str) -> String {
    const NAMES: [&str; 8] = [
        "Priya", "Tomasz", "Kofi", "Ines", "Wen", "Hugo", "Marta", "Dmitri",
    ];
    let mut out = String::new();
    let mut names: Vec<String> = Vec::new();
    let mut last_named: Vec<String> = Vec::new();
    for line in text.lines() {
        let (number, rest) = line.split_once(' ').expect("numbered");
        if number == "1" {
            names.clear();
            last_named.clear();
        }
        let mut words: Vec<String> = Vec::new();
        let mut named = Vec::new();
        for word in rest.split(' ') {
            let bare = word.trim_end_matches(['.', '?']);
            // A name as bip reads one: a capital, then lower case ("TV_room" is none).
            let mut chars = bare.chars();
            let is_name = chars.next().is_some_and(char::is_uppercase)
                && bare.len() > 1
                && chars.all(char::is_lowercase)
                && !["The", "Where"].contains(&bare);
            if is_name {
                let k = names.iter().position(|n| n == bare).unwrap_or_else(|| {
                    names.push(bare.to_string());
                    names.len() - 1
                });
                assert!(k < NAMES.len(), "a story of more agents than new names");
                named.push(bare.to_string());
                words.push(word.replacen(bare, NAMES[k], 1));
            } else {
                words.push(word.to_string());
            }
        }
        let question = rest.contains('\t');
        let starts_named = named.len() == 1 && rest.starts_with(named[0].as_str());
        if !question && starts_named && last_named == named {
            words[0] = "She".to_string();
        }
        let mut sentence = words.join(" ");
        if !named.is_empty() && !question {
            last_named = named;
        }
        for (from, to) in [
            (" entered the ", " walked into the "),
            (" exited the ", " left the "),
            (" moved the ", " put the "),
            (" loves the ", " adores the "),
            (" look for the ", " search for the "),
            (" think that ", " believe that "),
            (" at the beginning?", " at the start?"),
            (" really?", " now?"),
        ] {
            sentence = sentence.replace(from, to);
        }
        if sentence.contains(" put the ") {
            sentence = sentence.replacen(" to the ", " into the ", 1);
        }
        out.push_str(&format!("{number} {sentence}\n"));
    }
    out
}

#[test]
fn dev_reworded_is_answered_the_same_question_by_question() {
    let (text, _) = dev();
    let original = std::fs::read_to_string(&text).expect("dev");
    let reworded = reword(&original);
    assert!(reworded.contains("She ") && reworded.contains(" walked into the "));
    assert!(!reworded.contains(" exited the "));
    let dir = TempDir::new();
    let file = dir.write("reworded.txt", &reworded);
    let (report, answers) = eval(&file, None);
    assert_eq!(report["unreadable"], 0);
    let (_, before) = eval(&text, None);
    assert_eq!(answers.len(), before.len());
    let differing: Vec<&String> = before
        .iter()
        .filter(|(id, answer)| answers.get(*id) != Some(answer))
        .map(|(id, _)| id)
        .collect();
    assert!(
        differing.is_empty(),
        "{} differ, e.g. {:?}",
        differing.len(),
        differing.first()
    );
}

#[test]
fn import_writes_one_story_per_question_labelled_by_the_trace() {
    let dir = TempDir::new();
    let input = dir.write(
        "two.txt",
        "1 Ann entered the den.\n2 Bo entered the den.\n3 The pear is in the box.\n\
         4 Ann exited the den.\n5 Bo moved the pear to the crate.\n\
         6 Where will Ann look for the pear?\tbox\t1\n\
         1 Ann entered the den.\n2 The pear is in the box.\n3 Where is the pear really?\tbox\t1\n",
    );
    let trace = dir.write(
        "two.trace",
        "a,b,first_order_0_tom,false_belief\nc,reality,true_belief\n",
    );
    let out = dir.path().join("stories");
    let import = |more: &[&str]| {
        let mut args = vec![
            "import".as_ref(),
            "tomi".as_ref(),
            input.as_os_str(),
            "--trace".as_ref(),
            trace.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        args.extend(more.iter().map(std::ffi::OsStr::new));
        bip(args)
    };
    let run = import(&[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        run.status.code(),
        Some(2),
        "one container is no choice: {stderr}"
    );
    assert!(
        stderr.contains("two.txt:9") && stderr.contains("only container"),
        "{stderr}"
    );
    assert!(
        !out.exists(),
        "nothing written when a question is unreadable"
    );
    let run = import(&["--keep-going"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let story: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tomi-6.json")).expect("tomi-6"))
            .expect("JSON");
    assert_eq!(story["tags"]["question"], "first_order_0_tom");
    assert_eq!(story["tags"]["story"], "false_belief");
    assert_eq!(story["tags"]["logic"], "follows");
    assert_eq!(story["questions"][0]["expected"], "a");
    let infer = json(&bip([
        "infer".as_ref(),
        out.join("tomi-6.json").as_os_str(),
        "--json".as_ref(),
    ]));
    assert_eq!(infer["episodes"][0]["questions"][0]["answer"], "a");
}

#[test]
fn a_trace_that_does_not_match_is_refused_before_anything_is_read() {
    let dir = TempDir::new();
    let trace = dir.write("short.trace", "a,reality,true_belief\n");
    let run = bip([
        "eval".as_ref(),
        "--format".as_ref(),
        "tomi".as_ref(),
        own().as_os_str(),
        "--trace".as_ref(),
        trace.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("short.trace") && stderr.contains("1 lines for"),
        "{stderr}"
    );
}
