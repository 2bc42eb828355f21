//! Fuzzing bip's readers of untrusted files on stable Rust.
//!
//! A [`Target`] takes arbitrary bytes, writes them where the reader under test expects a
//! file, reads them, and returns a short *signature* of what happened (the error, with
//! numbers blanked, or how far a valid input got). It must never panic, abort, hang or
//! allocate without bound: [`campaign::run`] feeds it its seeds and then mutations of
//! them ([`mutate::Mutator`]), keeps every input that produced a signature not seen
//! before (a cheap stand-in for coverage), and counts panics (caught) and executions that
//! take longer than [`campaign::SLOW`]. Aborts and memory limits are the caller's to
//! watch: `scripts/fuzz.sh` runs campaigns under `ulimit -v` and saves the input being
//! run when the process dies.
//!
//! Targets live in [`targets`]; [`targets::find`] looks one up by name. Each target's
//! seeds are built in code and committed under `tests/fuzz/corpus/TARGET/`, with inputs
//! that once broke a reader under `tests/fuzz/crashes/TARGET/`; the test suite replays
//! both and runs a few seconds of mutations per target.
//!
//! # Example
//!
//! ```
//! use bip_fuzz::campaign::{self, Limits};
//! use bip_fuzz::targets;
//!
//! let target = targets::find("variance").unwrap();
//! let scratch = std::env::temp_dir().join(format!("bip-fuzz-doc-{}", std::process::id()));
//! let limits = Limits { runs: 200, ..Limits::default() };
//! let report = campaign::run(target, &(target.seeds)(), &limits, &scratch).unwrap();
//! assert_eq!(report.executions, 200);
//! assert!(report.crashes.is_empty());
//! # std::fs::remove_dir_all(&scratch).unwrap();
//! ```
#![deny(missing_docs)]

pub mod campaign;
pub mod mutate;
pub mod targets;

pub use targets::{Scratch, Target};
