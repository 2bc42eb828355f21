//! Experiments over nested beliefs: [`story_report`] reports a story's answers as `bip
//! infer` prints them, [`evaluate_stories`] scores the answers to many stories'
//! questions, [`fit_trust`] fits the one parameter, the
//! [`Trust`](bip_nested::Trust) that weighs testimony, and [`generate`] makes
//! stories with ground truth from simulated agents.

mod calibrate;
mod evaluate;
pub mod generate;
mod report;

pub use crate::evaluation::GroupAccuracy;
pub use calibrate::{fit_trust, trust_log_likelihood};
pub use evaluate::{evaluate_stories, StoryEvaluation, StoryRun};
pub use report::{story_predictions, story_report};
