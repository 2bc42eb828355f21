//! Count words ("two", "a couple of" is read by the phrase grammar) and ordinals
//! ("third", "3rd", "last", "leftmost").

use std::ops::Range;

use super::text::Token;

/// Words that scale a count: "nine hundred", "a billion", "dozens of".
const MAGNITUDES: [&str; 12] = [
    "dozen",
    "dozens",
    "hundred",
    "hundreds",
    "thousand",
    "thousands",
    "million",
    "millions",
    "billion",
    "billions",
    "trillion",
    "trillions",
];

/// The span of the first count in `tokens` the reader cannot take literally: one scaled
/// by a magnitude word ("nine hundred", "a billion", "dozens of"), which the count words
/// alone would read as its first word, or a negative number ("-5"). Such a count is
/// refused rather than read as some other number.
pub(crate) fn unliteral_count(tokens: &[Token]) -> Option<Range<usize>> {
    let word = |k: usize| tokens.get(k).and_then(Token::word);
    (0..tokens.len()).find_map(|k| {
        let w = word(k)?;
        if MAGNITUDES.contains(&w) {
            let counted = k > 0 && word(k - 1).and_then(count_word).is_some();
            Some(k - usize::from(counted)..k + 1)
        } else if w
            .strip_prefix('-')
            .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()))
        {
            Some(k..k + 1)
        } else {
            None
        }
    })
}

/// The number a count word stands for: `two` → 2, `7` → 7, `a` → 1.
pub(crate) fn count_word(word: &str) -> Option<u32> {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    match word {
        "a" | "an" | "single" | "another" => Some(1),
        _ => WORDS
            .iter()
            .position(|w| *w == word)
            .and_then(|n| u32::try_from(n).ok())
            .or_else(|| word.parse().ok()),
    }
}

/// A position in a row, counted from the left unless the phrase says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ordinal {
    /// The n-th (1-based).
    Nth(u32),
    /// The n-th from the end ("last" is the first from the end, "second-to-last" the
    /// second).
    FromEnd(u32),
}

impl Ordinal {
    /// The last one.
    pub(crate) const LAST: Ordinal = Ordinal::FromEnd(1);
}

/// The ordinal an ordinal word stands for: `third` and `3rd` → 3, `last` → last.
pub(crate) fn ordinal_word(word: &str) -> Option<Ordinal> {
    const WORDS: [&str; 13] = [
        "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
        "ninth", "tenth", "eleventh", "twelfth",
    ];
    if let Some(n) = WORDS.iter().position(|w| *w == word) {
        return u32::try_from(n).ok().filter(|&n| n > 0).map(Ordinal::Nth);
    }
    match word {
        "last" | "final" | "rightmost" => return Some(Ordinal::LAST),
        "leftmost" => return Some(Ordinal::Nth(1)),
        "penultimate" => return Some(Ordinal::FromEnd(2)),
        _ => {}
    }
    // "second-to-last", "next-to-last", "third-from-last".
    for joint in ["-to-last", "-from-last"] {
        if let Some(stem) = word.strip_suffix(joint) {
            return match stem {
                "next" => Some(Ordinal::FromEnd(2)),
                _ => match ordinal_word(stem)? {
                    Ordinal::Nth(n) => Some(Ordinal::FromEnd(n)),
                    Ordinal::FromEnd(_) => None,
                },
            };
        }
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    let n: u32 = digits.parse().ok()?;
    let expected = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    (n > 0 && suffix == expected).then_some(Ordinal::Nth(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_scaled_or_negative_are_not_literal() {
        use super::super::text::{span_text, tokenize};
        let span = |text: &str| {
            let tokens = tokenize(text);
            unliteral_count(&tokens).map(|s| span_text(&tokens, s))
        };
        assert_eq!(
            span("It holds nine hundred apples.").as_deref(),
            Some("nine hundred")
        );
        assert_eq!(span("a billion apples").as_deref(), Some("a billion"));
        assert_eq!(
            span("Dozens of plates are there").as_deref(),
            Some("dozens")
        );
        assert_eq!(span("There are -5 apples").as_deref(), Some("-5"));
        assert_eq!(span("There are 5 apples and two-thirds of a pie"), None);
        assert_eq!(span("cabinets 1-3 hold nothing"), None);
    }

    #[test]
    fn counts() {
        assert_eq!(count_word("three"), Some(3));
        assert_eq!(count_word("a"), Some(1));
        assert_eq!(count_word("another"), Some(1));
        assert_eq!(count_word("12"), Some(12));
        assert_eq!(count_word("several"), None);
    }

    #[test]
    fn ordinals_in_words_and_digits() {
        assert_eq!(ordinal_word("third"), Some(Ordinal::Nth(3)));
        assert_eq!(ordinal_word("2nd"), Some(Ordinal::Nth(2)));
        assert_eq!(ordinal_word("11th"), Some(Ordinal::Nth(11)));
        assert_eq!(ordinal_word("21st"), Some(Ordinal::Nth(21)));
        assert_eq!(ordinal_word("2th"), None);
        assert_eq!(ordinal_word("leftmost"), Some(Ordinal::Nth(1)));
        assert_eq!(ordinal_word("last"), Some(Ordinal::LAST));
        assert_eq!(ordinal_word("second-to-last"), Some(Ordinal::FromEnd(2)));
        assert_eq!(ordinal_word("penultimate"), Some(Ordinal::FromEnd(2)));
        assert_eq!(ordinal_word("second-hand"), None);
    }
}
