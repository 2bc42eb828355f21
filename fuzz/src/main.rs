//! `bip-fuzz`: runs a fuzz campaign on one target (see `scripts/fuzz.sh`), writes a
//! target's seeds, or replays inputs.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};

use bip_fuzz::campaign::{self, Limits};
use bip_fuzz::targets::{self, Scratch, Target};

/// Fuzz bip's readers of untrusted files.
#[derive(Debug, Parser)]
#[command(name = "bip-fuzz")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the targets.
    List,
    /// Run a campaign: the corpus, then mutations, until --runs or --seconds.
    Run {
        /// The target.
        target: String,
        /// Executions to run.
        #[arg(long, default_value_t = 1_000_000)]
        runs: u64,
        /// Stop after this many seconds.
        #[arg(long, default_value_t = 3600)]
        seconds: u64,
        /// Seed of the mutations.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Folder of seed inputs (the target's built-in seeds when empty or absent).
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Where inputs that crash, hang or run slowly are written (in TARGET/).
        #[arg(long)]
        crashes: Option<PathBuf>,
        /// Scratch folder (the input being run is kept at SCRATCH/current).
        #[arg(long)]
        scratch: PathBuf,
    },
    /// Write a target's seeds to DIR and its reproducers to CRASHES/TARGET/.
    Seeds {
        /// The target.
        target: String,
        /// Folder for the seeds.
        dir: PathBuf,
        /// Folder of reproducers (written in TARGET/).
        #[arg(long)]
        crashes: PathBuf,
    },
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bip-fuzz: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn target(name: &str) -> anyhow::Result<&'static Target> {
    targets::find(name).with_context(|| {
        let names: Vec<_> = targets::TARGETS.iter().map(|t| t.name).collect();
        format!("no target `{name}` (targets: {})", names.join(", "))
    })
}

fn run() -> anyhow::Result<ExitCode> {
    match Cli::parse().command {
        Command::List => {
            for t in &targets::TARGETS {
                println!("{:<12} {}", t.name, t.about);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Seeds {
            target: name,
            dir,
            crashes,
        } => {
            let t = target(&name)?;
            std::fs::create_dir_all(&dir)?;
            for (i, seed) in (t.seeds)().iter().enumerate() {
                std::fs::write(dir.join(format!("seed-{i}")), seed)?;
            }
            let crashes = crashes.join(t.name);
            std::fs::create_dir_all(&crashes)?;
            for (name, input) in (t.reproducers)() {
                std::fs::write(crashes.join(name), input)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            target: name,
            runs,
            seconds,
            seed,
            corpus,
            crashes,
            scratch,
        } => {
            let t = target(&name)?;
            let mut seeds = match &corpus {
                Some(dir) => read_dir(dir)?,
                None => Vec::new(),
            };
            if seeds.is_empty() {
                seeds = (t.seeds)();
            }
            let limits = Limits {
                runs,
                time: Duration::from_secs(seconds),
                seed,
                crashes,
                progress: Some(Duration::from_secs(30)),
                hang_exit: Some(Duration::from_secs(5)),
            };
            Scratch::new(&scratch)?;
            let report = campaign::run(t, &seeds, &limits, &scratch)?;
            println!("fuzz {}: {report}", t.name);
            for (message, saved) in &report.crashes {
                println!(
                    "crash: {message} ({})",
                    saved
                        .as_ref()
                        .map_or("not saved".into(), |p| p.display().to_string())
                );
            }
            if report.crashes.is_empty() && report.slow.is_empty() {
                Ok(ExitCode::SUCCESS)
            } else {
                bail!(
                    "{} crashes, {} slow executions",
                    report.crashes.len(),
                    report.slow.len()
                )
            }
        }
    }
}

/// Every file of `dir`, sorted by name (none when it does not exist).
fn read_dir(dir: &std::path::Path) -> anyhow::Result<Vec<Vec<u8>>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).with_context(|| p.display().to_string()))
        .collect()
}
