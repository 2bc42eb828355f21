//! Reading files within bounds, and writing them so that a reader never sees half of one.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{ModelError, Result};

/// The default [`max_input_bytes`]: 256 MiB, a thousand times the MMToM-QA test set.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;

static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// The most bytes one text file read whole may hold (`bip --max-input-size`): episodes,
/// questions, model configs, training pairs and logs alike.
pub fn max_input_bytes() -> u64 {
    MAX_INPUT_BYTES.load(Ordering::Relaxed)
}

/// Sets [`max_input_bytes`] for the whole process.
pub fn set_max_input_bytes(limit: u64) {
    MAX_INPUT_BYTES.store(limit, Ordering::Relaxed);
}

/// All of `reader` when it holds at most [`max_input_bytes`], else `None` (having read
/// one byte past the limit, no more: a device that never ends stops there). `len_hint`
/// (a file's length) sizes the buffer, up to the limit.
///
/// # Errors
///
/// The reader's.
pub fn read_bounded(reader: impl Read, len_hint: u64) -> std::io::Result<Option<Vec<u8>>> {
    let limit = max_input_bytes();
    let mut bytes = Vec::with_capacity(usize::try_from(len_hint.min(limit)).unwrap_or(0));
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// The text of the file at `path`, read whole up to [`max_input_bytes`]; a pipe is read
/// like a file, and a device that never ends (`/dev/zero`) stops at the limit.
///
/// # Errors
///
/// [`ModelError::Io`] when it cannot be read, [`ModelError::Format`] past the limit or
/// when it is not UTF-8.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let file = File::open(path).map_err(|e| ModelError::io(path, e))?;
    let hint = file.metadata().map_or(0, |m| m.len());
    let Some(bytes) = read_bounded(file, hint).map_err(|e| ModelError::io(path, e))? else {
        let limit = max_input_bytes();
        return Err(ModelError::format(
            path,
            format!("longer than the input limit of {limit} bytes (--max-input-size)"),
        ));
    };
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        ModelError::format(path, format!("not UTF-8 text (byte {at})"))
    })
}

/// `file`, opened at `path`, and its length, when it is a regular file. Model files and
/// score caches are read by offset or to their end and appended to: a pipe would hang
/// the read, a device would never end.
///
/// # Errors
///
/// [`ModelError::Io`] when its kind cannot be read, [`ModelError::Format`] when it is not
/// a regular file.
pub(crate) fn regular_file(file: File, path: &Path) -> Result<(File, u64)> {
    let meta = file.metadata().map_err(|e| ModelError::io(path, e))?;
    if meta.is_file() {
        Ok((file, meta.len()))
    } else {
        Err(ModelError::format(
            path,
            "not a regular file (a pipe, device or folder)",
        ))
    }
}

/// Writes `contents` to `path` through a temporary file beside it and a rename.
///
/// # Errors
///
/// [`ModelError::Io`] naming `path`.
pub(crate) fn write_replacing(path: &Path, contents: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&temporary, contents)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| ModelError::io(path, e))
}

/// What `error` says about one line of JSON lines, its column first and without the line
/// number serde adds (the caller names the line): `column 12: expected ...`.
pub(crate) fn json_line_problem(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let at = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&at).unwrap_or(&text);
    format!("column {}: {message}", error.column())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_stops_at_the_limit_and_is_no_regular_file() {
        let zero = Path::new("/dev/zero");
        let err = read_text(zero).unwrap_err().to_string();
        assert!(
            err.contains("/dev/zero") && err.contains("input limit"),
            "{err}"
        );
        let file = File::open(zero).unwrap();
        let err = regular_file(file, zero).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn text_within_the_limit_is_read_whole() {
        let dir = std::env::temp_dir().join(format!("bip-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.json");
        std::fs::write(&path, "{\"a\": 1}\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "{\"a\": 1}\n");
        let file = File::open(&path).unwrap();
        assert_eq!(regular_file(file, &path).unwrap().1, 9);
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let err = read_text(&path).unwrap_err().to_string();
        assert!(err.contains("not UTF-8"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
