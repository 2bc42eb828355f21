//! `bip generate --kind nested`: stories with ground truth from simulated agents, as
//! episodes and as Hi-ToM-style text.

use std::process::ExitCode;

use anyhow::{bail, Context};

use bip::engine::nested::generate::{generate_stories, tell, NestedOptions};
use bip::episodes::Story;
use bip::io::{to_jsonl, write_atomically};

use super::generate::GenerateArgs;

/// Runs `bip generate --kind nested`.
pub fn run(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    if args.training_pairs.is_some() || !args.types.is_empty() || args.unknowable != 0.0 {
        bail!("--training-pairs, --types and --unknowable are for --kind mmtom");
    }
    let options = NestedOptions {
        seed: args.seed,
        deception: args.deception,
        ..NestedOptions::default()
    };
    let stories = generate_stories(&options, args.n).context("generation failed")?;
    if let Some(out) = &args.out {
        let text = to_jsonl(stories.iter().map(Story::to_file)).context("serialising a story")?;
        write_atomically(out, text.as_bytes())?;
        eprintln!("bip: wrote {} stories to {}", stories.len(), out.display());
    }
    if let Some(path) = &args.text {
        let records = stories
            .iter()
            .enumerate()
            .flat_map(|(i, s)| tell(s, i, args.seed));
        let text = to_jsonl(records).context("serialising a record")?;
        write_atomically(path, text.as_bytes())?;
        eprintln!(
            "bip: wrote the stories as Hi-ToM records to {}",
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
