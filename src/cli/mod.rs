//! Argument parsing and dispatch. The work itself lives in the library crates.

mod eval;
mod generate;
mod infer;
mod progress;
mod render;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Bayesian inverse planning: infer what an embodied agent wants and thinks from what it does.
#[derive(Debug, Parser)]
#[command(name = "bip", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Answer the questions of one or more episodes from the posterior.
    Infer(infer::InferArgs),
    /// Generate episodes with ground-truth answers, one per line.
    Generate(generate::GenerateArgs),
    /// Score the answers to files of episodes against their expected answers.
    Eval(eval::EvalArgs),
}

/// Parses the command line and runs the command.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Infer(args) => infer::run(&args),
        Command::Generate(args) => generate::run(&args),
        Command::Eval(args) => eval::run(&args),
    }
}
