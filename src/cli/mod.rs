//! Argument parsing and dispatch. The work itself lives in the library crates.

mod calibrate;
mod eval;
mod generate;
mod import;
mod infer;
mod input;
mod limits;
mod lm;
mod nested;
mod output;
mod policy;
mod progress;
mod render;
mod study;
mod theme;
mod train;
mod variance;
mod virtualhome;

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// Bayesian inverse planning: infer what an embodied agent wants and thinks from what it does.
#[derive(Debug, Parser)]
#[command(name = "bip", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    limits: limits::LimitArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Answer the questions of one or more episodes from the posterior.
    Infer(infer::InferArgs),
    /// Generate episodes with ground-truth answers, one per line.
    Generate(generate::GenerateArgs),
    /// Score the answers to files of episodes against their expected answers.
    Eval(eval::EvalArgs),
    /// Fit the planner's rationality β on held-out episodes.
    Calibrate(calibrate::CalibrateArgs),
    /// Convert episodes from another format (MMToM-QA text questions, VirtualHome scene
    /// graphs and programs) to bip-episode/1.
    Import(import::ImportArgs),
    /// Convert an episode to another format (a VirtualHome scene graph and program).
    Export(virtualhome::ExportArgs),
    /// Score text with, generate from, or inspect a language model (GGUF or Hugging Face).
    Lm(lm::LmArgs),
    /// List, show and apply thematic variants of the vocabulary (Andersen, Egypt, ...).
    Theme(theme::ThemeArgs),
    /// Accuracy across themes of the same questions, with paired tests against Apartment.
    Variance(variance::VarianceArgs),
    /// Run a grid of policies × themes over one question set and report it (resumable,
    /// shardable).
    Study(study::StudyArgs),
    /// Post-train a LoRA adapter on (prompt, action) pairs (`bip generate --training-pairs`).
    Train(train::TrainArgs),
}

/// Parses the command line and runs the command, its output going through one
/// [`output::Output`]. A closed standard output ends the command quietly (see
/// [`output`]).
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return Ok(parse_failure(&e)),
    };
    // An interrupted command leaves no temporary file behind (exit status 130, as a
    // shell reports SIGINT).
    ctrlc::set_handler(|| {
        bip::io::remove_temporaries();
        std::process::exit(130);
    })
    .context("installing the signal handler")?;
    let limits = cli.limits.apply()?;
    let mut out = output::Output::stdout();
    let result = dispatch(cli.command, &limits, &mut out).and_then(|code| {
        out.finish()?;
        Ok(code)
    });
    match result {
        Err(e) if output::is_closed_pipe(&e) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(limits::with_flag_hint(e)),
        other => other,
    }
}

/// Prints what clap has to say (help, the version, or a usage error) and gives the exit
/// status: clap's own, or 2 when the text could not be written (`--help > /dev/full`
/// must not report success).
fn parse_failure(e: &clap::Error) -> ExitCode {
    use std::io::Write as _;
    let printed = e.print().and_then(|()| {
        if e.use_stderr() {
            std::io::stderr().flush()
        } else {
            std::io::stdout().flush()
        }
    });
    match printed {
        Ok(()) => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
        Err(write) => {
            note!("bip: cannot write the command's text: {write}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(
    command: Command,
    limits: &limits::Limits,
    out: &mut output::Output,
) -> anyhow::Result<ExitCode> {
    match command {
        Command::Infer(args) => infer::run(&args, limits, out),
        Command::Generate(args) => generate::run(&args, out),
        Command::Eval(args) => eval::run(&args, limits, out),
        Command::Calibrate(args) => calibrate::run(&args, out),
        Command::Import(args) => import::run(&args, out),
        Command::Export(args) => virtualhome::export_run(&args, out),
        Command::Lm(args) => lm::run(&args, out),
        Command::Theme(args) => theme::run(&args, out),
        Command::Variance(args) => variance::run(&args, limits, out),
        Command::Study(args) => study::run(&args, limits, out),
        Command::Train(args) => train::run(&args),
    }
}
