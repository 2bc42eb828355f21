//! A persistent cache of scores on disk, keyed by (model identity, token ids), so that an
//! interrupted run resumes where it stopped and a repeated one recomputes nothing.
//!
//! One file per model in the cache folder, `<name>-<hash>.jsonl`: a header line naming
//! the model, then one JSON line per scored continuation, appended with a single write as
//! soon as it is scored. A run killed mid-write leaves at most a partial last line, which
//! the next open drops (and cuts off) rather than trusting.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};

/// The format named in each cache file's header line.
const FORMAT: &str = "bip-score-cache/1";

/// How far two records of one text may differ and still be one model's scores: batches
/// of different shapes round differently in the last bits, far below this.
const DUPLICATE_TOLERANCE: f32 = 1e-3;

/// Scores of continuations by one model, kept in a folder across runs.
pub struct ScoreCache {
    path: PathBuf,
    file: Mutex<File>,
    entries: Mutex<HashMap<Key, Vec<f32>>>,
    lookups: AtomicU64,
    hits: AtomicU64,
    loaded: u64,
}

impl std::fmt::Debug for ScoreCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoreCache")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Token ids with the number of them (at the end) that were scored.
type Key = (Vec<u32>, usize);

#[derive(Serialize, Deserialize)]
struct Header {
    format: String,
    model: String,
}

#[derive(Serialize, Deserialize)]
struct Record {
    /// Every token, prompt then continuation.
    t: Vec<u32>,
    /// How many of the last tokens are the continuation.
    c: usize,
    /// Their log-probabilities.
    l: Vec<f32>,
}

/// How a cache has served so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ScoreCacheStats {
    /// Scores asked of it.
    pub lookups: u64,
    /// Scores it had.
    pub hits: u64,
    /// Scores it held when opened.
    pub loaded: u64,
}

impl ScoreCacheStats {
    /// Hits per lookup (`None` before the first lookup).
    pub fn hit_rate(&self) -> Option<f64> {
        (self.lookups > 0).then(|| self.hits as f64 / self.lookups as f64)
    }
}

impl ScoreCache {
    /// Opens (making it when new) the cache of the model named `identity` in `dir`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`] naming the file when it cannot be made, read or written;
    /// [`ModelError::Format`] naming the file and line for a line that is not a record
    /// (other than a partial last line) or a header naming another model.
    pub fn open(dir: &Path, identity: &str) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
        let path = dir.join(file_name(identity));
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| ModelError::io(&path, e))?;
        let (mut file, _) = crate::io::regular_file(file, &path)?;
        let mut text = String::new();
        file.read_to_string(&mut text)
            .map_err(|e| ModelError::io(&path, e))?;
        // Everything after the last newline is a record cut short by a killed run.
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        if complete < text.len() {
            file.set_len(complete as u64)
                .and_then(|()| file.seek(SeekFrom::End(0)).map(drop))
                .map_err(|e| ModelError::io(&path, e))?;
        }
        let entries = read_records(&path, &text[..complete], identity)?;
        if complete == 0 {
            let header = Header {
                format: FORMAT.into(),
                model: identity.into(),
            };
            append(&mut file, &path, &header)?;
        }
        let loaded = entries.len() as u64;
        Ok(Self {
            loaded,
            path,
            file: Mutex::new(file),
            entries: Mutex::new(entries),
            lookups: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The scores of the last `continuation` of `tokens`, when cached.
    pub fn get(&self, tokens: &[u32], continuation: usize) -> Option<Vec<f32>> {
        self.lookups.fetch_add(1, Ordering::Relaxed);
        let found = self
            .entries
            .lock()
            .ok()?
            .get(&(tokens.to_vec(), continuation))
            .cloned();
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Records the scores of the last `continuation` of `tokens`, on disk at once.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`] naming the file when the write fails.
    pub fn insert(&self, tokens: &[u32], continuation: usize, logprobs: &[f32]) -> Result<()> {
        let record = Record {
            t: tokens.to_vec(),
            c: continuation,
            l: logprobs.to_vec(),
        };
        let mut file = self.file.lock().map_err(|_| poisoned(&self.path))?;
        append(&mut file, &self.path, &record)?;
        if let Ok(mut entries) = self.entries.lock() {
            // A score already held stands, as it does when the file is read again.
            entries.entry((record.t, record.c)).or_insert(record.l);
        }
        Ok(())
    }

    /// Lookups and hits so far, and the scores held at opening.
    pub fn stats(&self) -> ScoreCacheStats {
        ScoreCacheStats {
            lookups: self.lookups.load(Ordering::Relaxed),
            hits: self.hits.load(Ordering::Relaxed),
            loaded: self.loaded,
        }
    }

    /// Scores held now.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }

    /// Whether it holds no scores.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `identity` made safe for a file name, with a hash so that distinct identities that
/// read alike once made safe still get distinct files.
fn file_name(identity: &str) -> String {
    let safe: String = identity
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    let hash = crate::weights::fnv1a(identity.as_bytes());
    format!("{safe}-{hash:016x}.jsonl")
}

fn read_records(path: &Path, text: &str, identity: &str) -> Result<HashMap<Key, Vec<f32>>> {
    let mut entries = HashMap::new();
    let mut lines = text.lines().enumerate();
    if let Some((_, first)) = lines.next() {
        let header: Header = serde_json::from_str(first)
            .map_err(|e| ModelError::format(path, format!("line 1: not a cache header: {e}")))?;
        if header.format != FORMAT || header.model != identity {
            return Err(ModelError::format(
                path,
                format!(
                    "line 1: a cache of `{}` in format {}, not of `{identity}` in {FORMAT}",
                    header.model, header.format
                ),
            ));
        }
    }
    // The line each key was first read from.
    let mut first_line: HashMap<Key, usize> = HashMap::new();
    for (i, line) in lines {
        let bad = |problem: String| ModelError::format(path, format!("line {}: {problem}", i + 1));
        let record: Record = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        if record.c > record.t.len() || record.l.len() != record.c {
            return Err(bad("a record whose counts do not agree".into()));
        }
        if let Some(l) = record.l.iter().find(|l| !(l.is_finite() && **l <= 0.0)) {
            return Err(bad(format!(
                "{l} is not a log-probability (finite, at most 0)"
            )));
        }
        let key = (record.t, record.c);
        match entries.get(&key) {
            None => {
                first_line.insert(key.clone(), i + 1);
                entries.insert(key, record.l);
            }
            // Two runs sharing the cache may both score one text: the same scores, up to
            // the last bits of a different batch. Any other difference is not the model's.
            Some(held) if agree(held, &record.l) => {}
            Some(_) => {
                let first = first_line.get(&key).copied().unwrap_or(0);
                return Err(bad(format!(
                    "scores the tokens of line {first} again, differently; a cache holds one \
                     model's scores (remove the file to score anew)"
                )));
            }
        }
    }
    Ok(entries)
}

/// Whether two records' scores are the same model's, up to rounding: within
/// [`DUPLICATE_TOLERANCE`] nats each.
fn agree(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= DUPLICATE_TOLERANCE)
}

/// Writes `value` as one line in one write, so that a killed run leaves whole lines and
/// at most one partial last line.
fn append(file: &mut File, path: &Path, value: &impl Serialize) -> Result<()> {
    let mut line = serde_json::to_vec(value)
        .map_err(|e| ModelError::format(path, format!("encoding a record: {e}")))?;
    line.push(b'\n');
    file.write_all(&line).map_err(|e| ModelError::io(path, e))
}

fn poisoned(path: &Path) -> ModelError {
    ModelError::format(path, "the cache's lock was poisoned by a panic")
}

#[cfg(test)]
mod tests;
