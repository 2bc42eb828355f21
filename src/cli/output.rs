//! Standard output of a command: one locked, buffered writer, created by [`super::run`]
//! and flushed once the command is done.
//!
//! A write error does not panic (as `println!` would). Standard output closed by its
//! reader (`bip infer E | head -c 10`: a broken pipe) ends the command quietly with
//! status 0, as ripgrep does: the reader has what it wanted. Any other write error
//! (`> /dev/full`) is an error naming standard output, and status 2.

use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::Path;

use anyhow::{bail, Context};
use serde::Serialize;

/// Standard output could not be written.
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output")]
pub struct StdoutError(#[source] io::Error);

/// The writer every command's output goes through.
pub struct Output {
    writer: BufWriter<StdoutLock<'static>>,
}

impl Output {
    /// Standard output, locked for the life of the command and buffered.
    pub fn stdout() -> Self {
        Self {
            writer: BufWriter::new(io::stdout().lock()),
        }
    }

    /// Writes `text` as it is.
    pub fn print(&mut self, text: &str) -> Result<(), StdoutError> {
        self.writer.write_all(text.as_bytes()).map_err(StdoutError)
    }

    /// Writes `value` as pretty-printed JSON and a newline.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(value).context("serialising the output")?;
        self.print(&text)?;
        Ok(self.print("\n")?)
    }

    /// Writes `outputs`, what goes to standard output (after everything printed before)
    /// written and flushed before any file is replaced, so that a failing standard
    /// output replaces no file.
    pub fn commit(&mut self, outputs: bip::io::OutputSet) -> anyhow::Result<()> {
        outputs.commit_with(|bytes| -> anyhow::Result<()> {
            self.writer.write_all(bytes).map_err(StdoutError)?;
            Ok(self.writer.flush().map_err(StdoutError)?)
        })
    }

    /// Writes out what is still buffered.
    pub fn finish(mut self) -> Result<(), StdoutError> {
        self.writer.flush().map_err(StdoutError)
    }
}

/// Whether `error` is standard output closed by its reader, which ends a command quietly.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|e| e.downcast_ref::<StdoutError>())
        .any(|e| e.0.kind() == io::ErrorKind::BrokenPipe)
}

/// Refuses an `--abstain-below` margin that is not a number in [0, 1] (a margin is the
/// difference of two probabilities; NaN would abstain on everything, a negative one on
/// nothing).
pub fn check_margin(margin: f64) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&margin) {
        let margin = bip::episodes::limits::number(margin);
        bail!("--abstain-below {margin}: must be a margin between 0 and 1");
    }
    Ok(())
}

/// Refuses a `--plot` file that is not `.svg`, the one format drawn.
pub fn check_svg(plot: Option<&Path>) -> anyhow::Result<()> {
    match plot {
        Some(plot) if plot.extension().is_none_or(|x| x != "svg") => bail!(
            "--plot {}: only SVG output is supported (name the file *.svg)",
            plot.display()
        ),
        _ => Ok(()),
    }
}
