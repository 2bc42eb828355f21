//! The fuzz targets: one per reader of untrusted input.

mod cache;
mod episode;
mod gguf;
mod hitom;
mod mmtom;
mod peft;
mod safetensors;
mod theme;
mod tomi;
mod variance;
mod virtualhome;

use std::io;
use std::path::{Path, PathBuf};

/// A reader under test.
#[derive(Clone, Copy)]
pub struct Target {
    /// The name `scripts/fuzz.sh` and the corpus folders use.
    pub name: &'static str,
    /// What it reads.
    pub about: &'static str,
    /// Prepares the scratch folder once per campaign (files the target reads besides its
    /// input).
    pub setup: fn(&Scratch) -> io::Result<()>,
    /// Reads `input`; returns a signature of what happened. Must not panic.
    pub run: fn(&[u8], &Scratch) -> String,
    /// Valid inputs to start from.
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// Inputs that once broke the reader (or would have), replayed by the tests.
    pub reproducers: fn() -> Vec<(&'static str, Vec<u8>)>,
    /// Words the mutator inserts.
    pub dictionary: &'static [&'static [u8]],
    /// Mutations favour offsets below this (where the headers are).
    pub hot: usize,
}

/// Every target.
pub const TARGETS: [Target; 11] = [
    gguf::TARGET,
    safetensors::TARGET,
    peft::TARGET,
    cache::TARGET,
    episode::TARGET,
    mmtom::TARGET,
    hitom::TARGET,
    tomi::TARGET,
    virtualhome::TARGET,
    theme::TARGET,
    variance::TARGET,
];

/// The setup of a target that reads nothing besides its input.
fn no_setup(_: &Scratch) -> io::Result<()> {
    Ok(())
}

/// `read` of `input` as text; the signature "not UTF-8" for input that is not.
fn as_text(input: &[u8], read: impl FnOnce(&str) -> String) -> String {
    std::str::from_utf8(input).map_or_else(|_| "not UTF-8".to_string(), read)
}

/// The target called `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// A target's scratch folder, where inputs become files.
#[derive(Clone, Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// The folder `dir`, created if needed.
    ///
    /// # Errors
    ///
    /// Whatever creating it returns.
    pub fn new(dir: &Path) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    /// The path of `name` inside the folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Where the input being run is kept.
    pub fn current(&self) -> PathBuf {
        self.file("current")
    }

    /// Writes `input` to [`Scratch::current`].
    ///
    /// # Errors
    ///
    /// Whatever writing returns.
    pub fn save_current(&self, input: &[u8]) -> io::Result<()> {
        std::fs::write(self.current(), input)
    }
}

/// What nested-belief inference answers of a story read from a record, as an outcome.
pub(crate) fn answered(story: &bip_episodes::Story) -> String {
    let inference = bip_nested::infer_story(story, bip_nested::Trust::default());
    format!("answered {}", inference.answers.len().min(3))
}

/// The outcome of each record of a JSON Lines input (`ok` of a record read, the error's
/// signature otherwise), until about 400 bytes of them.
pub(crate) fn record_outcomes<T, E: std::error::Error>(
    records: impl Iterator<Item = (usize, Result<T, E>)>,
    scratch: &Scratch,
    ok: impl Fn(T) -> String,
) -> String {
    let mut out = String::new();
    for (_, record) in records {
        match record {
            Ok(r) => out.push_str(&ok(r)),
            Err(e) => out.push_str(&signature(&e, scratch)),
        }
        out.push_str("; ");
        if out.len() > 400 {
            break;
        }
    }
    out
}

/// A signature of `error` (its chain, numbers and the scratch path blanked): errors that
/// differ only in values count as one behaviour.
pub(crate) fn signature(error: &dyn std::error::Error, scratch: &Scratch) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    let text = text.replace(&scratch.dir.display().to_string(), "");
    let mut out = String::new();
    let mut last_digit = false;
    for c in text.chars().take(160) {
        let digit = c.is_ascii_digit();
        if !(digit && last_digit) {
            out.push(if digit { '#' } else { c });
        }
        last_digit = digit;
    }
    out
}
