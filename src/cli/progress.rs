//! The progress display of inference runs: a line on standard error with an ETA, shown only
//! when standard error is a terminal (so that logs and pipes stay clean), and the
//! warnings of the run it follows.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use bip::lab::variance::UnreadableRecord;
use bip::lab::RunObserver;

/// Follows a library run ([`RunObserver`]): counts finished episodes and redraws at most
/// ten times a second.
pub struct Progress {
    label: &'static str,
    input: String,
    total: AtomicUsize,
    done: AtomicUsize,
    started: Mutex<Instant>,
    last_draw: Mutex<Option<Instant>>,
    terminal: bool,
}

impl Progress {
    /// A progress line labelled `label`.
    pub fn new(label: &'static str) -> Self {
        Self {
            label,
            input: "input".to_string(),
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            started: Mutex::new(Instant::now()),
            last_draw: Mutex::new(None),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// The same, naming `input` in the warnings about its items.
    pub fn reading(self, input: &Path) -> Self {
        Self {
            input: input.display().to_string(),
            ..self
        }
    }

    /// Seconds since the run started inferring (or since the display was made).
    pub fn elapsed(&self) -> f64 {
        self.started
            .lock()
            .map_or(0.0, |started| started.elapsed().as_secs_f64())
    }

    fn draw(&self, done: usize, total: usize) {
        let Ok(mut last) = self.last_draw.lock() else {
            return;
        };
        let now = Instant::now();
        if done < total && last.is_some_and(|t| now.duration_since(t).as_millis() < 100) {
            return;
        }
        *last = Some(now);
        let elapsed = self.elapsed();
        let eta = elapsed / done as f64 * total.saturating_sub(done) as f64;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{} {done}/{total} ({elapsed:.0}s, ETA {eta:.0}s)  ",
            self.label
        );
        if done == total {
            let _ = writeln!(err);
        }
    }
}

impl RunObserver for Progress {
    fn started(&self, episodes: usize) {
        self.total.store(episodes, Ordering::Relaxed);
        if let Ok(mut started) = self.started.lock() {
            *started = Instant::now();
        }
    }

    fn episode_done(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        if self.terminal && total > 1 {
            self.draw(done, total);
        }
    }

    fn unreadable(&self, record: &UnreadableRecord) {
        note!(
            "bip: {}:{} ({}): unreadable: {}",
            self.input,
            record.line,
            record.theme,
            record.unreadable
        );
    }
}
