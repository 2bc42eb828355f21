//! `bip import`: episodes written in other formats, converted to `bip-episode/1`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use bip::episodes::import::mmtom::{read_jsonl, MmtomRecord};
use bip::io::write_atomically;

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
}

/// Runs `bip import`.
pub fn run(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    match &args.format {
        Format::Mmtom(args) => mmtom(args),
        Format::Virtualhome(args) => super::virtualhome::import_run(args),
    }
}

fn mmtom(args: &MmtomArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut records = Vec::new();
    let mut failed = 0;
    for (line, result) in read_jsonl(&text) {
        match result {
            Ok(record) => records.push(record),
            Err(e) => {
                failed += 1;
                eprintln!(
                    "bip: {}:{line}: {:#}",
                    args.file.display(),
                    anyhow::Error::new(e)
                );
            }
        }
    }
    let total = records.len() + failed;
    if failed > 0 && !args.keep_going {
        eprintln!("bip: read {} of {total} questions, {failed} failed; nothing written (use --keep-going to write the rest)", records.len());
        return Ok(ExitCode::from(1));
    }
    write(&records, &args.out)?;
    eprintln!(
        "bip: read {} of {total} questions, {failed} failed; wrote {}",
        records.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
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
