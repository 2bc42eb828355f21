//! Stories (multi-agent episodes) in `bip infer`, `bip eval` and `bip calibrate`: the
//! trust flag, reading the inputs, and running nested-belief inference.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;

use bip::episodes::import::hitom::read_jsonl;
use bip::episodes::import::tomi::read_tomi;
use bip::episodes::import::ImportError;
use bip::episodes::{AnyEpisode, Episode, Story};
use bip::io::{read_any_episodes, read_input, to_jsonl};
use bip::lab::calibrate::CalibrationFile;
use bip::lab::nested::{evaluate_stories, story_report};
use bip::lab::report::{EpisodeReport, Report};
use bip::nested::{infer_story, Trust};

/// The trust of nested-belief inference.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// Stories: how much agents take what they are told, τ in [0, 1] (default: the
    /// fitted value, 0.82; or the trust of a `--calibration` file written by `bip
    /// calibrate` on stories).
    // Checked when parsed, so that a bad value is refused by every command that takes
    // the flag, whether or not its inputs turn out to be stories.
    #[arg(long, value_parser = parse_trust)]
    trust: Option<f64>,
}

/// A `--trust` value: a number in [0, 1].
fn parse_trust(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|e| format!("{e}"))?;
    Trust::new(value)
        .map(Trust::value)
        .map_err(|e| e.to_string())
}

impl TrustArgs {
    /// The trust from --trust, a nested `calibration` file, or the default.
    pub fn trust(&self, calibration: Option<&Path>) -> anyhow::Result<Trust> {
        let value = match (self.trust, calibration) {
            (Some(_), Some(_)) => bail!("give --trust or --calibration, not both"),
            (Some(t), None) => t,
            (None, Some(path)) => {
                let text = read_input(path)?;
                let file = CalibrationFile::from_json(&text)
                    .with_context(|| format!("{}", path.display()))?;
                match (file.policy.as_str(), file.trust) {
                    ("nested", Some(t)) => t,
                    _ => bail!(
                        "{}: calibrated for policy \"{}\", not for stories (nested)",
                        path.display(),
                        file.policy
                    ),
                }
            }
            (None, None) => return Ok(Trust::default()),
        };
        Trust::new(value).context("invalid --trust")
    }
}

/// The documents of `files`, split by kind: single-agent episodes and stories.
pub fn read_documents(files: &[PathBuf]) -> anyhow::Result<(Vec<Episode>, Vec<Story>)> {
    let (mut episodes, mut stories) = (Vec::new(), Vec::new());
    for path in files {
        for document in read_any_episodes(path)? {
            match document {
                AnyEpisode::Single(e) => episodes.push(e),
                AnyEpisode::Story(s) => stories.push(s),
            }
        }
    }
    if !episodes.is_empty() && !stories.is_empty() {
        bail!("the files mix single-agent episodes and stories; give them separately");
    }
    Ok((episodes, stories))
}

/// The stories of Hi-ToM files, and how many records could not be read (each named on
/// standard error with the reason).
pub fn read_hitom(files: &[PathBuf]) -> anyhow::Result<(Vec<Story>, usize)> {
    let mut stories = Vec::new();
    let mut unreadable = 0;
    for path in files {
        let text = read_input(path)?;
        let read = read_jsonl(&text).map(|(line, r)| (line, r.map(|r| r.story)));
        unreadable += keep_read(path, read, &mut stories);
    }
    Ok((stories, unreadable))
}

/// Keeps the stories `records` read from `path`, naming on standard error each record
/// that could not be read; returns how many could not.
fn keep_read(
    path: &Path,
    records: impl IntoIterator<Item = (usize, Result<Story, ImportError>)>,
    stories: &mut Vec<Story>,
) -> usize {
    let mut unreadable = 0;
    for (line, record) in records {
        match record {
            Ok(story) => stories.push(story),
            Err(e) => {
                unreadable += 1;
                let e = anyhow::Error::new(e);
                note!("bip: {}:{line}: unreadable: {e:#}", path.display());
            }
        }
    }
    unreadable
}

/// The stories of ToMi files (one per question), each file with its trace when `traces`
/// gives one per file, and how many questions could not be read (each named on standard
/// error with the reason).
pub fn read_tomi_files(
    files: &[PathBuf],
    traces: &[PathBuf],
) -> anyhow::Result<(Vec<Story>, usize)> {
    if !traces.is_empty() && traces.len() != files.len() {
        bail!(
            "{} --trace files for {} files: give one per file, in order",
            traces.len(),
            files.len()
        );
    }
    let mut stories = Vec::new();
    let mut unreadable = 0;
    for (i, path) in files.iter().enumerate() {
        let text = read_input(path)?;
        let trace = traces.get(i).map(|t| read_input(t)).transpose()?;
        let records = read_tomi(&text, trace.as_deref())
            .with_context(|| traces.get(i).unwrap_or(path).display().to_string())?;
        let read = records
            .into_iter()
            .map(|(line, r)| (line, r.map(|r| r.story)));
        unreadable += keep_read(path, read, &mut stories);
    }
    Ok((stories, unreadable))
}

/// `bip eval` on stories: the report (JSON or a table) and the predictions (JSON Lines).
pub fn eval(
    stories: &[Story],
    unreadable: Option<usize>,
    trust: Trust,
    json: bool,
) -> anyhow::Result<(String, String)> {
    let mut run = evaluate_stories(stories, trust, 0);
    run.evaluation.overall.unreadable = unreadable;
    let predictions = to_jsonl(&run.predictions)?;
    let report = if json {
        serde_json::to_string_pretty(&run.evaluation)? + "\n"
    } else {
        crate::cli::render::nested::evaluation(&run.evaluation)
    };
    Ok((report, predictions))
}

/// The reports of `bip infer` on stories read from `files`.
pub fn infer_reports(stories: &[(Story, String)], trust: Trust, abstain_below: f64) -> Report {
    let reports: Vec<EpisodeReport> = stories
        .iter()
        .map(|(story, source)| {
            let inference = infer_story(story, trust);
            story_report(story, &inference, Some(source.clone()), abstain_below)
        })
        .collect();
    Report::new(reports)
}
