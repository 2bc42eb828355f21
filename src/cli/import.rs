//! `bip import`: episodes written in other formats, converted to `bip-episode/1`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::fmt::Write as _;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use serde::Serialize;

use bip::episodes::import::mmtom::{read_jsonl, MmtomRecord, Note};
use bip::io::{read_input, to_jsonl, Destination, OutputSet};

use super::output::Output;

/// Arguments of `bip import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    format: Format,
}

/// The formats `bip import` reads.
#[derive(Debug, Subcommand)]
enum Format {
    /// MMToM-QA text questions, one JSON object a line (`question`, `answer`,
    /// `question_type`, `episode`), each read into one episode.
    Mmtom(MmtomArgs),
    /// A VirtualHome scene graph and, optionally, a program bound to it, read into one
    /// episode; every choice the importer makes is reported.
    Virtualhome(super::virtualhome::VirtualhomeArgs),
}

/// Arguments of `bip import mmtom`.
#[derive(Debug, Args)]
struct MmtomArgs {
    /// The questions (JSONL).
    file: PathBuf,
    /// Where to write: a `.jsonl` file (one episode a line) or a folder (one
    /// `<episode id>.json` per question, e.g. `mmtom-6-1.json`).
    #[arg(long, short)]
    out: PathBuf,
    /// Write the questions that were read even if some were not (and exit 0).
    #[arg(long)]
    keep_going: bool,
    /// Also write every assumption the reader made, per question (which of two coffee
    /// tables, how many "several apples" are, which verb a place in a list inherits),
    /// and the reason for each question it could not read: JSON Lines when the file
    /// ends in `.jsonl`, text otherwise.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// Runs `bip import`.
pub fn run(args: &ImportArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    match &args.format {
        Format::Mmtom(args) => mmtom(args, out),
        Format::Virtualhome(args) => super::virtualhome::import_run(args, out),
    }
}

fn mmtom(args: &MmtomArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = OutputSet::new();
    // A stream (`-`, a pipe, a device) takes the episodes as JSON Lines too.
    let stream = !matches!(Destination::of(&args.out), Ok(Destination::Replace(_)));
    let jsonl = args.out.extension().is_some_and(|e| e == "jsonl") || stream && !args.out.is_dir();
    let out_file = jsonl.then(|| outputs.add("--out", &args.out)).transpose()?;
    let report_slot = args
        .report
        .as_ref()
        .map(|p| outputs.add("--report", p))
        .transpose()?;
    if !jsonl
        && !args.out.is_dir()
        && args
            .out
            .parent()
            .is_some_and(|p| !p.as_os_str().is_empty() && !p.is_dir())
    {
        bail!(
            "--out {}: the folder above it does not exist",
            args.out.display()
        );
    }
    let text = read_input(&args.file)?;
    let (records, report) = read(&text, &args.file);
    let failed = report.len() - records.len();
    let total = report.len();
    if let Some(slot) = report_slot {
        outputs.put(slot, report_text(&report, args.report.as_deref())?);
    }
    if failed > 0 && !args.keep_going {
        eprintln!("bip: read {} of {total} questions, {failed} failed; nothing written (use --keep-going to write the rest)", records.len());
        out.write(&outputs.commit()?)?;
        return Ok(ExitCode::from(1));
    }
    match out_file {
        Some(slot) => {
            let files = records.iter().map(|r| &r.file);
            outputs.put(slot, to_jsonl(files).context("serialising an episode")?);
        }
        None => {
            std::fs::create_dir_all(&args.out)
                .with_context(|| format!("--out {}", args.out.display()))?;
            for record in &records {
                let path = args.out.join(format!("{}.json", record.episode.id()));
                let slot = outputs.add("--out", &path)?;
                outputs.put(slot, serde_json::to_string_pretty(&record.file)? + "\n");
            }
        }
    }
    out.write(&outputs.commit()?)?;
    let noted = report.iter().filter(|r| !r.notes.is_empty()).count();
    eprintln!(
        "bip: read {} of {total} questions, {failed} failed, {noted} with assumptions noted; wrote {}",
        records.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The records read from `text`, and a report line for every question.
fn read(text: &str, file: &Path) -> (Vec<MmtomRecord>, Vec<ReportLine>) {
    let mut records = Vec::new();
    let mut report = Vec::new();
    for (line, result) in read_jsonl(text) {
        match result {
            Ok(record) => {
                let id = Some(record.episode.id().to_string());
                report.push(ReportLine {
                    line,
                    id,
                    notes: record.notes.clone(),
                    error: None,
                });
                records.push(record);
            }
            Err(e) => {
                // The chain, each cause once: what the terminal and the report say.
                let why = format!("{:#}", anyhow::Error::new(e));
                eprintln!("bip: {}:{line}: {why}", file.display());
                report.push(ReportLine {
                    line,
                    id: None,
                    notes: Vec::new(),
                    error: Some(why),
                });
            }
        }
    }
    (records, report)
}

/// What the reader made of one line of the input.
#[derive(Debug, Serialize)]
struct ReportLine {
    /// The line, from 1.
    line: usize,
    /// The episode's id, when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    /// Every assumption made.
    notes: Vec<Note>,
    /// Why the line could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The report: JSON Lines for a `.jsonl` path, text otherwise.
fn report_text(report: &[ReportLine], path: Option<&Path>) -> anyhow::Result<String> {
    if path.is_some_and(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        return to_jsonl(report).context("serialising the report");
    }
    let mut text = String::new();
    for r in report {
        let name = r.id.as_deref().unwrap_or("(not read)");
        let _ = writeln!(text, "line {}: {name}", r.line);
        if let Some(error) = &r.error {
            let _ = writeln!(text, "  error: {error}");
        }
        for note in &r.notes {
            let _ = writeln!(
                text,
                "  {}: \"{}\": {}",
                note.part, note.sentence, note.reading
            );
        }
    }
    Ok(text)
}
