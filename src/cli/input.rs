//! What the input files of `eval`, `variance` and `theme apply` hold, and reading the
//! episodes of `bip eval`.

use std::path::PathBuf;

use bip::episodes::import::mmtom::read_jsonl;
use bip::episodes::Episode;
use bip::io::read_episodes;
use bip::lab::variance::ItemFormat;

/// What the input files hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// `bip-episode/1` episodes (`.jsonl` one a line, or `.json`).
    #[default]
    Episodes,
    /// MMToM-QA text questions (JSONL), read with `bip import mmtom`'s reader.
    Mmtom,
}

impl From<InputFormat> for ItemFormat {
    fn from(format: InputFormat) -> Self {
        match format {
            InputFormat::Episodes => ItemFormat::Episodes,
            InputFormat::Mmtom => ItemFormat::Mmtom,
        }
    }
}

/// The episodes of every file, in order, and how many MMToM-QA questions could not be
/// read (`None` for episode files, which must be valid throughout).
pub fn read_inputs(
    files: &[PathBuf],
    format: InputFormat,
) -> anyhow::Result<(Vec<Episode>, Option<usize>)> {
    let mut episodes = Vec::new();
    let mut unreadable = 0;
    for path in files {
        match format {
            InputFormat::Episodes => episodes.extend(read_episodes(path)?),
            InputFormat::Mmtom => {
                let text = bip::io::read_input(path)?;
                for (line, record) in read_jsonl(&text) {
                    match record {
                        Ok(record) => episodes.push(record.episode),
                        Err(e) => {
                            unreadable += 1;
                            let e = anyhow::Error::new(e);
                            note!("bip: {}:{line}: unreadable: {e:#}", path.display());
                        }
                    }
                }
            }
        }
    }
    Ok((
        episodes,
        (format == InputFormat::Mmtom).then_some(unreadable),
    ))
}
