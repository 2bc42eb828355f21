//! `bip theme apply`: episodes or MMToM-QA questions rewritten in a theme's words, or
//! back.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::episodes::json::EpisodeFile;
use bip::episodes::Episode;
use bip::io::{read_input, OutputSet};
use bip::themes::{self, apply_record, detect, invert_record, Theme};

use crate::cli::input::InputFormat;
use crate::cli::output::Output;
use crate::cli::theme::ThemeFiles;

/// Arguments of `bip theme apply`.
#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Theme id; with --inverse, `auto` detects each input's theme.
    #[arg(long)]
    theme: String,
    #[command(flatten)]
    files: ThemeFiles,
    /// What the input holds: episodes (`.json`, or `.jsonl` one a line) or MMToM-QA
    /// questions (`.jsonl` records, whose `question` text is rewritten; any other file is
    /// rewritten as plain text).
    #[arg(long, value_enum, default_value_t = InputFormat::Episodes)]
    format: InputFormat,
    /// Map themed input back to the base words.
    #[arg(long)]
    inverse: bool,
    /// Input file.
    input: PathBuf,
    /// Output file (written atomically).
    output: PathBuf,
}

/// Runs `bip theme apply`.
pub fn run(args: &ApplyArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = OutputSet::new();
    let slot = outputs.add("OUTPUT", &args.output)?;
    outputs.refuse_inputs([args.input.as_path()])?;
    let extra = args.files.load()?;
    let auto = args.theme == "auto";
    if auto && !args.inverse {
        bail!("--theme auto: only --inverse can detect a theme");
    }
    let mut candidates = themes::builtins();
    candidates.extend(extra.iter().cloned());
    let fixed = if auto {
        None
    } else {
        Some(themes::find(&args.theme, &extra)?)
    };
    let baseline = themes::find(themes::BASELINE, &[])?;
    // The theme of one piece of input: the named one, or the detected one.
    let theme_of = |text: &str| -> anyhow::Result<&Theme> {
        Ok(match &fixed {
            Some(t) => t,
            None => detect(text, &candidates)?.unwrap_or(&baseline),
        })
    };
    let path = &args.input;
    let text = read_input(path)?;
    let jsonl = path.extension().is_some_and(|x| x == "jsonl");
    let output = match (args.format, jsonl) {
        (InputFormat::Mmtom, true) => map_lines(&text, path, |line| {
            let theme = theme_of(line)?;
            Ok(if args.inverse {
                invert_record(line, theme)?
            } else {
                apply_record(line, theme)?
            })
        })?,
        (InputFormat::Mmtom, false) => {
            let theme = theme_of(&text).with_context(|| format!("{}", path.display()))?;
            if args.inverse {
                theme.invert_text(&text)
            } else {
                theme
                    .apply_text(&text)
                    .with_context(|| format!("{}", path.display()))?
            }
        }
        (InputFormat::Episodes, true) => map_lines(&text, path, |line| {
            let themed = map_episode(line, theme_of(line)?, args.inverse)?;
            Ok(serde_json::to_string(&themed)?)
        })?,
        (InputFormat::Episodes, false) => {
            let theme = theme_of(&text).with_context(|| format!("{}", path.display()))?;
            let themed = map_episode(&text, theme, args.inverse)
                .with_context(|| format!("{}", path.display()))?;
            serde_json::to_string_pretty(&themed)? + "\n"
        }
    };
    outputs.put(slot, output);
    out.commit(outputs)?;
    Ok(ExitCode::SUCCESS)
}

/// Applies `f` to every non-blank line, naming the line of an error.
fn map_lines(
    text: &str,
    path: &Path,
    f: impl Fn(&str) -> anyhow::Result<String>,
) -> anyhow::Result<String> {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.lines().enumerate() {
        if !line.trim().is_empty() {
            let mapped = f(line).with_context(|| format!("{}:{}", path.display(), i + 1))?;
            out.push_str(&mapped);
        }
        out.push('\n');
    }
    Ok(out)
}

/// One episode in (or out of) a theme, checked to be valid before and after.
fn map_episode(text: &str, theme: &Theme, inverse: bool) -> anyhow::Result<EpisodeFile> {
    let file: EpisodeFile = serde_json::from_str(text).context("not a bip-episode/1 document")?;
    let id = file.id.clone().unwrap_or_default();
    Episode::from_file(file.clone(), &id).context("invalid input episode")?;
    let mapped = if inverse {
        theme.invert_episode(&file)
    } else {
        theme.apply_episode(&file)?
    };
    Episode::from_file(mapped.clone(), &id)
        .with_context(|| format!("the episode in theme {} is not valid", theme.id()))?;
    Ok(mapped)
}
