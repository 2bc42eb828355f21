//! Every fuzz target: its committed corpus and reproducers replayed, then a few seconds
//! of mutations, with no panic and no slow execution. (The long campaigns run from
//! `scripts/fuzz.sh`.)

use std::path::{Path, PathBuf};
use std::time::Duration;

use bip_fuzz::campaign::{self, Limits};
use bip_fuzz::targets::TARGETS;

/// `tests/fuzz/` at the repository's root.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz")
}

/// Every file under `dir`, sorted.
fn files(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("an entry").path()).collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("readable"))
        .collect()
}

#[test]
fn every_target_survives_its_corpus_reproducers_and_a_short_campaign() {
    for target in &TARGETS {
        let corpus = files(&fuzz_dir().join("corpus").join(target.name));
        let crashes = files(&fuzz_dir().join("crashes").join(target.name));
        assert!(!corpus.is_empty(), "{}: no committed corpus", target.name);
        assert_eq!(
            crashes.len(),
            (target.reproducers)().len(),
            "{}: committed reproducers differ from the target's (run `bip-fuzz seeds`)",
            target.name
        );
        let replay: Vec<Vec<u8>> = corpus.iter().chain(&crashes).cloned().collect();
        let scratch = std::env::temp_dir().join(format!(
            "bip-fuzz-smoke-{}-{}",
            std::process::id(),
            target.name
        ));
        let limits = Limits {
            runs: 3_000,
            time: Duration::from_secs(3),
            seed: 1,
            ..Limits::default()
        };
        let report = campaign::run(target, &replay, &limits, &scratch).expect("a campaign");
        std::fs::remove_dir_all(&scratch).expect("scratch removed");
        assert!(
            report.executions >= replay.len() as u64,
            "{}: {report}",
            target.name
        );
        assert!(
            report.crashes.is_empty(),
            "{}: {:?}",
            target.name,
            report.crashes
        );
        assert!(report.slow.is_empty(), "{}: {:?}", target.name, report.slow);
    }
}
