//! The one format of the files that runs split into shards write (`bip variance
//! --predictions`, `bip study`): a header line saying which run wrote the file — its
//! format, its shard `k/n` and the plan that decides its records — then one JSON record
//! per line, each a scored question ([`ItemRecord`], with what the run adds) or an input
//! the run could not read. Merging shards, or resuming a run, reads the header first
//! and refuses the records of another run.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::variance::ItemRecord;
use crate::LabError;

/// The first line of a run's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunHeader<P> {
    /// The run. (Study files written before the format was shared name it `study`.)
    #[serde(alias = "study")]
    pub run: RunInfo<P>,
}

/// What one run covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo<P> {
    /// The kind of run: `bip-variance/1`, `bip-study/1`.
    pub format: String,
    /// `k/n` (`1/1` for a run over every item).
    pub shard: String,
    /// Everything of the run's plan that decides its records.
    pub plan: P,
}

impl<P> RunHeader<P> {
    /// The header of shard `shard` of a run of `format` over `plan`.
    pub fn new(format: &str, shard: String, plan: P) -> Self {
        Self {
            run: RunInfo {
                format: format.to_string(),
                shard,
                plan,
            },
        }
    }
}

/// A run's file as read: its header, and its records each with its line (from 1).
pub type RunFile<P, R> = (RunHeader<P>, Vec<(usize, R)>);

/// The header and records of one run's file of `format` (JSON Lines, blank lines
/// skipped), each record with its line (from 1); `file` names it in errors. `scored`
/// gives a record's scored question, if it is one, for the checks every scored record
/// passes.
///
/// # Errors
/// [`LabError::NoRunHeader`] when the first line is not a header of `format`,
/// [`LabError::NotARecord`] for a later line that is not a record, and
/// [`LabError::InvalidRecord`] or [`LabError::NotAnOptionLetter`] for a scored record
/// whose figures no run could have written.
pub fn parse_run_file<P: DeserializeOwned, R: DeserializeOwned>(
    file: &str,
    text: &str,
    format: &'static str,
    scored: impl Fn(&R) -> Option<&ItemRecord>,
) -> Result<RunFile<P, R>, LabError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let no_header = || LabError::NoRunHeader {
        file: file.to_string(),
        format,
    };
    let (_, first) = lines.next().ok_or_else(no_header)?;
    let header: RunHeader<P> = serde_json::from_str(first).map_err(|_| no_header())?;
    if header.run.format != format {
        return Err(no_header());
    }
    let records = lines
        .map(|(i, l)| {
            let line = i + 1;
            let record: R = serde_json::from_str(l).map_err(|source| LabError::NotARecord {
                file: file.to_string(),
                line,
                format,
                source,
            })?;
            if let Some(item) = scored(&record) {
                check_item(item).map_err(|reason| LabError::InvalidRecord {
                    file: file.to_string(),
                    line,
                    reason,
                })?;
                item.outcome().ok_or_else(|| LabError::NotAnOptionLetter {
                    file: file.to_string(),
                    line,
                })?;
            }
            Ok((line, record))
        })
        .collect::<Result<_, LabError>>()?;
    Ok((header, records))
}

/// Why a scored record's figures cannot be a run's, if they cannot: a probability
/// outside [0, 1], a posterior that does not sum to 1, a `correct` that disagrees with
/// its answer.
fn check_item(r: &ItemRecord) -> Result<(), String> {
    let probability = |p: f64| (0.0..=1.0).contains(&p);
    if let Some(p) = r.posterior.iter().find(|p| !probability(**p)) {
        return Err(format!("posterior: {p} is not a probability"));
    }
    let total: f64 = r.posterior.iter().sum();
    if r.posterior.len() < 2 || !((total - 1.0).abs() < 1e-6 || total == 0.0) {
        return Err(format!(
            "posterior: {} options summing to {total}, not two or more summing to 1",
            r.posterior.len()
        ));
    }
    if !probability(r.margin) {
        return Err(format!(
            "margin: {} is not a probability difference",
            r.margin
        ));
    }
    if let Some(outcome) = r.outcome() {
        if outcome.correct(0.0) != r.correct {
            return Err(format!(
                "correct: {} disagrees with the answer and expected",
                r.correct
            ));
        }
    }
    Ok(())
}
