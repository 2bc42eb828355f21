//! Score cache files (`bip-score-cache/1`, JSON Lines): opened as a run opens one, then
//! looked up and appended to.

use std::io;

use bip_models::ScoreCache;

use super::{signature, Scratch, Target};

/// The model every input is a cache of.
const MODEL: &str = "fuzz-model";

/// The cache target.
pub(super) const TARGET: Target = Target {
    name: "cache",
    about: "score cache files (JSONL): opened, looked up and appended to",
    setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"{\"format\": \"bip-score-cache/1\", \"model\": \"fuzz-model\"}\n",
        b"{\"t\": [1, 2, 3], \"c\": 1, \"l\": [-0.5]}\n",
        b"\"t\"",
        b"\"c\"",
        b"\"l\"",
        b"-1e308",
        b"1e39",
        b"NaN",
        b"4294967296",
        b"18446744073709551615",
        b"[]",
        b"\n",
    ],
    hot: 256,
};

/// The cache's folder in the scratch folder.
fn folder(scratch: &Scratch) -> std::path::PathBuf {
    scratch.file("cache")
}

/// Makes the cache file once, so that each input is written where a run looks for it.
fn setup(scratch: &Scratch) -> io::Result<()> {
    ScoreCache::open(&folder(scratch), MODEL)
        .map(drop)
        .map_err(|e| io::Error::other(e.to_string()))
}

fn run(input: &[u8], scratch: &Scratch) -> String {
    // The one file `setup` made (opening it here would stop at the last input's fault).
    let path = std::fs::read_dir(folder(scratch))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let Some(path) = path else {
        return "scratch: no cache file".into();
    };
    if let Err(e) = std::fs::write(&path, input) {
        return format!("scratch: {e}");
    }
    match ScoreCache::open(&folder(scratch), MODEL) {
        Ok(cache) => {
            let held = cache.len();
            let found = cache.get(&[1, 2, 3], 1).is_some();
            let added = cache.insert(&[4, 5], 1, &[-0.25]).is_ok();
            format!("opened {}, found {found}, added {added}", held.min(3))
        }
        Err(e) => signature(&e, scratch),
    }
}

fn header() -> String {
    format!("{{\"format\": \"bip-score-cache/1\", \"model\": \"{MODEL}\"}}\n")
}

/// Valid caches: a header, then records.
fn seeds() -> Vec<Vec<u8>> {
    let records = [
        "",
        "{\"t\": [1, 2, 3], \"c\": 1, \"l\": [-0.5]}\n",
        "{\"t\": [1, 2, 3], \"c\": 1, \"l\": [-0.5]}\n{\"t\": [7, 8], \"c\": 2, \"l\": [-1.0, -2.5]}\n",
    ];
    records
        .iter()
        .map(|r| format!("{}{r}", header()).into_bytes())
        .collect()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let record = |l: &str| format!("{}{{\"t\": [1, 2, 3], \"c\": 1, \"l\": [{l}]}}\n", header());
    vec![
        ("positive-log-probability.jsonl", record("0.5").into_bytes()),
        (
            "duplicate-that-disagrees.jsonl",
            format!(
                "{}{{\"t\": [1, 2, 3], \"c\": 1, \"l\": [-3.0]}}\n",
                record("-0.5")
            )
            .into_bytes(),
        ),
        (
            "counts-disagree.jsonl",
            format!("{}{{\"t\": [1], \"c\": 2, \"l\": [-1.0]}}\n", header()).into_bytes(),
        ),
        (
            "other-model.jsonl",
            b"{\"format\": \"bip-score-cache/1\", \"model\": \"other\"}\n".to_vec(),
        ),
        (
            "partial-last-line.jsonl",
            format!("{}{{\"t\": [1, 2", header()).into_bytes(),
        ),
    ]
}
