//! `bip import`: episodes written in other formats, converted to `bip-episode/1`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::fmt::Write as _;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use serde::Serialize;

use bip::episodes::import::mmtom::{read_jsonl, MmtomRecord, Note};
use bip::io::{to_jsonl, write_atomically};

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
    /// Hi-ToM records, one JSON object a line (`story`, `question`, `choices`, `answer`),
    /// each read into one story (the multi-agent kind of episode).
    Hitom(super::import_hitom::HitomArgs),
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
pub fn run(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    match &args.format {
        Format::Mmtom(args) => mmtom(args),
        Format::Virtualhome(args) => super::virtualhome::import_run(args),
        Format::Hitom(args) => super::import_hitom::run(args),
    }
}

fn mmtom(args: &MmtomArgs) -> anyhow::Result<ExitCode> {
    if args.report.as_deref() == Some(args.out.as_path()) {
        bail!(
            "--report and --out name the same file, {}",
            args.out.display()
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut records = Vec::new();
    let mut report = Vec::new();
    let mut failed = 0;
    for (line, result) in read_jsonl(&text) {
        match result {
            Ok(record) => {
                report.push(ReportLine {
                    line,
                    id: Some(record.episode.id().to_string()),
                    notes: record.notes.clone(),
                    error: None,
                });
                records.push(record);
            }
            Err(e) => {
                failed += 1;
                // The chain, each cause once: what the terminal and the report say.
                let why = format!("{:#}", anyhow::Error::new(e));
                eprintln!("bip: {}:{line}: {why}", args.file.display());
                report.push(ReportLine {
                    line,
                    id: None,
                    notes: Vec::new(),
                    error: Some(why),
                });
            }
        }
    }
    let total = records.len() + failed;
    if failed > 0 && !args.keep_going {
        eprintln!("bip: read {} of {total} questions, {failed} failed; nothing written (use --keep-going to write the rest)", records.len());
        if let Some(path) = &args.report {
            write_report(&report, path)?;
        }
        return Ok(ExitCode::from(1));
    }
    write(&records, &args.out)?;
    if let Some(path) = &args.report {
        write_report(&report, path)?;
    }
    let noted = report.iter().filter(|r| !r.notes.is_empty()).count();
    eprintln!(
        "bip: read {} of {total} questions, {failed} failed, {noted} with assumptions noted; wrote {}",
        records.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// What the reader made of one line of the input.
#[derive(Debug, Serialize)]
pub(super) struct ReportLine {
    /// The line, from 1.
    pub line: usize,
    /// The episode's id, when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Every assumption made.
    pub notes: Vec<Note>,
    /// Why the line could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Writes the report: JSON Lines for a `.jsonl` path, text otherwise.
pub(super) fn write_report(report: &[ReportLine], path: &Path) -> anyhow::Result<()> {
    let text = if path.extension().is_some_and(|e| e == "jsonl") {
        to_jsonl(report).context("serialising the report")?
    } else {
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
        text
    };
    write_atomically(path, text.as_bytes())?;
    Ok(())
}

/// Writes records as one JSONL file or as one file per episode in a folder.
fn write(records: &[MmtomRecord], out: &Path) -> anyhow::Result<()> {
    if out.extension().is_some_and(|e| e == "jsonl") {
        let mut text = String::new();
        for record in records {
            text.push_str(&serde_json::to_string(&record.file).context("serialising an episode")?);
            text.push('\n');
        }
        write_atomically(out, text.as_bytes())?;
        return Ok(());
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for record in records {
        let mut text =
            serde_json::to_string_pretty(&record.file).context("serialising an episode")?;
        text.push('\n');
        write_atomically(
            &out.join(format!("{}.json", record.episode.id())),
            text.as_bytes(),
        )?;
    }
    Ok(())
}
