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
