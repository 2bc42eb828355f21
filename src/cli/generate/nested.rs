//! `bip generate --kind nested`: stories with ground truth from simulated agents, as
//! episodes and as Hi-ToM-style text.

use std::process::ExitCode;

use anyhow::bail;

use bip::io::OutputSet;
use bip::lab::nested::generate::{generate_story, tell, NestedOptions};

use crate::cli::generate::chunks::write_in_chunks;
use crate::cli::generate::{GenerateArgs, MAX_EPISODES};
use crate::cli::output::Output;

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
    // Each output is written as it is generated, a chunk of stories at a time (a story
    // wanted in both is generated twice, the same both times).
    let (n, seed) = (args.n, args.seed);
    let mut told = Vec::new();
    if let (Some(slot), Some(path)) = (stories_out, &args.out) {
        let options = options.clone();
        outputs.put_streamed(slot, move |to| {
            write_in_chunks(to, n, |i| {
                generate_story(&options, i).map(|s| vec![s.to_file()])
            })
        });
        told.push(format!("{n} stories to {}", path.display()));
    }
    if let (Some(slot), Some(path)) = (text_out, &args.text) {
        outputs.put_streamed(slot, move |to| {
            write_in_chunks(to, n, |i| {
                generate_story(&options, i).map(|s| tell(&s, i, seed))
            })
        });
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
