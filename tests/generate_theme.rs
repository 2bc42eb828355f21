//! `bip generate --theme`: generated episodes and training pairs told in themes.

use std::path::{Path, PathBuf};

use serde_json::Value;

use bip::episodes::json::EpisodeFile;
use bip::lab::generate::theme_index;
use bip::themes::{builtins, Theme};

use crate::util::{bip, root, TempDir};

/// Base words every built-in theme renames, which a themed generated corpus never uses.
const BASE_WORDS: [&str; 8] = [
    "kitchen",
    "living room",
    "living_room",
    "fridge",
    "cabinet",
    "wine",
    "apple",
    "remote",
];

/// Runs `bip generate --n N --seed S` with `extra`, writing `FILE.jsonl` and
/// `FILE-pairs.jsonl` in `dir`; returns both files' text.
fn generate(dir: &TempDir, file: &str, n: usize, extra: &[&str]) -> (String, String) {
    let episodes = dir.path().join(format!("{file}.jsonl"));
    let pairs = dir.path().join(format!("{file}-pairs.jsonl"));
    let mut args: Vec<String> = ["generate", "--n", &n.to_string(), "--seed", "7"]
        .map(String::from)
        .to_vec();
    for (flag, path) in [("--out", &episodes), ("--training-pairs", &pairs)] {
        args.extend([flag.to_string(), path.display().to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = bip(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (read(&episodes), read(&pairs))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("written")
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}

/// The plain episode a themed line gives back, as JSON.
fn inverted(line: &str, theme: &Theme) -> Value {
    let file: EpisodeFile = serde_json::from_str(line).expect("an episode a line");
    serde_json::to_value(theme.invert_episode(&file)).expect("serialises")
}

/// A plain generated line as JSON, to compare with the inverse of its themed telling.
fn canonical(line: &str) -> Value {
    serde_json::from_str(line).expect("JSON")
}

#[test]
fn the_default_and_apartment_give_todays_output_byte_for_byte() {
    let dir = TempDir::new();
    let recorded = (
        read(&fixture("generated-seed7.jsonl")),
        read(&fixture("generated-seed7-pairs.jsonl")),
    );
    assert_eq!(generate(&dir, "plain", 3, &[]), recorded);
    assert_eq!(
        generate(&dir, "apartment", 3, &["--theme", "apartment"]),
        recorded
    );
}

#[test]
fn a_theme_renames_every_word_and_inverts_to_the_plain_episodes() {
    let dir = TempDir::new();
    let (plain, plain_pairs) = generate(&dir, "plain", 14, &[]);
    let (west, west_pairs) = generate(&dir, "west", 14, &["--theme", "wild-west"]);
    assert_eq!(
        generate(&dir, "again", 14, &["--theme", "wild-west"]).0,
        west
    );
    for word in ["cookhouse", "saloon", "icebox", "chuck_box_1"] {
        assert!(west.contains(word), "no {word}");
    }
    for word in BASE_WORDS {
        assert!(
            plain.contains(word) || plain_pairs.contains(word),
            "no {word} to rename"
        );
        assert!(!west.contains(word), "{word} left in {west}");
    }
    let theme = Theme::builtin("wild-west").expect("built in");
    for (themed, plain) in west.lines().zip(plain.lines()) {
        assert_eq!(inverted(themed, &theme), canonical(plain));
    }
    // The pairs are the plain pairs in the theme's words, one for one.
    assert_eq!(west_pairs.lines().count(), plain_pairs.lines().count());
    for line in west_pairs.lines() {
        let pair: Value = serde_json::from_str(line).expect("a pair a line");
        let (prompt, action) = (pair["prompt"].as_str(), pair["action"].as_str());
        let (prompt, action) = (prompt.expect("prompt"), action.expect("action"));
        assert!(prompt.contains("Rooms:\n- cookhouse: icebox"), "{prompt}");
        assert!(prompt.contains("Goal: get the "), "{prompt}");
        for word in BASE_WORDS {
            assert!(
                !prompt.contains(word) && !action.contains(word),
                "{word}: {line}"
            );
        }
    }
}

#[test]
fn all_takes_the_builtin_themes_in_turn_and_each_line_inverts_with_its_own() {
    let dir = TempDir::new();
    let (plain, _) = generate(&dir, "plain", 12, &[]);
    let (all, pairs) = generate(&dir, "all", 12, &["--theme", "all"]);
    assert_eq!(
        generate(&dir, "again", 12, &["--theme", "all"]),
        (all.clone(), pairs)
    );
    let themes = builtins();
    for (i, (themed, plain)) in all.lines().zip(plain.lines()).enumerate() {
        let theme = &themes[i % 6];
        assert_eq!(theme_index(i, 6, 7), i % 6);
        let episode: Value = serde_json::from_str(themed).expect("JSON");
        assert_eq!(
            episode["world"]["rooms"][0],
            theme.apply_id("kitchen"),
            "{i}"
        );
        assert_eq!(inverted(themed, theme), canonical(plain), "{i}");
    }
}

#[test]
fn a_list_takes_user_theme_files_and_unknown_names_list_the_known() {
    let dir = TempDir::new();
    let den = dir.write(
        "den.json",
        r#"{"format": "bip-theme/1", "id": "den", "name": "Den", "world": "den", "furniture": {"fridge": "ice pit"}}"#,
    );
    let den = den.display().to_string();
    let (plain, _) = generate(&dir, "plain", 2, &[]);
    let extra = ["--theme", "apartment,den", "--theme-file", &den];
    let (mixed, _) = generate(&dir, "mixed", 2, &extra);
    let lines: Vec<&str> = mixed.lines().collect();
    assert_eq!(lines[0], plain.lines().next().expect("line"));
    assert!(lines[1].contains(r#""id":"ice_pit""#) && !lines[1].contains("fridge"));
    let x = dir.path().join("x.jsonl").display().to_string();
    let out = bip(["generate", "--n", "1", "--out", &x, "--theme", "mars,den"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(r#"no theme "mars""#), "{err}");
    assert!(
        err.contains("apartment, andersen, egypt, space, wild-west, castle"),
        "{err}"
    );
    let nested = [
        "generate", "--kind", "nested", "--n", "1", "-o", &x, "--theme", "egypt",
    ];
    assert_eq!(bip(nested).status.code(), Some(2));
}
