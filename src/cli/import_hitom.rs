//! `bip import hitom`: Hi-ToM records read into stories (`bip-episode/1`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use bip::episodes::import::hitom::read_jsonl;
use bip::io::read_input;

use super::import_output::{ImportOutputs, ReportLine};
use super::output::Output;

/// Arguments of `bip import hitom`.
// The flags of `bip import mmtom` too, each with help in this format's words.
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
pub fn run(args: &HitomArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = ImportOutputs::check(&args.file, &args.out, args.report.as_deref())?;
    let text = read_input(&args.file)?;
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
                note!("bip: {}:{line}: {why}", args.file.display());
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
    outputs.put_report(&report)?;
    if failed > 0 && !args.keep_going {
        note!("bip: read {} of {total} records, {failed} failed; nothing written (use --keep-going to write the rest)", records.len());
        outputs.commit(out)?;
        return Ok(ExitCode::from(2));
    }
    outputs.put_documents(records.iter().map(|r| (r.story.id().to_string(), &r.file)))?;
    outputs.commit(out)?;
    note!(
        "bip: read {} of {total} records, {failed} failed; wrote {}",
        records.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
