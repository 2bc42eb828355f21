//! `bip import`: episodes written in other formats, converted to `bip-episode/1`.

pub(super) mod hitom;
pub(super) mod output;
pub(super) mod tomi;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use bip::episodes::import::mmtom::{read_jsonl, MmtomRecord};
use bip::io::read_input;

use crate::cli::import::output::{ImportOutputs, ReportLine};
use crate::cli::output::Output;

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
    Virtualhome(crate::cli::virtualhome::VirtualhomeArgs),
    /// Hi-ToM records, one JSON object a line (`story`, `question`, `choices`, `answer`),
    /// each read into one story (the multi-agent kind of episode).
    Hitom(crate::cli::import::hitom::HitomArgs),
    /// ToMi stories and questions in the bAbI layout (numbered lines, a question line
    /// holding the answer after a tab), each question read into one story.
    Tomi(crate::cli::import::tomi::TomiArgs),
}

/// Arguments of `bip import mmtom`.
// The flags of `bip import hitom` too, each with help in this format's words.
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
        Format::Virtualhome(args) => crate::cli::virtualhome::import_run(args, out),
        Format::Hitom(args) => crate::cli::import::hitom::run(args, out),
        Format::Tomi(args) => crate::cli::import::tomi::run(args, out),
    }
}

fn mmtom(args: &MmtomArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = ImportOutputs::check(&args.file, &args.out, args.report.as_deref())?;
    let text = read_input(&args.file)?;
    let (records, report) = read(&text, &args.file);
    let failed = report.len() - records.len();
    let total = report.len();
    outputs.put_report(&report)?;
    if failed > 0 && !args.keep_going {
        note!("bip: read {} of {total} questions, {failed} failed; nothing written (use --keep-going to write the rest)", records.len());
        outputs.commit(out)?;
        return Ok(ExitCode::from(2));
    }
    outputs.put_documents(
        records
            .iter()
            .map(|r| (r.episode.id().to_string(), &r.file)),
    )?;
    outputs.commit(out)?;
    let noted = report.iter().filter(|r| !r.notes.is_empty()).count();
    note!(
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
                note!("bip: {}:{line}: {why}", file.display());
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
