//! Limits on what an input may make bip allocate and compute, and the shortening of
//! long input values quoted in error messages.
//!
//! An episode's cost grows with its places (rooms and furniture): the walking layout
//! keeps a room × room table, and the starting beliefs grow with the places, each
//! belief's work with them again. It grows too with the readings of its world (one
//! inference each). So an episode with more places than [`max_places`], or more readings
//! than [`max_readings`], is refused when it is read
//! ([`EpisodeError::TooLarge`](crate::EpisodeError::TooLarge)), before anything is
//! allocated for them. The limits are process-wide; a program that means to read larger
//! worlds raises them once with [`set_max_places`] (`bip --max-places N`) and
//! [`set_max_readings`] (`bip --max-readings N`).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The default [`max_places`]: a VirtualHome apartment has about 50 places, an MMToM-QA
/// one about 30; inference over one room of 256 containers takes a few hundredths of a
/// second, over 1,000 containers under half a second.
pub const DEFAULT_MAX_PLACES: usize = 256;

/// The default [`max_readings`]: the MMToM-QA reader writes at most 32; each reading is
/// one more inference (about 2 ms for a small episode).
pub const DEFAULT_MAX_READINGS: usize = 1024;

/// The largest distance a door may have: a door distance is a walking cost, and sums of
/// costs must stay far from overflowing to infinity.
pub const MAX_DOOR_DISTANCE: f64 = 1e6;

/// How many characters of an input value an error message quotes.
pub const QUOTED_CHARS: usize = 80;

static MAX_PLACES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_PLACES);

static MAX_READINGS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_READINGS);

/// The most readings of its world an episode may have (the world as written and its
/// `alternatives`).
pub fn max_readings() -> usize {
    MAX_READINGS.load(Ordering::Relaxed)
}

/// Sets [`max_readings`] for the whole process.
pub fn set_max_readings(limit: usize) {
    MAX_READINGS.store(limit, Ordering::Relaxed);
}

/// The most places (rooms plus furniture) an episode may have.
pub fn max_places() -> usize {
    MAX_PLACES.load(Ordering::Relaxed)
}

/// Sets [`max_places`] for the whole process.
pub fn set_max_places(limit: usize) {
    MAX_PLACES.store(limit, Ordering::Relaxed);
}

/// `text` as an error message quotes it: whole when short, else its first
/// [`QUOTED_CHARS`] characters and how long it was (a 500 KB name must not fill a
/// terminal).
///
/// ```
/// use bip_episodes::limits::quoted;
/// assert_eq!(quoted("fridge"), "fridge");
/// assert!(quoted(&"x".repeat(100_000)).ends_with("… (100000 bytes)"));
/// assert_eq!(quoted("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
/// ```
pub fn quoted(text: &str) -> String {
    shortened(text, QUOTED_CHARS)
}

/// `text` cut after `chars` characters, saying how long it was.
///
/// Control characters are escaped (`\u{1b}`, `\n`): an echoed value must not move the
/// cursor, end a line or forge one.
pub fn shortened(text: &str, chars: usize) -> String {
    let (kept, cut) = match text.char_indices().nth(chars) {
        None => (text, false),
        Some((end, _)) => (&text[..end], true),
    };
    let mut out = String::with_capacity(kept.len());
    for c in kept.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if cut {
        out.push_str(&format!("… ({} bytes)", text.len()));
    }
    out
}

/// `x` as an error message shows a number: plainly when of everyday size, in exponent
/// form otherwise (`1e308`, not 309 digits).
///
/// ```
/// use bip_episodes::limits::number;
/// assert_eq!((number(2.5), number(1e308), number(f64::NAN)), ("2.5".into(), "1e308".into(), "NaN".into()));
/// ```
pub fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e9).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// What a JSON reader's error says, without the "at line L column C" it appends (the
/// caller names the place once) and shortened to a few lines' worth (it may quote the
/// input).
pub fn json_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let place = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&place).unwrap_or(&text);
    shortened(message, 4 * QUOTED_CHARS)
}
