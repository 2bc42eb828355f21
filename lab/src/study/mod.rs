//! Comparison grids: several policies × several themes × one set of questions, paired
//! by item (`bip study`).
//!
//! A study lays its questions out once ([`StudyLayout`]: every item read in every theme,
//! optionally a [`stratified`] subset), answers each (policy, theme, item) as a unit
//! ([`StudyRecord::of_episode`]), keeps one [`StudyRecord`] per scored question, and
//! reports from the records alone ([`StudyReport`]), so that a run resumed from its
//! records, or merged from shards, reports as one uninterrupted run would.

mod layout;
mod pairs;
mod record;
mod replicates;
mod report;
mod spread;
mod subset;

pub use layout::{StudyItem, StudyLayout, Unit};
pub use pairs::{PolicyPair, ThemePairs};
pub use record::{parse_results, StudyHeader, StudyRecord, STUDY_FORMAT};
pub use replicates::{MeanSd, ReplicateReport, ReplicateTheme};
pub use report::{PolicyReport, StudyReport};
pub use spread::range_ci95;
pub use subset::{stratified, Candidate, Subset};
