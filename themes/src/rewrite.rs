//! Rewriting nouns in running text: longest match over words, keeping everything else
//! byte for byte, with the article and capital letter the new noun needs.
//!
//! A word is a run of letters, digits and hyphens. A noun of several words matches only
//! when its words are separated by white space alone ("kitchen cabinet", not "kitchen,
//! cabinet"), and the longest noun wins ("kitchen cabinet" before "kitchen"). An "a" or
//! "an" right before a replaced singular noun is changed to the new noun's article; a
//! noun that began with a capital letter keeps it.

use std::collections::HashMap;
use std::ops::Range;

/// What a matched noun becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// The new words, lower case.
    pub(crate) text: String,
    /// The article the new noun takes after "a"/"an"; `None` for plurals.
    pub(crate) article: Option<&'static str>,
}

/// Lower-case nouns (words joined by single spaces) and what each becomes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    entries: HashMap<String, Replacement>,
    longest: usize,
}

impl Table {
    /// Adds `key → replacement` unless `key` is there already; returns the one there.
    pub(crate) fn insert(&mut self, key: &str, replacement: Replacement) -> Option<&Replacement> {
        self.longest = self.longest.max(key.split(' ').count());
        match self.entries.entry(key.to_string()) {
            std::collections::hash_map::Entry::Occupied(e) => Some(e.into_mut()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(replacement);
                None
            }
        }
    }

    /// Whether `key` is a noun of the table.
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// The nouns of `text` the table changes (a noun that stays itself is not one), in
    /// order.
    pub(crate) fn changed(&self, text: &str) -> Vec<String> {
        self.find(text)
            .into_iter()
            .filter(|(_, key)| self.entries.get(key).is_some_and(|r| r.text != *key))
            .map(|(_, key)| key)
            .collect()
    }

    /// Every noun found in `text`, left to right, as (byte range, lower-case key).
    pub(crate) fn find(&self, text: &str) -> Vec<(Range<usize>, String)> {
        let words = word_spans(text);
        let mut found = Vec::new();
        let mut i = 0;
        while i < words.len() {
            match self.match_at(text, &words, i) {
                Some((len, key, _)) => {
                    found.push((words[i].start..words[i + len - 1].end, key));
                    i += len;
                }
                None => i += 1,
            }
        }
        found
    }

    /// `text` with every noun of the table replaced.
    pub(crate) fn rewrite(&self, text: &str) -> String {
        let words = word_spans(text);
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        let mut copied = 0;
        // The last word copied unchanged: its range in `out` and its end in `text`.
        let mut previous: Option<(Range<usize>, usize)> = None;
        let mut i = 0;
        while i < words.len() {
            let Some((len, _, replacement)) = self.match_at(text, &words, i) else {
                let start = out.len() + words[i].start - copied;
                out.push_str(&text[copied..words[i].end]);
                copied = words[i].end;
                previous = Some((start..out.len(), words[i].end));
                i += 1;
                continue;
            };
            let span = words[i].start..words[i + len - 1].end;
            out.push_str(&text[copied..span.start]);
            if let (Some(article), Some((range, end))) = (replacement.article, &previous) {
                let between = &text[*end..span.start];
                let word = out[range.clone()].to_lowercase();
                if (word == "a" || word == "an") && !between.is_empty() && between.trim().is_empty()
                {
                    let capital = out[range.clone()].starts_with(char::is_uppercase);
                    out.replace_range(range.clone(), &capitalised(article, capital));
                }
            }
            let capital = text[span.clone()].starts_with(char::is_uppercase);
            out.push_str(&capitalised(&replacement.text, capital));
            copied = span.end;
            previous = None;
            i += len;
        }
        out.push_str(&text[copied..]);
        out
    }

    /// The longest noun starting at word `i`: (words, key, replacement).
    fn match_at(
        &self,
        text: &str,
        words: &[Range<usize>],
        i: usize,
    ) -> Option<(usize, String, &Replacement)> {
        let max = self.longest.min(words.len() - i);
        // Only words joined by white space can form one noun.
        let mut joined = 1;
        while joined < max
            && text[words[i + joined - 1].end..words[i + joined].start]
                .trim()
                .is_empty()
        {
            joined += 1;
        }
        (1..=joined).rev().find_map(|len| {
            let key = words[i..i + len]
                .iter()
                .map(|w| text[w.clone()].to_lowercase())
                .collect::<Vec<_>>()
                .join(" ");
            self.entries.get(&key).map(|r| (len, key, r))
        })
    }
}

fn capitalised(text: &str, capital: bool) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if capital => first.to_uppercase().chain(chars).collect(),
        _ => text.to_string(),
    }
}

/// Byte ranges of the words of `text`: runs of letters, digits and hyphens.
pub(crate) fn word_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let in_word = c.is_alphanumeric() || c == '-';
        match (in_word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push(s..text.len());
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pairs: &[(&str, &str, Option<&'static str>)]) -> Table {
        let mut t = Table::default();
        for (k, v, a) in pairs {
            t.insert(
                k,
                Replacement {
                    text: v.to_string(),
                    article: *a,
                },
            );
        }
        t
    }

    #[test]
    fn longest_noun_wins_and_other_text_is_kept() {
        let t = table(&[
            ("kitchen", "hearth", Some("a")),
            ("kitchen cabinet", "hearth cupboard", Some("a")),
            ("cabinets", "cupboards", None),
        ]);
        assert_eq!(
            t.rewrite("In the kitchen,  two cabinets; the 3rd kitchen cabinet (left)."),
            "In the hearth,  two cupboards; the 3rd hearth cupboard (left)."
        );
        // A comma between the words breaks the noun.
        assert_eq!(t.rewrite("kitchen, cabinets"), "hearth, cupboards");
    }

    #[test]
    fn articles_and_capitals_follow_the_new_noun() {
        let t = table(&[
            ("apple", "pear", Some("a")),
            ("book", "old scroll", Some("an")),
            ("fridge", "icebox", Some("an")),
        ]);
        assert_eq!(
            t.rewrite("An apple, a book and A fridge. Fridge first; an empty book."),
            "A pear, an old scroll and An icebox. Icebox first; an empty old scroll."
        );
        // Only an article right before the noun changes.
        assert_eq!(t.rewrite("a\nbook"), "an\nold scroll");
        assert_eq!(t.rewrite("a (book)"), "a (old scroll)");
        assert_eq!(t.rewrite("a banana book"), "a banana old scroll");
    }

    #[test]
    fn words_are_whole_words() {
        let t = table(&[("bed", "cot", Some("a"))]);
        assert_eq!(
            t.rewrite("bedroom bed-side bed's bed"),
            "bedroom bed-side cot's cot"
        );
        assert_eq!(t.find("a bed, beds"), vec![(2..5, "bed".to_string())]);
    }
}
