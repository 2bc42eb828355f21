//! Writing files so that a reader never sees half of one.

use std::path::Path;

use crate::error::{ModelError, Result};

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
