//! Bounded concurrency: jobs run on a few threads, their results handed back in the
//! calling thread as they finish.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::error::{ModelError, Result};

/// Runs `job(i)` for `i` in `0..n` on at most `workers` threads, calling `done(i, value)`
/// in this thread as each finishes, so that what finished is kept whatever fails later.
/// After a failure no further job starts; the jobs already running finish.
///
/// # Errors
///
/// The failure of the earliest job that failed (a job's own or `done`'s).
pub(crate) fn run_bounded<T: Send>(
    n: usize,
    workers: usize,
    job: impl Fn(usize) -> Result<T> + Sync,
    done: &mut dyn FnMut(usize, T) -> Result<()>,
) -> Result<()> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut failure: Option<(usize, ModelError)> = None;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..workers.clamp(1, n.max(1)) {
            let tx = tx.clone();
            let (next, stop, job) = (&next, &stop, &job);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || stop.load(Ordering::Relaxed) {
                    break;
                }
                let result = job(i);
                // A job's own failure stops the others at once; `done`'s, when it is seen.
                if result.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
                if tx.send((i, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, result) in rx {
            if let Err(e) = result.and_then(|value| done(i, value)) {
                stop.store(true, Ordering::Relaxed);
                if failure.as_ref().is_none_or(|(j, _)| i < *j) {
                    failure = Some((i, e));
                }
            }
        }
    });
    failure.map_or(Ok(()), |(_, e)| Err(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_back_every_result_and_the_earliest_failure() {
        let mut seen = vec![0; 10];
        run_bounded(10, 3, |i| Ok(i * i), &mut |i, v| {
            seen[i] = v;
            Ok(())
        })
        .expect("all succeed");
        assert_eq!(seen, (0..10).map(|i| i * i).collect::<Vec<_>>());

        let mut kept = Vec::new();
        let err = run_bounded(
            6,
            1,
            |i| match i {
                2 | 4 => Err(ModelError::Backend(format!("job {i}"))),
                _ => Ok(i),
            },
            &mut |i, _| {
                kept.push(i);
                Ok(())
            },
        )
        .expect_err("job 2 fails");
        assert_eq!(err.to_string(), "backend: job 2");
        assert_eq!(kept, [0, 1], "one worker stops at the first failure");
    }
}
