//! Words of a Hi-ToM sentence and the small closed lists of cues the reader keys on.
//!
//! The open parts of a sentence — verbs, adverbs, connectives — are not listed: a
//! sentence is read by what it names (agents, containers, objects, rooms) and by a few
//! cues that decide between readings that name the same kinds of things (leaving or
//! staying or entering; telling or moving).

/// One word of a sentence: letters, digits, `_`, `'` and `-`; punctuation dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::import) struct Word<'a> {
    /// As written.
    pub text: &'a str,
    /// Lower-cased.
    pub lower: String,
}

impl Word<'_> {
    /// A name: a capitalised word that is not one of [`NOT_NAMES`].
    pub fn is_name(&self) -> bool {
        let mut chars = self.text.chars();
        let capital = chars.next().is_some_and(char::is_uppercase)
            && chars.all(|c| c.is_lowercase() || c == '-' || c == '\'');
        capital && !NOT_NAMES.contains(&self.lower.as_str())
    }

    /// Whether the word is one of `list`.
    pub fn is_any(&self, list: &[&str]) -> bool {
        list.contains(&self.lower.as_str())
    }
}

/// The words of `sentence`, in order.
pub(in crate::import) fn words(sentence: &str) -> Vec<Word<'_>> {
    sentence
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '\'' | '-')))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '-'))
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .filter(|w| !w.is_empty())
        .map(|text| Word {
            text,
            lower: text.to_lowercase(),
        })
        .collect()
}

/// Whether any of `phrases` (lower case, words separated by single spaces) occurs in
/// `words`, word for word.
pub(in crate::import) fn has_phrase(words: &[Word<'_>], phrases: &[&str]) -> bool {
    phrases.iter().any(|phrase| {
        let parts: Vec<&str> = phrase.split(' ').collect();
        words
            .windows(parts.len())
            .any(|w| w.iter().zip(&parts).all(|(a, b)| a.lower == *b))
    })
}

/// Capitalised words that are not names: sentence openers, pronouns, question words.
#[rustfmt::skip]
pub(in crate::import) const NOT_NAMES: &[&str] = &[
    "a", "after", "afterwards", "all", "an", "and", "answer", "anybody", "anyone", "at",
    "before", "below", "but", "by", "does", "during", "eventually", "everybody", "everyone",
    "finally", "first", "he", "her", "his", "i", "in", "inside", "it", "its", "later",
    "meanwhile", "next", "no", "nobody", "note", "now", "on", "once", "please", "question",
    "read", "she", "so", "somebody", "someone", "soon", "story", "suddenly", "that", "the",
    "their", "then", "there", "they", "this", "to", "we", "what", "when", "where", "which",
    "while", "who", "with", "would", "you",
];

/// Words that stand for an agent without naming it: a sentence with one cannot say who.
pub(in crate::import) const PRONOUNS: &[&str] = &[
    "he", "she", "they", "him", "them", "we", "someone", "somebody",
];

/// Determiners after which a word is a noun the story may track.
pub(in crate::import) const DETERMINERS: &[&str] = &["the"];

/// Words that leave a room.
#[rustfmt::skip]
pub(in crate::import) const LEAVE: &[&str] = &[
    "exit", "exited", "exiting", "exits", "leave", "leaves", "leaving", "left", "depart",
    "departed", "departs", "out",
];

/// Words that stay where one is.
#[rustfmt::skip]
pub(in crate::import) const STAY: &[&str] = &[
    "stay", "stayed", "stays", "remain", "remained", "remains", "wait", "waited", "waits",
    "linger", "lingered", "lingers", "idled", "loitered",
];

/// Phrases of staying put.
pub(in crate::import) const STAY_PHRASES: &[&str] =
    &["no movements", "no movement", "did not move"];

/// Words that go into a room (verbs of motion and the prepositions that lead to a room).
#[rustfmt::skip]
pub(in crate::import) const ENTER: &[&str] = &[
    "arrive", "arrived", "arrives", "came", "come", "comes", "enter", "entered", "enters",
    "gathered", "go", "goes", "headed", "in", "inside", "into", "joined", "moved", "ran",
    "reached", "returned", "stepped", "to", "toward", "towards", "walked", "went",
    "wandered",
];

/// Words of saying: a sentence that names an object in a container and has one of these
/// (or a second agent, or "that") tells rather than moves.
#[rustfmt::skip]
pub(in crate::import) const SAY: &[&str] = &[
    "announced", "assured", "claimed", "claims", "confided", "declared", "explained",
    "hinted", "informed", "insisted", "lied", "mentioned", "remarked", "reported",
    "revealed", "said", "says", "shouted", "stated", "suggested", "swore", "tells", "told",
    "whispered", "wrote",
];

/// Cues that a claim is heard by everyone present.
#[rustfmt::skip]
pub(in crate::import) const PUBLIC: &[&str] = &[
    "aloud", "announced", "everybody", "everyone", "loudly", "openly", "public",
    "publicly", "shouted",
];

/// Cues that a claim is heard by one listener only.
#[rustfmt::skip]
pub(in crate::import) const PRIVATE: &[&str] = &[
    "confided", "private", "privately", "quietly", "secret", "secretly", "whispered",
];

/// Words of liking and disliking: a sentence with one says nothing of where things are.
#[rustfmt::skip]
pub(in crate::import) const LIKE: &[&str] = &[
    "adores", "detests", "dislike", "disliked", "dislikes", "enjoys", "fancies", "hated",
    "hates", "like", "liked", "likes", "loved", "loves", "prefers",
];

/// Words that deny what the sentence says happened.
pub(in crate::import) const NOT: &[&str] =
    &["not", "never", "didn't", "doesn't", "don't", "wasn't"];

/// Words that mark a container as where an object comes from, not where it goes.
pub(in crate::import) const FROM: &[&str] = &["from", "of", "off"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_underscores_and_drop_punctuation() {
        let w = words("1 Logan, Charlotte and Ann entered the waiting_room.");
        let texts: Vec<&str> = w.iter().map(|w| w.text).collect();
        assert_eq!(
            texts,
            [
                "1",
                "Logan",
                "Charlotte",
                "and",
                "Ann",
                "entered",
                "the",
                "waiting_room"
            ]
        );
        assert!(w[1].is_name() && !w[3].is_name() && !w[7].is_name());
        assert!(!words("The pear")[0].is_name());
        assert!(has_phrase(&words("He made no movements."), STAY_PHRASES));
        assert_eq!(words("In Ann's view")[1].text, "Ann");
    }
}
