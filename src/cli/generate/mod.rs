//! `bip generate`: procedural episodes with ground truth.

pub(super) mod chunks;
pub(super) mod nested;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::bail;
use clap::Args;

use bip::engine::PromptTemplate;
use bip::io::OutputSet;
use bip::lab::generate::{themed_with_truth, training_pairs, GenerateOptions, QuestionType};
use bip::themes::{self, Theme};

use crate::cli::generate::chunks::write_in_chunks;
use crate::cli::output::Output;
use crate::cli::theme::names::themes_named;
use crate::cli::theme::ThemeFiles;

/// The most episodes one run generates.
pub(super) const MAX_EPISODES: usize = 1_000_000;

/// What `bip generate` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// One agent acting on a goal and a belief, with MMToM-QA-type questions.
    Mmtom,
    /// Stories of several agents who move things and tell each other where they are, with
    /// nested-belief questions of orders 0 to 4 (Hi-ToM-like).
    Nested,
}

/// Arguments of `bip generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to generate.
    #[arg(long, value_enum, default_value_t = Kind::Mmtom)]
    pub kind: Kind,
    /// How many episodes.
    #[arg(long, short)]
    pub n: usize,
    /// Random seed; the same seed gives byte-identical output.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file, one episode (or story) per line (`bip-episode/1`).
    #[arg(long, short, required_unless_present_any = ["training_pairs", "text"])]
    pub out: Option<PathBuf>,
    /// Nested: also (or only) write the stories told in Hi-ToM's record format, one record
    /// per question, in varied wording (for `bip eval --format hitom`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub text: Option<PathBuf>,
    /// Nested: share of stories in which agents tell each other where things are.
    #[arg(long, default_value_t = 0.5)]
    pub deception: f64,
    /// Also (or only) write training pairs for `bip train`: one line per step of each
    /// episode, `{"prompt": ..., "action": ...}`, the prompt rendering the agent's true goal
    /// and belief in the LM policy's template, the action the text it scores.
    #[arg(long, value_name = "FILE.jsonl")]
    pub training_pairs: Option<PathBuf>,
    /// Training pairs: the prompts also say what the agent has seen so far, as the LM
    /// policy's prompts do with `--prompt-observations`.
    #[arg(long, requires = "training_pairs")]
    pub prompt_observations: bool,
    /// Tell the episodes and training pairs in a theme's words (`bip theme list`): an id,
    /// ids separated by commas, or `all` (the built-in themes, then those of --theme-file),
    /// taken in turn. Apartment leaves an episode as generated.
    #[arg(long, default_value = themes::BASELINE, value_name = "NAME|all|A,B,...")]
    pub theme: String,
    #[command(flatten)]
    pub theme_files: ThemeFiles,
    /// Question types to generate, used in turn (default: all seven), e.g. `1.1,2.3`.
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    /// Share of episodes whose question the behaviour so far cannot answer (expected
    /// answer "unknowable"), in [0, 1].
    #[arg(long, default_value_t = 0.0)]
    pub unknowable: f64,
    /// Share of agents that know, at the start, what lies on every surface of the house
    /// (things in the open), in [0, 1].
    #[arg(long, default_value_t = 0.0)]
    pub knows_the_open: f64,
    /// Share of episodes whose goal question's other option is a class the house lacks,
    /// in [0, 1].
    #[arg(long, default_value_t = 0.0)]
    pub absent_distractors: f64,
    /// Share of those episodes (`--absent-distractors`) with a goal question whose agent
    /// wants the class the house lacks, searching for it in vain, in [0, 1].
    #[arg(long, default_value_t = 0.0)]
    pub absent_goals: f64,
    /// Share of the agents' walks that go to a place drawn in proportion to their belief
    /// rather than where their planner would go (they pass places they believe in and come
    /// back to them), in [0, 1].
    #[arg(long, default_value_t = 0.0)]
    pub agent_search_spread: f64,
}

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
