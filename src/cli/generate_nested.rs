//! `bip generate --kind nested`: stories with ground truth from simulated agents, as
//! episodes and as Hi-ToM-style text.

use std::process::ExitCode;

use anyhow::{bail, Context};

use bip::engine::nested::generate::{generate_stories, tell, NestedOptions};
use bip::episodes::Story;
use bip::io::{to_jsonl, OutputSet};

use super::generate::{GenerateArgs, MAX_EPISODES};
use super::output::Output;

/// Runs `bip generate --kind nested`.
pub fn run(args: &GenerateArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let themed = args.theme != bip::themes::BASELINE;
    if args.training_pairs.is_some() || !args.types.is_empty() || args.unknowable != 0.0 || themed {
        bail!("--training-pairs, --types, --unknowable and --theme are for --kind mmtom");
    }
    if args.n > MAX_EPISODES {
        bail!("--n {}: at most {MAX_EPISODES} stories a run", args.n);
    }
    // Both files are checked before the stories are generated, and written together.
    let mut outputs = OutputSet::new();
    let stories_out = args
        .out
        .as_ref()
        .map(|p| outputs.add("--out", p))
        .transpose()?;
    let text_out = args
        .text
        .as_ref()
        .map(|p| outputs.add("--text", p))
        .transpose()?;
    let options = NestedOptions {
        seed: args.seed,
        deception: args.deception,
        ..NestedOptions::default()
    };
    let stories = generate_stories(&options, args.n).context("generation failed")?;
    let mut told = Vec::new();
    if let (Some(slot), Some(path)) = (stories_out, &args.out) {
        let text = to_jsonl(stories.iter().map(Story::to_file)).context("serialising a story")?;
        outputs.put(slot, text);
        told.push(format!("{} stories to {}", stories.len(), path.display()));
    }
    if let (Some(slot), Some(path)) = (text_out, &args.text) {
        let records = stories
            .iter()
            .enumerate()
            .flat_map(|(i, s)| tell(s, i, args.seed));
        outputs.put(slot, to_jsonl(records).context("serialising a record")?);
        told.push(format!(
            "the stories as Hi-ToM records to {}",
            path.display()
        ));
    }
    out.commit(outputs)?;
    if !told.is_empty() {
        note!("bip: wrote {}", told.join(" and "));
    }
    Ok(ExitCode::SUCCESS)
}
