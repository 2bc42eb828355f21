//! A progress line on standard error with an ETA, shown only when standard error is a
//! terminal, so that logs and pipes stay clean.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Counts finished items and redraws at most ten times a second.
pub struct Progress {
    label: &'static str,
    total: usize,
    done: AtomicUsize,
    started: Instant,
    last_draw: Mutex<Option<Instant>>,
    visible: bool,
}

impl Progress {
    /// A progress line for `total` items.
    pub fn new(label: &'static str, total: usize) -> Self {
        Self {
            label,
            total,
            done: AtomicUsize::new(0),
            started: Instant::now(),
            last_draw: Mutex::new(None),
            visible: std::io::stderr().is_terminal() && total > 1,
        }
    }

    /// Records one finished item.
    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.visible {
            return;
        }
        let Ok(mut last) = self.last_draw.lock() else {
            return;
        };
        let now = Instant::now();
        if done < self.total && last.is_some_and(|t| now.duration_since(t).as_millis() < 100) {
            return;
        }
        *last = Some(now);
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = elapsed / done as f64 * (self.total - done) as f64;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{} {done}/{} ({elapsed:.0}s, ETA {eta:.0}s)  ",
            self.label, self.total
        );
        if done == self.total {
            let _ = writeln!(err);
        }
    }

    /// Seconds since the progress line was created.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}
