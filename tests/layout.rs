//! The crates' boundaries, read from `Cargo.lock` (which `--locked` builds hold to): the
//! engine is inference alone, and the Python package is a library without a command line.

use std::collections::{BTreeMap, BTreeSet};

use crate::util::root;

/// Each package's dependencies (normal, build and dev) by name, as `Cargo.lock` lists them.
fn lock_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let path = root().join("Cargo.lock");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for block in text.split("[[package]]").skip(1) {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
            .unwrap_or_else(|| panic!("a [[package]] without a name in {}", path.display()));
        let dependencies = block
            .split_once("dependencies = [")
            .map(|(_, list)| list.split(']').next().unwrap_or_default())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().trim_end_matches(',').strip_prefix('"'))
            // `"name version"` where two versions of one package are locked.
            .filter_map(|l| l.split(['"', ' ']).next())
            .map(str::to_string);
        packages
            .entry(name.to_string())
            .or_default()
            .extend(dependencies);
    }
    packages
}

/// `package` and everything it depends on, directly or not.
fn closure(lock: &BTreeMap<String, BTreeSet<String>>, package: &str) -> BTreeSet<String> {
    assert!(lock.contains_key(package), "{package} is not in Cargo.lock");
    let mut seen = BTreeSet::new();
    let mut todo = vec![package.to_string()];
    while let Some(next) = todo.pop() {
        if seen.insert(next.clone()) {
            todo.extend(lock.get(&next).into_iter().flatten().cloned());
        }
    }
    seen
}

#[test]
fn the_engine_depends_on_episodes_and_four_small_crates_only() {
    let lock = lock_dependencies();
    let direct: Vec<_> = lock["bip-engine"].iter().map(String::as_str).collect();
    assert_eq!(
        direct,
        ["bip-episodes", "rayon", "serde", "serde_json", "thiserror"],
        "bip-engine's dependencies changed: the engine is inference only (docs/layout.md)"
    );
    let all = closure(&lock, "bip-engine");
    let above_the_engine = [
        "bip-lab",
        "bip-themes",
        "bip-models",
        "bip-nested",
        "bip-adapters",
    ];
    for above in above_the_engine {
        assert!(!all.contains(above), "bip-engine reaches {above}");
    }
}

#[test]
fn the_python_package_and_the_adapters_build_without_a_command_line() {
    let lock = lock_dependencies();
    for package in ["bip-python", "bip-adapters", "bip-lab"] {
        let all = closure(&lock, package);
        for cli in ["clap", "ctrlc", "bip"] {
            assert!(!all.contains(cli), "{package} reaches {cli}");
        }
    }
    // The parser can tell: the binary itself does depend on clap.
    assert!(closure(&lock, "bip").contains("clap"));
}
