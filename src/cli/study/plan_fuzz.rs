//! Study plans fuzzed: the plan reader lives in the command line (a cell's flags are
//! parsed by `bip eval`'s own definitions), so its campaign runs here, on `bip-fuzz`'s
//! mutation engine, rather than in the `fuzz/` crate. The test replays the shipped plans
//! and the reproducers below, then mutates for a few seconds; `BIP_FUZZ_RUNS=N` (and
//! `BIP_FUZZ_SECONDS`) runs a long campaign:
//!
//! ```sh
//! BIP_FUZZ_RUNS=1000000 BIP_FUZZ_SECONDS=3600 TMPDIR=/dev/shm \
//!     cargo test --release -p bip --bin bip study_plan_fuzz -- --nocapture
//! ```

use std::time::Duration;

use bip_fuzz::campaign::{self, Limits};
use bip_fuzz::{Scratch, Target};

use crate::cli::study::plan::Plan;

const TARGET: Target = Target {
    name: "study-plan",
    about: "bip study plans (TOML): read and checked, each cell's flags parsed",
    setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"[[policy]]\n",
        b"name = \"",
        b"args = [",
        b"\"--policy\", ",
        b"\"hybrid\"",
        b"\"--beta\", \"1e308\"",
        b"\"--calibration\", \"",
        b"group = \"",
        b"themes = \"all\"\n",
        b"themes = [\"egypt\", \"egypt\"]\n",
        b"theme_files = [\"",
        b"[subset]\nper_type = ",
        b"18446744073709551615",
        b"\n",
    ],
    hot: 1 << 12,
};

fn setup(_: &Scratch) -> std::io::Result<()> {
    Ok(())
}

fn run(input: &[u8], scratch: &Scratch) -> String {
    let path = scratch.file("plan.toml");
    if let Err(e) = std::fs::write(&path, input) {
        return format!("scratch: {e}");
    }
    match Plan::load(&path, &[]) {
        Ok(plan) => format!(
            "{} cells, {} themes",
            plan.cells.len().min(3),
            plan.themes.len()
        ),
        Err(e) => {
            // The chain, numbers blanked: errors that differ only in values are one.
            let text = format!("{e:#}").replace(&scratch.file("").display().to_string(), "");
            text.chars()
                .take(120)
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect()
        }
    }
}

fn seeds() -> Vec<Vec<u8>> {
    [
        include_str!("../../../examples/study.toml"),
        include_str!("../../../examples/w2s-study.toml"),
        include_str!("../../../examples/w2s-study-themes.toml"),
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let plan = |rest: &str| {
        format!("questions = \"q.jsonl\"\nout = \"runs\"\n{rest}\n[[policy]]\nname = \"p\"\n")
            .into_bytes()
    };
    vec![
        (
            "no-policy",
            b"questions = \"q.jsonl\"\nout = \"runs\"\n".to_vec(),
        ),
        ("themes-twice", plan("themes = [\"egypt\", \"egypt\"]")),
        (
            "subset-huge",
            plan("[subset]\nper_type = 18446744073709551615"),
        ),
        ("theme-file-itself", plan("theme_files = [\"plan.toml\"]")),
    ]
}

#[test]
fn study_plans_survive_the_shipped_plans_reproducers_and_mutations() {
    let number = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let scratch = std::env::temp_dir().join(format!("bip-fuzz-study-plan-{}", std::process::id()));
    let limits = Limits {
        runs: number("BIP_FUZZ_RUNS", 3_000),
        time: Duration::from_secs(number("BIP_FUZZ_SECONDS", 3)),
        seed: number("BIP_FUZZ_SEED", 1),
        ..Limits::default()
    };
    let replay: Vec<Vec<u8>> = seeds()
        .into_iter()
        .chain(reproducers().into_iter().map(|(_, r)| r))
        .collect();
    let report = campaign::run(&TARGET, &replay, &limits, &scratch).expect("a campaign");
    std::fs::remove_dir_all(&scratch).expect("scratch removed");
    eprintln!("fuzz study-plan: {report}");
    assert!(report.executions >= replay.len() as u64, "{report}");
    assert!(report.crashes.is_empty(), "{:?}", report.crashes);
    assert!(report.slow.is_empty(), "{:?}", report.slow);
}
