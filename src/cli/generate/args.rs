//! The arguments of `bip generate`.

use std::path::PathBuf;

use clap::Args;

use bip::themes;

use crate::cli::theme::ThemeFiles;

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
