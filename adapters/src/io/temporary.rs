//! Temporary files of atomic writes, remembered until renamed or removed, so that an
//! interrupted command (SIGINT, SIGTERM) can remove them: [`remove_all`].

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files that exist (or are about to) and are not yet renamed into place.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remembers `path` before it is created.
pub(super) fn register(path: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.push(path.to_path_buf());
    }
}

/// Forgets `path` once it is renamed into place or removed.
pub(super) fn forget(path: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.retain(|p| p != path);
    }
}

/// Removes `path` (if it exists) and forgets it.
pub(super) fn discard(path: &Path) {
    let _ = fs::remove_file(path);
    forget(path);
}

/// Removes every temporary file an atomic write of this process has not yet renamed into
/// place: what a signal handler calls before the process ends, so that an interrupted
/// write leaves nothing behind.
pub fn remove_all() {
    let pending = match PENDING.lock() {
        Ok(mut pending) => std::mem::take(&mut *pending),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for path in pending {
        let _ = fs::remove_file(path);
    }
}

/// Held by the tests that stage temporaries, so that one calling [`remove_all`] does not
/// remove another's.
#[cfg(test)]
pub(crate) static TEST_LOCK: Mutex<()> = Mutex::new(());
