//! `bip import tomi`: ToMi questions (bAbI layout) read into stories (`bip-episode/1`),
//! one story per question.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use bip::episodes::import::tomi::read_tomi;
use bip::io::read_input;

use crate::cli::import::output::{write_stories, ImportOutputs, ReadStory};
use crate::cli::output::Output;

/// Arguments of `bip import tomi`.
// The flags of `bip import hitom` too, each with help in this format's words.
#[derive(Debug, Args)]
pub struct TomiArgs {
    /// The stories and questions (bAbI layout: numbered lines, a question line holding
    /// the answer after a tab).
    file: PathBuf,
    /// The benchmark's trace (one line per question, ending in the question type and the
    /// story type): kept as labels for reports, never read by inference.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Where to write: a `.jsonl` file (one story a line) or a folder (one
    /// `<story id>.json` per question, e.g. `tomi-7.json` for the question on line 7).
    #[arg(long, short)]
    out: PathBuf,
    /// Write the questions that were read even if some were not (and exit 0).
    #[arg(long)]
    keep_going: bool,
    /// Also write every assumption the reader made, per question (sentences taken to say
    /// nothing, pronouns resolved), and the reason for each question it could not read:
    /// JSON Lines when the file ends in `.jsonl`, text otherwise.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// Runs `bip import tomi`.
pub fn run(args: &TomiArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = ImportOutputs::check(&args.file, &args.out, args.report.as_deref())?;
    if let Some(trace) = &args.trace {
        outputs.refuse_input(trace)?;
    }
    let text = read_input(&args.file)?;
    let trace = args.trace.as_deref().map(read_input).transpose()?;
    let records = read_tomi(&text, trace.as_deref())
        .map_err(|e| anyhow::Error::new(e).context(trace_name(args)))?;
    let results = records.into_iter().map(|(line, result)| {
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
        "questions",
        out,
    )
}

fn trace_name(args: &TomiArgs) -> String {
    args.trace
        .as_ref()
        .map_or_else(String::new, |t| t.display().to_string())
}
