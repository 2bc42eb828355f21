//! The reader's vocabulary, read-only, for crates that rewrite MMToM-QA text (the
//! thematic variants of `bip-themes` map every noun here to a themed one and back, and
//! must keep clear of the words the grammar reads).

use super::lexicon::{FURNITURE, OBJECTS, ROOMS};
use super::numbers::{count_word, ordinal_word};
use super::verbs::{is_location_preposition, is_negation, verb};

/// The noun the scene uses for the whole world ("What's inside the apartment").
pub const WORLD_NOUN: &str = "apartment";

/// What a noun of the vocabulary names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NounKind {
    /// A room (`kitchen`).
    Room,
    /// A class of furniture (`kitchen_cabinet`).
    Furniture,
    /// A class of object (`wine`).
    Object,
}

/// One room, furniture class or object class and the names the reader knows it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VocabularyNoun {
    /// Room, furniture or object.
    pub kind: NounKind,
    /// The id episodes use: a room id or a class (`living_room`, `kitchen_cabinet`).
    pub class: &'static str,
    /// Lower-case singular names in text, the usual one first; plurals are [`plural`].
    pub names: &'static [&'static str],
}

/// Every room, furniture class and object class, in that order.
pub fn nouns() -> Vec<VocabularyNoun> {
    let rooms = ROOMS.iter().map(|r| VocabularyNoun {
        kind: NounKind::Room,
        class: r.id,
        names: r.names,
    });
    let furniture = FURNITURE.iter().map(|f| VocabularyNoun {
        kind: NounKind::Furniture,
        class: f.class,
        names: f.names,
    });
    let objects = OBJECTS.iter().map(|o| VocabularyNoun {
        kind: NounKind::Object,
        class: o.class,
        names: o.names,
    });
    rooms.chain(furniture).chain(objects).collect()
}

/// The plural the reader accepts for a name: the head before "of" (`bags of chips`) or
/// the last word (`kitchen cabinets`, `bookshelves`).
pub fn plural(name: &str) -> String {
    super::lexicon::plural(name)
}

/// Whether the grammar gives the lower-case `word` a meaning of its own — a verb,
/// count, ordinal, preposition, negation, function word, pronoun or clause word — so
/// that a noun spelled with it could be misread.
pub fn is_grammar_word(word: &str) -> bool {
    // The scene's generic nouns ("room", "shelf", "storage") are not here: they only let
    // an unknown phrase pass, and a themed noun is mapped back to its base word before
    // the text is read.
    let lists: [&[&str]; 7] = [
        super::phrase::FUNCTION_WORDS,
        super::narrative::SUBJECTS,
        super::question::CONDITIONS,
        super::scene::NEGATIONS,
        super::scene::PLACE_PREPOSITIONS,
        super::scene::CLAUSE_WORDS,
        super::scene::RELATIVE_WORDS,
    ];
    let vague = super::phrase::VAGUE_COUNTS
        .iter()
        .any(|words| words.contains(&word));
    vague
        || lists.iter().any(|l| l.contains(&word))
        || verb(word).is_some()
        || count_word(word).is_some()
        || ordinal_word(word).is_some()
        || is_location_preposition(word)
        || is_negation(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_noun_has_names_and_classes_are_unique() {
        let all = nouns();
        let mut classes: Vec<_> = all.iter().map(|n| (n.kind, n.class)).collect();
        classes.sort();
        classes.dedup();
        assert_eq!(classes.len(), all.len());
        assert!(all.iter().all(|n| !n.names.is_empty()));
        assert!(all
            .iter()
            .any(|n| n.kind == NounKind::Furniture && n.class == "kitchen_cabinet"));
    }

    #[test]
    fn grammar_words_are_told_from_nouns() {
        for w in [
            "opens", "strides", "third", "two", "towards", "the", "which", "not",
        ] {
            assert!(is_grammar_word(w), "{w}");
        }
        for w in ["fridge", "hearth", "scroll", "chest"] {
            assert!(!is_grammar_word(w), "{w}");
        }
    }
}
