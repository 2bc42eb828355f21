//! Limits on what an input may make bip allocate and compute, and the shortening of
//! long input values quoted in error messages.
//!
//! An episode's cost grows with its places (rooms and furniture): the walking layout
//! keeps a room × room table, and inference weighs, for every hypothesis, every place
//! against every other. So an episode with more places than [`max_places`] is refused
//! when it is read ([`EpisodeError::TooLarge`](crate::EpisodeError::TooLarge)), before
//! anything is allocated for them. The limit is process-wide; a program that means to
//! read larger worlds raises it once with [`set_max_places`] (`bip --max-places N`).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The default [`max_places`]: a VirtualHome apartment has about 50 places, an MMToM-QA
/// one about 30; inference over one room of 256 containers takes about two seconds.
pub const DEFAULT_MAX_PLACES: usize = 256;

/// The largest distance a door may have: a door distance is a walking cost, and sums of
/// costs must stay far from overflowing to infinity.
pub const MAX_DOOR_DISTANCE: f64 = 1e6;

/// How many characters of an input value an error message quotes.
pub const QUOTED_CHARS: usize = 80;

static MAX_PLACES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_PLACES);

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
