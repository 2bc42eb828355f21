//! `bip theme list|show|apply`: the thematic variants of the vocabulary.

pub(super) mod apply;
pub(super) mod names;

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use bip::io::read_input;
use bip::themes::{self, Theme};

use crate::cli::output::Output;

/// Arguments of `bip theme`.
#[derive(Debug, Args)]
pub struct ThemeArgs {
    #[command(subcommand)]
    command: ThemeCommand,
}

#[derive(Debug, Subcommand)]
enum ThemeCommand {
    /// List the themes: the built-in ones and those of --theme-file.
    List(ListArgs),
    /// Show a theme's nouns: every room and class with its themed singular, plural and
    /// article.
    Show(ShowArgs),
    /// Rewrite episodes or MMToM-QA questions in a theme's words, or back (--inverse).
    Apply(apply::ApplyArgs),
}

/// Theme files to load besides the built-in themes.
#[derive(Debug, Args)]
pub struct ThemeFiles {
    /// A `bip-theme/1` JSON file defining a theme (repeatable).
    #[arg(long = "theme-file")]
    files: Vec<PathBuf>,
}

impl ThemeFiles {
    /// The theme files at `files` (a plan's `theme_files`).
    pub fn from_paths(files: Vec<PathBuf>) -> Self {
        Self { files }
    }

    /// Loads the files, naming the one at fault; a theme may not take the id of a
    /// built-in theme or of an earlier file's.
    pub fn load(&self) -> anyhow::Result<Vec<Theme>> {
        let mut themes = Vec::with_capacity(self.files.len());
        for path in &self.files {
            themes.push(load_theme(path)?);
            themes::check_extra(&themes).with_context(|| format!("{}", path.display()))?;
        }
        Ok(themes)
    }
}

fn load_theme(path: &Path) -> anyhow::Result<Theme> {
    let text = read_input(path)?;
    Theme::from_json(&text).with_context(|| format!("{}", path.display()))
}

#[derive(Debug, Args)]
struct ListArgs {
    #[command(flatten)]
    files: ThemeFiles,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// Theme id (`bip theme list`).
    name: String,
    #[command(flatten)]
    files: ThemeFiles,
    /// Print the nouns as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bip theme`.
pub fn run(args: &ThemeArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    match &args.command {
        ThemeCommand::List(a) => list(a, out),
        ThemeCommand::Show(a) => show(a, out),
        ThemeCommand::Apply(a) => apply::run(a, out),
    }
}

fn list(args: &ListArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut all = themes::builtins();
    all.extend(args.files.load()?);
    let mut text = String::new();
    for t in &all {
        let mapped = t.entries().iter().filter(|e| e.mapped).count();
        let _ = writeln!(
            text,
            "{:<10} {:<22} world: {:<10} {mapped}/{} classes themed",
            t.id(),
            t.name(),
            t.world().singular,
            t.entries().len()
        );
    }
    out.print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn show(args: &ShowArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let theme = themes::find(&args.name, &args.files.load()?)?;
    if args.json {
        let doc = serde_json::json!({
            "id": theme.id(), "name": theme.name(), "world": theme.world(),
            "entries": theme.entries(),
        });
        out.json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{} ({}): apartment → {}",
        theme.name(),
        theme.id(),
        theme.world().singular
    );
    for e in theme.entries() {
        let kind = format!("{:?}", e.kind).to_lowercase();
        let _ = writeln!(
            text,
            "{kind:<9} {:<17} {:<18} → {} ({}; {}) [id {}]",
            e.class,
            e.usual_name(),
            e.name.singular,
            e.name.plural,
            e.name.article,
            e.id
        );
        for (base, word) in e.forms.iter().filter(|(b, _)| *b != e.usual_name()) {
            if e.mapped {
                let _ = writeln!(
                    text,
                    "{:27} {base:<18} → {} ({})",
                    "", word.singular, word.plural
                );
            }
        }
    }
    out.print(&text)?;
    Ok(ExitCode::SUCCESS)
}
