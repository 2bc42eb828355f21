//! What a ToMi story's nouns are, decided from the whole story before any sentence is
//! applied: rooms (where agents go), containers (where objects are or are put) and
//! objects.
//!
//! ToMi gives no list of containers (Hi-ToM's choices), and its containers need not be
//! written with an underscore ("box", "pantry"), so the kinds are read from the sentence
//! shapes: the one noun of a sentence where agents go, leave or stay is a room; in a
//! sentence with two or more nouns, one after a word of place ("in", "to", "into",
//! "from", ...) is a container and the other an object.

use crate::import::hitom::sentence::{Known, StoryNouns, Unread};
use crate::import::hitom::words::{
    has_phrase, words, Word, DETERMINERS, ENTER, LEAVE, LIKE, STAY, STAY_PHRASES,
};

/// Words before "the" that make the noun after it a place an object is in or put.
#[rustfmt::skip]
const PLACE_WORDS: &[&str] = &[
    "in", "into", "inside", "to", "onto", "on", "from", "of", "under", "within", "toward",
    "towards", "back", "off",
];

fn push_new(list: &mut Vec<String>, word: &str) {
    if !list.iter().any(|w| w == word) {
        list.push(word.to_string());
    }
}

/// The nouns of a sentence: each word after "the" that is not a name, with its position.
fn nouns<'a>(words: &'a [Word<'a>]) -> Vec<(usize, &'a str)> {
    (1..words.len())
        .filter(|&i| words[i - 1].is_any(DETERMINERS) && !words[i].is_name())
        .map(|i| (i, words[i].text))
        .collect()
}

/// The kinds of every noun of `sentences` (pronouns already resolved).
///
/// # Errors
/// The index of the sentence and why, when a noun would be both an object and a
/// container.
pub(super) fn lexicon(sentences: &[String]) -> Result<StoryNouns, (usize, Unread)> {
    let mut lex = StoryNouns::default();
    let read: Vec<Vec<Word<'_>>> = sentences.iter().map(|s| words(s)).collect();
    let telling = |w: &[Word<'_>]| w.iter().any(|w| w.is_any(LIKE));
    for w in read.iter().filter(|w| !telling(w)) {
        let going = w
            .iter()
            .any(|w| w.is_any(ENTER) || w.is_any(LEAVE) || w.is_any(STAY))
            || has_phrase(w, STAY_PHRASES);
        if let [(_, room)] = nouns(w).as_slice() {
            if going && w.iter().any(Word::is_name) {
                push_new(&mut lex.rooms, room);
            }
        }
    }
    for (s, w) in read.iter().enumerate().filter(|(_, w)| !telling(w)) {
        let nouns = nouns(w);
        if nouns.len() < 2 {
            continue;
        }
        for (i, noun) in nouns {
            if lex.is_room(noun) {
                continue;
            }
            let placed = i >= 2 && w[i - 2].is_any(PLACE_WORDS);
            let (kind, other) = if placed {
                (&mut lex.containers, &lex.objects)
            } else {
                (&mut lex.objects, &lex.containers)
            };
            if other.iter().any(|o| o == noun) {
                let reason = "is both an object and a place objects are put".to_string();
                return Err((
                    s,
                    Unread {
                        phrase: noun.to_string(),
                        reason,
                    },
                ));
            }
            push_new(kind, noun);
        }
    }
    Ok(lex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn kinds_come_from_sentence_shapes() {
        let story = strings(&[
            "Ella entered the garage.",
            "The spinach is in the green_crate.",
            "Aiden loves the tangerine",
            "Ella moved the spinach to the pantry.",
            "Ella walked out of the garage.",
        ]);
        let lex = lexicon(&story).expect("read");
        assert_eq!(lex.rooms, ["garage"]);
        assert_eq!(lex.containers, ["green_crate", "pantry"]);
        assert_eq!(lex.objects, ["spinach"]);
    }

    #[test]
    fn a_noun_of_two_kinds_is_refused() {
        let story = strings(&["The box is in the crate.", "Ann put the crate in the box."]);
        let (at, why) = lexicon(&story).expect_err("crate is both");
        assert_eq!(at, 1);
        assert_eq!(why.phrase, "crate");
    }
}
