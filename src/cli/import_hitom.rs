//! `bip import hitom`: Hi-ToM records read into stories (`bip-episode/1`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::episodes::import::hitom::{read_jsonl, HitomRecord};
use bip::io::write_atomically;

use super::import::{write_report, ReportLine};

/// Arguments of `bip import hitom`.
#[derive(Debug, Args)]
pub struct HitomArgs {
    /// The records (JSONL).
    file: PathBuf,
    /// Where to write: a `.jsonl` file (one story a line) or a folder (one
    /// `<story id>.json` per record, e.g. `hitom-4-1.json`).
    #[arg(long, short)]
    out: PathBuf,
    /// Write the records that were read even if some were not (and exit 0).
    #[arg(long)]
    keep_going: bool,
    /// Also write every assumption the reader made, per record (sentences taken to say
    /// nothing, containers placed in the first room), and the reason for each record it
    /// could not read: JSON Lines when the file ends in `.jsonl`, text otherwise.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// Runs `bip import hitom`.
pub fn run(args: &HitomArgs) -> anyhow::Result<ExitCode> {
    if args.report.as_deref() == Some(args.out.as_path()) {
        bail!(
            "--report and --out name the same file, {}",
            args.out.display()
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let (mut records, mut report, mut failed) = (Vec::new(), Vec::new(), 0);
    for (line, result) in read_jsonl(&text) {
        match result {
            Ok(record) => {
                report.push(ReportLine {
                    line,
                    id: Some(record.story.id().to_string()),
                    notes: record.notes.clone(),
                    error: None,
                });
                records.push(record);
            }
            Err(e) => {
                failed += 1;
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
    if let Some(path) = &args.report {
        write_report(&report, path)?;
    }
    if failed > 0 && !args.keep_going {
        eprintln!("bip: read {} of {total} records, {failed} failed; nothing written (use --keep-going to write the rest)", records.len());
        return Ok(ExitCode::from(1));
    }
    write(&records, &args.out)?;
    eprintln!(
        "bip: read {} of {total} records, {failed} failed; wrote {}",
        records.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes stories as one JSONL file or as one file per story in a folder.
fn write(records: &[HitomRecord], out: &Path) -> anyhow::Result<()> {
    if out.extension().is_some_and(|e| e == "jsonl") {
        let mut text = String::new();
        for record in records {
            text.push_str(&serde_json::to_string(&record.file).context("serialising a story")?);
            text.push('\n');
        }
        write_atomically(out, text.as_bytes())?;
        return Ok(());
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for record in records {
        let text =
            serde_json::to_string_pretty(&record.file).context("serialising a story")? + "\n";
        let path = out.join(format!("{}.json", record.story.id()));
        write_atomically(&path, text.as_bytes())?;
    }
    Ok(())
}
