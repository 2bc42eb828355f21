//! Where `bip import` writes: the documents as JSON Lines to one file or stream, or one
//! `<id>.json` each in a folder, and the reader's report; all checked before the input is
//! read and written together.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use serde::Serialize;

use bip::episodes::import::{ImportError, Note};
use bip::episodes::json::StoryFile;
use bip::episodes::Story;
use bip::io::{to_jsonl, Destination, OutputSet, Slot};

use crate::cli::output::Output;

/// What the reader made of one line of the input.
#[derive(Debug, Serialize)]
pub(super) struct ReportLine {
    /// The line, from 1.
    pub line: usize,
    /// The document's id, when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Every assumption made.
    pub notes: Vec<Note>,
    /// Why the line could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The outputs of one `bip import` run.
pub(super) struct ImportOutputs {
    outputs: OutputSet,
    /// `--out` as one JSON Lines file or stream; `None` for a folder.
    jsonl: Option<Slot>,
    report: Option<(Slot, PathBuf)>,
    out: PathBuf,
}

impl ImportOutputs {
    /// Checks `--out` and `--report` before anything is read, and that neither is the
    /// `input`.
    pub(super) fn check(input: &Path, out: &Path, report: Option<&Path>) -> anyhow::Result<Self> {
        let mut outputs = OutputSet::new();
        // A stream (`-`, a pipe, a device) takes the documents as JSON Lines too.
        let stream = !matches!(Destination::of(out), Ok(Destination::Replace(_)));
        let jsonl = out.extension().is_some_and(|e| e == "jsonl") || stream && !out.is_dir();
        let jsonl = jsonl.then(|| outputs.add("--out", out)).transpose()?;
        let report = report
            .map(|p| Ok::<_, anyhow::Error>((outputs.add("--report", p)?, p.to_path_buf())))
            .transpose()?;
        outputs.refuse_inputs([input])?;
        let parent_missing = out
            .parent()
            .is_some_and(|p| !p.as_os_str().is_empty() && !p.is_dir());
        if jsonl.is_none() && !out.is_dir() && parent_missing {
            bail!(
                "--out {}: the folder above it does not exist",
                out.display()
            );
        }
        Ok(Self {
            outputs,
            jsonl,
            report,
            out: out.to_path_buf(),
        })
    }

    /// Refuses to write over another input (`path`) too.
    pub(super) fn refuse_input(&mut self, path: &Path) -> anyhow::Result<()> {
        self.outputs.refuse_inputs([path])?;
        Ok(())
    }

    /// Sets the report, if one was asked for: JSON Lines for a `.jsonl` path, text
    /// otherwise.
    pub(super) fn put_report(&mut self, report: &[ReportLine]) -> anyhow::Result<()> {
        if let Some((slot, path)) = &self.report {
            let text = if path.extension().is_some_and(|e| e == "jsonl") {
                to_jsonl(report).context("serialising the report")?
            } else {
                report_text(report)
            };
            self.outputs.put(*slot, text);
        }
        Ok(())
    }

    /// Sets the documents, each with its id (the file name in a folder).
    pub(super) fn put_documents<'a, T: Serialize + 'a>(
        &mut self,
        documents: impl IntoIterator<Item = (String, &'a T)>,
    ) -> anyhow::Result<()> {
        if let Some(slot) = self.jsonl {
            let files = documents.into_iter().map(|(_, file)| file);
            let text = to_jsonl(files).context("serialising a document")?;
            self.outputs.put(slot, text);
            return Ok(());
        }
        std::fs::create_dir_all(&self.out)
            .with_context(|| format!("--out {}", self.out.display()))?;
        for (id, file) in documents {
            let slot = self
                .outputs
                .add("--out", &self.out.join(format!("{id}.json")))?;
            let text = serde_json::to_string_pretty(file).context("serialising a document")?;
            self.outputs.put(slot, text + "\n");
        }
        Ok(())
    }

    /// Writes everything set so far.
    pub(super) fn commit(self, out: &mut Output) -> anyhow::Result<()> {
        out.commit(self.outputs)?;
        Ok(())
    }
}

/// The report as text: each line's id, error and assumptions.
fn report_text(report: &[ReportLine]) -> String {
    let mut text = String::new();
    for r in report {
        let name = r.id.as_deref().unwrap_or("(not read)");
        let _ = writeln!(text, "line {}: {name}", r.line);
        if let Some(error) = &r.error {
            let _ = writeln!(text, "  error: {error}");
        }
        for note in &r.notes {
            let _ = writeln!(
                text,
                "  {}: \"{}\": {}",
                note.part, note.sentence, note.reading
            );
        }
    }
    text
}

/// A story a reader made of one record: its id, the assumptions made, the document.
pub(super) struct ReadStory {
    pub id: String,
    pub notes: Vec<Note>,
    pub file: StoryFile,
}

impl ReadStory {
    /// What a reader made of a record: `story` as validated, written as `file`.
    pub fn new(story: &Story, notes: Vec<Note>, file: StoryFile) -> Self {
        Self {
            id: story.id().to_string(),
            notes,
            file,
        }
    }
}

/// The end of `bip import hitom|tomi`: every record's outcome reported (each failure on
/// standard error too), and the stories written unless some failed without
/// `--keep-going` (exit 2, nothing but the report written).
pub(super) fn write_stories(
    mut outputs: ImportOutputs,
    input: &Path,
    results: impl IntoIterator<Item = (usize, Result<ReadStory, ImportError>)>,
    keep_going: bool,
    noun: &str,
    out: &mut Output,
) -> anyhow::Result<ExitCode> {
    let (mut stories, mut report, mut failed) = (Vec::new(), Vec::new(), 0);
    for (line, result) in results {
        match result {
            Ok(story) => {
                report.push(ReportLine {
                    line,
                    id: Some(story.id.clone()),
                    notes: story.notes.clone(),
                    error: None,
                });
                stories.push(story);
            }
            Err(e) => {
                failed += 1;
                let why = format!("{:#}", anyhow::Error::new(e));
                note!("bip: {}:{line}: {why}", input.display());
                report.push(ReportLine {
                    line,
                    id: None,
                    notes: Vec::new(),
                    error: Some(why),
                });
            }
        }
    }
    let (read, total) = (stories.len(), stories.len() + failed);
    outputs.put_report(&report)?;
    if failed > 0 && !keep_going {
        note!("bip: read {read} of {total} {noun}, {failed} failed; nothing written (use --keep-going to write the rest)");
        outputs.commit(out)?;
        return Ok(ExitCode::from(2));
    }
    let written = outputs.out.display().to_string();
    outputs.put_documents(stories.iter().map(|s| (s.id.clone(), &s.file)))?;
    outputs.commit(out)?;
    note!("bip: read {read} of {total} {noun}, {failed} failed; wrote {written}");
    Ok(ExitCode::SUCCESS)
}
