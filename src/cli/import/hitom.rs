//! `bip import hitom`: Hi-ToM records read into stories (`bip-episode/1`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use bip::episodes::import::hitom::read_jsonl;
use bip::io::read_input;

use crate::cli::import::output::{write_stories, ImportOutputs, ReadStory};
use crate::cli::output::Output;

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
    let outputs = ImportOutputs::check(&args.file, &args.out, args.report.as_deref())?;
    let text = read_input(&args.file)?;
    let results = read_jsonl(&text).map(|(line, result)| {
        (
            line,
            result.map(|r| ReadStory::new(&r.story, r.notes, r.file)),
        )
    });
    write_stories(
        outputs,
        &args.file,
        results,
        args.keep_going,
        "records",
        out,
    )
}
