//! Running a target over its seeds and their mutations: panics caught and saved,
//! executions timed, new behaviour kept in the corpus.

use std::collections::HashSet;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::mutate::Mutator;
use crate::targets::{Scratch, Target};

/// An execution that takes longer than this is a hang.
pub const SLOW: Duration = Duration::from_secs(5);

/// Most inputs kept in the in-memory corpus.
const MAX_CORPUS: usize = 4096;

/// How long a campaign runs and where it keeps what it finds.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Executions to run (seeds included).
    pub runs: u64,
    /// Stop after this long, whatever `runs` says.
    pub time: Duration,
    /// Seed of the mutations.
    pub seed: u64,
    /// Where inputs that panicked or were slow are written (none when `None`).
    pub crashes: Option<PathBuf>,
    /// Print a progress line this often (never when `None`).
    pub progress: Option<Duration>,
    /// End the process when one execution outlasts [`SLOW`] by this much (a hang), after
    /// saving the input (when `None`, a hang is only reported once it ends).
    pub hang_exit: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            runs: 1_000,
            time: Duration::from_secs(3600),
            seed: 0,
            crashes: None,
            progress: None,
            hang_exit: None,
        }
    }
}

/// What a campaign found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Executions run.
    pub executions: u64,
    /// Seconds the campaign took.
    pub seconds: f64,
    /// The slowest execution, in seconds.
    pub slowest: f64,
    /// Inputs kept in the corpus at the end.
    pub corpus: usize,
    /// Distinct signatures seen.
    pub signatures: usize,
    /// Panics: the message, and where the input was saved (if it was).
    pub crashes: Vec<(String, Option<PathBuf>)>,
    /// Executions slower than [`SLOW`]: seconds, and where the input was saved.
    pub slow: Vec<(f64, Option<PathBuf>)>,
    /// Peak resident memory of the process, in bytes (Linux), when known.
    pub peak_memory: Option<u64>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} executions in {:.1} s ({:.0}/s), {} crashes, {} slower than {} s (slowest {:.3} s), corpus {}, {} signatures",
            self.executions,
            self.seconds,
            self.executions as f64 / self.seconds.max(1e-9),
            self.crashes.len(),
            self.slow.len(),
            SLOW.as_secs(),
            self.slowest,
            self.corpus,
            self.signatures,
        )?;
        if let Some(peak) = self.peak_memory {
            write!(f, ", peak memory {} MiB", peak >> 20)?;
        }
        Ok(())
    }
}

/// The message of the last panic on this process, taken by the campaign.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Runs `target` on `seeds`, then on mutations of its corpus, within `limits`, in the
/// scratch folder `scratch` (created; the input being run is always at
/// `scratch/current`, for a caller that outlives an abort).
///
/// # Errors
///
/// Whatever creating the scratch folder or saving a crashing input returns.
pub fn run(
    target: &Target,
    seeds: &[Vec<u8>],
    limits: &Limits,
    scratch: &Path,
) -> io::Result<Report> {
    let scratch = Scratch::new(scratch)?;
    (target.setup)(&scratch)?;
    let previous_hook = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(info.to_string());
        }
    }));
    let watch = Watch::start(&scratch, limits, target.name);
    let result = drive(target, seeds, limits, &scratch, &watch);
    watch.stop();
    panic::set_hook(previous_hook);
    let mut report = result?;
    report.peak_memory = peak_memory();
    Ok(report)
}

/// The campaign's loop.
fn drive(
    target: &Target,
    seeds: &[Vec<u8>],
    limits: &Limits,
    scratch: &Scratch,
    watch: &Watch,
) -> io::Result<Report> {
    let started = Instant::now();
    let mut mutator = Mutator::new(limits.seed, target.hot);
    let mut corpus: Vec<Vec<u8>> = seeds.to_vec();
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let mut seen = HashSet::new();
    let mut report = Report::default();
    let mut last_progress = Instant::now();
    while report.executions < limits.runs && started.elapsed() < limits.time {
        let i = report.executions as usize;
        let input = if i < seeds.len() {
            seeds[i].clone()
        } else {
            let base = &corpus[mutator.below(corpus.len())];
            let other = &corpus[mutator.below(corpus.len())];
            mutator.mutate(base, target.dictionary, other)
        };
        scratch.save_current(&input)?;
        watch.begin();
        let t0 = Instant::now();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| (target.run)(&input, scratch)));
        let took = t0.elapsed();
        watch.end();
        report.executions += 1;
        report.slowest = report.slowest.max(took.as_secs_f64());
        match outcome {
            Ok(signature) => {
                if seen.insert(signature) && corpus.len() < MAX_CORPUS && i >= seeds.len() {
                    corpus.push(input.clone());
                }
            }
            Err(_) => {
                let message = LAST_PANIC
                    .lock()
                    .ok()
                    .and_then(|mut m| m.take())
                    .unwrap_or_default();
                let saved = save(limits, target, "crash", &input)?;
                report.crashes.push((message, saved));
            }
        }
        if took > SLOW {
            let saved = save(limits, target, "slow", &input)?;
            report.slow.push((took.as_secs_f64(), saved));
        }
        if limits
            .progress
            .is_some_and(|e| last_progress.elapsed() >= e)
        {
            last_progress = Instant::now();
            report.seconds = started.elapsed().as_secs_f64();
            report.corpus = corpus.len();
            report.signatures = seen.len();
            eprintln!("fuzz {}: {report}", target.name);
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.corpus = corpus.len();
    report.signatures = seen.len();
    Ok(report)
}

/// Writes `input` as `crashes/TARGET/KIND-HASH` when the limits name a crash folder.
fn save(limits: &Limits, target: &Target, kind: &str, input: &[u8]) -> io::Result<Option<PathBuf>> {
    let Some(dir) = &limits.crashes else {
        return Ok(None);
    };
    let dir = dir.join(target.name);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{kind}-{:016x}", fnv1a(input)));
    std::fs::write(&path, input)?;
    Ok(Some(path))
}

/// FNV-1a of `bytes`: names saved inputs by their content.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The process's peak resident memory, from `/proc/self/status` (Linux).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A watchdog thread: when one execution outlasts [`SLOW`] plus the limits' `hang_exit`,
/// it copies the input being run into the crash folder and ends the process (status 3).
struct Watch {
    started_ms: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    clock: Instant,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    fn start(scratch: &Scratch, limits: &Limits, target: &str) -> Self {
        let started_ms = Arc::new(AtomicU64::new(u64::MAX));
        let stop = Arc::new(AtomicBool::new(false));
        let clock = Instant::now();
        let thread = limits.hang_exit.map(|grace| {
            let (started_ms, stop) = (Arc::clone(&started_ms), Arc::clone(&stop));
            let current = scratch.current();
            let crashes = limits.crashes.as_ref().map(|d| d.join(target));
            std::thread::spawn(move || {
                let limit = (SLOW + grace).as_millis() as u64;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    let began = started_ms.load(Ordering::Relaxed);
                    let now = clock.elapsed().as_millis() as u64;
                    if began != u64::MAX && now.saturating_sub(began) > limit {
                        hang(&current, crashes.as_deref(), now - began);
                    }
                }
            })
        });
        Self {
            started_ms,
            stop,
            clock,
            thread,
        }
    }

    fn begin(&self) {
        let now = self.clock.elapsed().as_millis() as u64;
        self.started_ms.store(now, Ordering::Relaxed);
    }

    fn end(&self) {
        self.started_ms.store(u64::MAX, Ordering::Relaxed);
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Saves the hanging input and ends the process.
fn hang(current: &Path, crashes: Option<&Path>, ms: u64) -> ! {
    let saved = crashes.and_then(|dir| {
        let input = std::fs::read(current).ok()?;
        std::fs::create_dir_all(dir).ok()?;
        let path = dir.join(format!("hang-{:016x}", fnv1a(&input)));
        std::fs::write(&path, input).ok().map(|()| path)
    });
    eprintln!(
        "fuzz: an execution has run for {ms} ms: a hang (input at {})",
        saved.as_deref().unwrap_or(current).display()
    );
    std::process::exit(3)
}
