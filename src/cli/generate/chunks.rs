//! Generated episodes and stories written as they are made, a chunk at a time.

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;

use bip::lab::LabError;

/// Episodes made (in parallel) and written (in order) at a time: memory stays flat
/// whatever `--n`.
const CHUNK: usize = 1024;

/// Writes what `make` makes of episodes `0..n` as JSON lines, [`CHUNK`] episodes at a
/// time, in index order (so the file is the same whatever the threads).
pub(super) fn write_in_chunks<T: Serialize + Send>(
    to: &mut dyn Write,
    n: usize,
    make: impl Fn(usize) -> Result<Vec<T>, LabError> + Sync,
) -> io::Result<()> {
    for start in (0..n).step_by(CHUNK) {
        let made = (start..n.min(start + CHUNK))
            .into_par_iter()
            .map(&make)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| io::Error::other(format!("generation failed: {e}")))?;
        for item in made.iter().flatten() {
            serde_json::to_writer(&mut *to, item)?;
            to.write_all(b"\n")?;
        }
    }
    Ok(())
}
