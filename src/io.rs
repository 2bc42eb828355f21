//! Reading episode files and writing outputs safely (atomically, as JSON Lines).

use std::fs;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use bip_episodes::{AnyEpisode, Episode, EpisodeError};

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
    /// The file is not a valid episode.
    #[error("{path}")]
    Episode {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: EpisodeError,
    },
}

/// A file's text and its name without extension.
fn read_text(path: &Path) -> Result<(String, String), IoError> {
    let text = fs::read_to_string(path).map_err(|source| IoError::File {
        path: path.display().to_string(),
        source,
    })?;
    Ok((text, file_stem(path)))
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

/// Writes `contents` to `path` through a temporary file in the same folder and a rename,
/// so that `path` never holds half an output.
///
/// # Errors
/// [`IoError::File`] naming the file.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), IoError> {
    let error = |source| IoError::File {
        path: path.display().to_string(),
        source,
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = folder.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = fs::File::create(&temporary).and_then(|mut f| {
        f.write_all(contents)?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| fs::rename(&temporary, path)) {
        let _ = fs::remove_file(&temporary);
        return Err(error(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
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
