//! Reading input files within a size limit, and writing outputs safely: checked before
//! the work, atomically, as a set ([`OutputSet`]), with temporaries removed on an
//! interruption ([`remove_temporaries`]).
//!
//! # Outputs
//!
//! A command's output files are checked before anything is written and written as a set.
//!
//! Each output path is one of three [`Destination`]s:
//! - `-`, `/dev/stdout` (or `/proc/self/fd/1`, `/dev/fd/1`): **standard output**, written
//!   by the command's own writer, in order with the rest of what it prints;
//! - a regular file, or a name not yet taken: **replaced** through a temporary file in the
//!   same folder and a rename, so that it never holds half an output; a symbolic link is
//!   followed, and the file it points to is replaced (the link stays a link);
//! - a device, a named pipe, a socket or another open descriptor (`/dev/null`,
//!   `/dev/stderr`, a FIFO): **written through**, opened for appending and never replaced
//!   or created, so that `-o /dev/full` is a write error and never a regular file in
//!   `/dev`.
//!
//! An [`OutputSet`] takes every output of one command before the command does its work:
//! each must be usable (its folder exists, it is not a folder) and no two may be the
//! same file or both standard output. [`OutputSet::commit`] then writes them: every
//! replaced file to its temporary, every written-through output, and only then the
//! renames; when any write fails, the temporaries are removed and no file is replaced.
//! An output that is a file the process has read with [`read_input`] is refused, so that
//! no command overwrites its input (commands also check their input paths before the
//! work, [`OutputSet::refuse_inputs`]).
//! Temporaries are removed too when the process is interrupted (see
//! [`remove_temporaries`]).

mod append_log;
mod output;
mod temporary;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use bip_episodes::{AnyEpisode, Episode, EpisodeError};

pub use append_log::AppendLog;
pub use output::{Destination, OutputError, OutputSet, Slot};
pub use temporary::remove_all as remove_temporaries;

/// One limit for every text file read whole, here and in the models' configs and
/// training data.
pub use bip_models::{max_input_bytes, set_max_input_bytes, DEFAULT_MAX_INPUT_BYTES};

/// Why a file could not be read or written; always names the file, and keeps what went
/// wrong as its source (print the chain, `{:#}` of an `anyhow::Error`, to see both).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// The file system refused.
    #[error("{path}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The file is longer than [`max_input_bytes`] (`/dev/zero`, say).
    #[error("{path}: longer than the limit of {limit} bytes (raise it with --max-input-size)")]
    TooLarge {
        /// The file.
        path: String,
        /// The limit.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{path}: not UTF-8 text (byte {offset} is not part of a character)")]
    NotText {
        /// The file.
        path: String,
        /// The first byte that is not.
        offset: usize,
    },
    /// The file is not a valid episode.
    #[error("{path}")]
    Episode {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: EpisodeError,
    },
    /// An output cannot be written.
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// Every file [`read_input`] has opened: device, inode and path as given.
static INPUTS_READ: Mutex<Vec<(u64, u64, String)>> = Mutex::new(Vec::new());

/// The files read so far (device, inode, path), which no output may replace.
fn inputs_read() -> Vec<(u64, u64, String)> {
    INPUTS_READ.lock().map(|r| r.clone()).unwrap_or_default()
}

/// The text of the file at `path`, read up to [`max_input_bytes`].
///
/// # Errors
/// [`IoError::File`] when it cannot be read, [`IoError::TooLarge`] past the limit (what
/// was read is dropped at once), [`IoError::NotText`] when it is not UTF-8.
pub fn read_input(path: &Path) -> Result<String, IoError> {
    let name = || path.display().to_string();
    let file_error = |source| IoError::File {
        path: name(),
        source,
    };
    let file = fs::File::open(path).map_err(file_error)?;
    let meta = file.metadata().ok();
    if let (Some(meta), Ok(mut read)) = (&meta, INPUTS_READ.lock()) {
        if meta.is_file() && !read.iter().any(|r| (r.0, r.1) == (meta.dev(), meta.ino())) {
            read.push((meta.dev(), meta.ino(), name()));
        }
    }
    let hint = meta.map_or(0, |m| m.len());
    let Some(bytes) = bip_models::read_bounded(file, hint).map_err(file_error)? else {
        return Err(IoError::TooLarge {
            path: name(),
            limit: max_input_bytes(),
        });
    };
    String::from_utf8(bytes).map_err(|e| IoError::NotText {
        path: name(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// A file's text and its name without extension.
fn read_text(path: &Path) -> Result<(String, String), IoError> {
    Ok((read_input(path)?, file_stem(path)))
}

/// The file's name without its extension (empty when it has none), which names the
/// episodes in it that have no id.
pub fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `values` as JSON Lines: each one compact JSON document and a newline.
///
/// # Errors
/// The first value that cannot be serialised (a map with non-string keys, say).
pub fn to_jsonl<T: Serialize>(
    values: impl IntoIterator<Item = T>,
) -> Result<String, serde_json::Error> {
    let mut text = String::new();
    for value in values {
        text.push_str(&serde_json::to_string(&value)?);
        text.push('\n');
    }
    Ok(text)
}

/// Reads and validates one `bip-episode/1` file; an episode without an id takes the file stem.
///
/// # Errors
/// [`IoError`] naming the file, and inside it the field or line at fault.
pub fn read_episode(path: &Path) -> Result<Episode, IoError> {
    let (text, stem) = read_text(path)?;
    Episode::from_json(&text, &stem).map_err(|source| IoError::Episode {
        path: path.display().to_string(),
        source,
    })
}

/// Reads every episode in `path`: one `bip-episode/1` document in a `.json` file, or one a
/// line in a `.jsonl` file (blank lines skipped; an episode without an id is named
/// `<stem>-<line>`).
///
/// # Errors
/// [`IoError`] naming the file, and for `.jsonl` the line, of the first invalid episode.
pub fn read_episodes(path: &Path) -> Result<Vec<Episode>, IoError> {
    if path.extension().is_none_or(|x| x != "jsonl") {
        return read_episode(path).map(|e| vec![e]);
    }
    let (text, stem) = read_text(path)?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            Episode::from_json(line, &format!("{stem}-{}", i + 1)).map_err(|source| {
                IoError::Episode {
                    path: format!("{}:{}", path.display(), i + 1),
                    source,
                }
            })
        })
        .collect()
}

/// Reads every document in `path` as [`read_episodes`] does, each of either kind: a
/// single-agent episode or a multi-agent story.
///
/// # Errors
/// [`IoError`] naming the file, and for `.jsonl` the line, of the first invalid document.
pub fn read_any_episodes(path: &Path) -> Result<Vec<AnyEpisode>, IoError> {
    let (text, stem) = read_text(path)?;
    let error = |at: String| move |source| IoError::Episode { path: at, source };
    if path.extension().is_none_or(|x| x != "jsonl") {
        let document = AnyEpisode::from_json(&text, &stem);
        return document
            .map(|d| vec![d])
            .map_err(error(path.display().to_string()));
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            AnyEpisode::from_json(line, &format!("{stem}-{}", i + 1)).map_err(error(format!(
                "{}:{}",
                path.display(),
                i + 1
            )))
        })
        .collect()
}

/// Writes `contents` to `path` as the one output of a command: atomically for a file,
/// through for a device or pipe (see [`OutputSet`]); standard output (`-`) is refused
/// here, having no writer.
///
/// # Errors
/// [`IoError::Output`] naming the file.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), IoError> {
    let mut set = OutputSet::new();
    let slot = set.add("", path)?;
    if Destination::of(path).ok() == Some(Destination::Stdout) {
        let source = std::io::Error::other("standard output is not a file");
        return Err(IoError::File {
            path: path.display().to_string(),
            source,
        });
    }
    set.put(slot, contents);
    set.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let _lock = temporary::TEST_LOCK.lock();
        let dir = std::env::temp_dir().join(format!("bip-io-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("out.json");
        write_atomically(&path, b"one").expect("write");
        write_atomically(&path, b"two").expect("rewrite");
        assert_eq!(fs::read_to_string(&path).expect("read"), "two");
        let leftovers = fs::read_dir(&dir).expect("list").count();
        assert_eq!(leftovers, 1);
        fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn unwritable_destination_is_an_error_naming_it() {
        let path = Path::new("/nonexistent-bip-folder/out.json");
        let e = write_atomically(path, b"x").unwrap_err();
        assert!(e.to_string().contains("/nonexistent-bip-folder/out.json"));
    }
}
