//! A JSON Lines file that a long run appends to as it works, and that a rerun reads back
//! to skip what is done (the same scheme as the score cache of `bip-models`).
//!
//! Each piece of work is appended with a single write as soon as it is done, so that a
//! run stopped by anything (a kill, a crash) keeps everything finished. A run killed
//! mid-write leaves at most a partial last line, which the next open cuts off rather
//! than trusting.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::IoError;

/// A file of JSON lines open for appending.
#[derive(Debug)]
pub struct AppendLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl AppendLog {
    /// Opens the file at `path` (making it when new) and locks it for this process, cuts
    /// off a partial last line, and returns the log with its complete lines' text.
    ///
    /// # Errors
    /// [`IoError::File`] naming the file when it cannot be made, locked (another log holds
    /// it), read or cut;
    /// [`IoError::NotText`] when it is not UTF-8.
    pub fn open(path: &Path) -> Result<(Self, String), IoError> {
        let fail = |source| IoError::File {
            path: path.display().to_string(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(fail)?;
        // Two runs appending to one file would answer the same questions twice; the lock
        // goes with the process, a killed one's too.
        file.try_lock().map_err(|e| match e {
            TryLockError::WouldBlock => fail(std::io::Error::other(
                "in use by another run (run one process per shard)",
            )),
            TryLockError::Error(e) => fail(e),
        })?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(fail)?;
        // Everything after the last newline is a line cut short by a killed run.
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if complete < bytes.len() {
            file.set_len(complete as u64)
                .and_then(|()| file.seek(SeekFrom::End(0)).map(drop))
                .map_err(fail)?;
            bytes.truncate(complete);
        }
        let text = String::from_utf8(bytes).map_err(|e| IoError::NotText {
            path: path.display().to_string(),
            offset: e.utf8_error().valid_up_to(),
        })?;
        let log = Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        };
        Ok((log, text))
    }

    /// Appends `lines` (whole lines, each ending in a newline) with one write.
    ///
    /// # Errors
    /// [`IoError::File`] naming the file when the write fails.
    pub fn append(&self, lines: &str) -> Result<(), IoError> {
        let fail = |source| IoError::File {
            path: self.path.display().to_string(),
            source,
        };
        let mut file = self
            .file
            .lock()
            .map_err(|_| fail(std::io::Error::other("a writer panicked")))?;
        file.write_all(lines.as_bytes()).map_err(fail)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_last_line_is_cut_off_and_appends_follow_it() {
        let dir = std::env::temp_dir().join(format!("bip-append-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("folder");
        let path = dir.join("log.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").expect("written");
        let (log, text) = AppendLog::open(&path).expect("opens");
        assert_eq!(text, "{\"a\":1}\n");
        let busy = AppendLog::open(&path).unwrap_err();
        assert!(busy.to_string().contains("log.jsonl"), "{busy}");
        log.append("{\"c\":3}\n").expect("appends");
        drop(log);
        let (_, text) = AppendLog::open(&path).expect("opens again");
        assert_eq!(text, "{\"a\":1}\n{\"c\":3}\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
