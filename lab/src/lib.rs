//! The experiment lab above bip's inference engine ([`bip_engine`]): what a researcher
//! runs to measure the engine rather than to use it.
//!
//! - [`generate`]: episodes with ground truth from simulated agents, in any theme, and
//!   the training pairs an expert LM is post-trained on; [`nested::generate`] the same
//!   for multi-agent stories;
//! - [`report`]: what `bip infer` prints of an episode's answers, and the predictions
//!   a run keeps;
//! - [`evaluation`]: accuracy by question type with bootstrap intervals, calibration
//!   curves, risk–coverage;
//! - [`calibrate`]: the planner's β, a hybrid's LM weight and weak-to-strong's α fitted
//!   to held-out answers; [`nested::fit_trust`] the trust in testimony;
//! - [`variance`]: one question set told in several themes, and how far accuracy moves;
//! - [`study`]: grids of policies × themes over a stratified subset, with paired tests;
//! - [`stats`]: the exact tests and intervals they report; [`plot`]: their figures (SVG);
//! - [`rng`]: the seeded generator every draw comes from.
#![deny(missing_docs)]

pub mod calibrate;
mod error;
pub mod evaluation;
pub mod generate;
pub mod nested;
mod observer;
pub mod plot;
pub mod report;
pub mod rng;
pub mod run_file;
pub mod stats;
pub mod study;
pub mod variance;

pub use error::LabError;
pub use observer::RunObserver;
