//! `bip generate`: procedural episodes with ground truth.

mod args;
pub(super) mod chunks;
pub(super) mod nested;

pub use args::{GenerateArgs, Kind};

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::bail;

use bip::engine::PromptTemplate;
use bip::io::OutputSet;
use bip::lab::generate::{themed_with_truth, training_pairs, GenerateOptions, QuestionType};
use bip::themes::Theme;

use crate::cli::generate::chunks::write_in_chunks;
use crate::cli::output::Output;
use crate::cli::theme::names::themes_named;

/// The most episodes one run generates.
pub(super) const MAX_EPISODES: usize = 1_000_000;

/// Runs `bip generate`.
pub fn run(args: &GenerateArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    if args.kind == Kind::Nested {
        return crate::cli::generate::nested::run(args, out);
    }
    if args.text.is_some() {
        bail!("--text is for --kind nested");
    }
    let types = if args.types.is_empty() {
        QuestionType::ALL.to_vec()
    } else {
        args.types
            .iter()
            .map(|t| match QuestionType::from_label(t.trim()) {
                Some(kind) => Ok(kind),
                None => bail!("--types: unknown question type \"{t}\" (expected 1.1, 1.2, 1.3, 2.1, 2.2, 2.3 or 2.4)"),
            })
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    for (flag, share) in [
        ("--unknowable", args.unknowable),
        ("--knows-the-open", args.knows_the_open),
        ("--absent-distractors", args.absent_distractors),
        ("--absent-goals", args.absent_goals),
        ("--agent-search-spread", args.agent_search_spread),
    ] {
        if !(0.0..=1.0).contains(&share) {
            let share = bip::episodes::limits::number(share);
            bail!("{flag} {share}: must be a share between 0 and 1");
        }
    }
    if args.n > MAX_EPISODES {
        bail!("--n {}: at most {MAX_EPISODES} episodes a run", args.n);
    }
    let n = args.n;
    let themes = themes_named("--theme", &args.theme, &args.theme_files.load()?)?;
    let options = GenerateOptions {
        seed: args.seed,
        types,
        unknowable: args.unknowable,
        knows_the_open: args.knows_the_open,
        absent_distractors: args.absent_distractors,
        absent_goals: args.absent_goals,
        agent_search_spread: args.agent_search_spread,
        ..GenerateOptions::default()
    };
    // Both files are checked before either is generated, and written together.
    let mut outputs = OutputSet::new();
    let episodes_out = args
        .out
        .as_ref()
        .map(|p| outputs.add("--out", p))
        .transpose()?;
    let pairs_out = args
        .training_pairs
        .as_ref()
        .map(|p| outputs.add("--training-pairs", p))
        .transpose()?;
    let mut told = Vec::new();
    if let (Some(slot), Some(path)) = (episodes_out, &args.out) {
        let (options, themes) = (options.clone(), themes.clone());
        outputs.put_streamed(slot, move |to| {
            write_in_chunks(to, n, |i| {
                themed_with_truth(&options, &themes, i).map(|(episode, _)| vec![episode.to_file()])
            })
        });
        told.push(format!("{n} episodes to {}", path.display()));
    }
    let pair_count = Arc::new(AtomicUsize::new(0));
    if let Some(slot) = pairs_out {
        let template = PromptTemplate {
            observations: args.prompt_observations,
            ..PromptTemplate::default()
        };
        let (options, themes, counted) = (options.clone(), themes.clone(), pair_count.clone());
        outputs.put_streamed(slot, move |to| {
            counted.store(0, Ordering::Relaxed);
            write_in_chunks(to, n, |i| {
                let (episode, truth) = themed_with_truth(&options, &themes, i)?;
                let pairs = training_pairs(&episode, &truth, &template);
                counted.fetch_add(pairs.len(), Ordering::Relaxed);
                Ok(pairs)
            })
        });
    }
    out.commit(outputs)?;
    if let Some(path) = &args.training_pairs {
        let pairs = pair_count.load(Ordering::Relaxed);
        told.push(format!(
            "{pairs} training pairs from {n} episodes to {}",
            path.display()
        ));
    }
    note!("bip: wrote {}{}", told.join(" and "), in_themes(&themes));
    Ok(ExitCode::SUCCESS)
}

/// How the summary line names the themes: nothing when every episode is as generated.
fn in_themes(themes: &[Theme]) -> String {
    if themes.iter().all(Theme::is_identity) {
        return String::new();
    }
    let ids: Vec<&str> = themes.iter().map(Theme::id).collect();
    let plural = if ids.len() > 1 { "s" } else { "" };
    format!(" in theme{plural} {}", ids.join(", "))
}
