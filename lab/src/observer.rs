//! What a long run tells its caller while it works: for progress displays and warnings.

use crate::variance::UnreadableRecord;

/// Hears how a run of [`evaluate`](crate::evaluation::evaluate) or
/// [`run_themes`](crate::variance::run_themes) goes. Every method does nothing unless
/// overridden; `()` hears nothing.
pub trait RunObserver: Sync {
    /// Inference is about to start on `episodes` episodes.
    fn started(&self, episodes: usize) {
        let _ = episodes;
    }

    /// One more episode is inferred. Called from worker threads, in any order.
    fn episode_done(&self) {}

    /// An item could not be read in one theme; the run goes on without it.
    fn unreadable(&self, record: &UnreadableRecord) {
        let _ = record;
    }
}

impl RunObserver for () {}
