//! A noun as text needs it: singular, plural and the indefinite article.

use serde::Serialize;

/// A noun with the forms a sentence needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    /// Lower-case singular ("cooling box", "jug of mead").
    pub singular: String,
    /// Lower-case plural ("cooling boxes", "jugs of mead").
    pub plural: String,
    /// "a" or "an".
    pub article: &'static str,
}

impl Word {
    /// A noun with the reader's regular plural and the article its first letter calls for.
    pub fn regular(singular: &str) -> Word {
        Word {
            singular: singular.to_string(),
            plural: bip_episodes::import::mmtom::vocabulary::plural(singular),
            article: article_for(singular),
        }
    }

    /// The same noun with its id spelling: words joined by `_` (`cooling_box`).
    pub fn id(&self) -> String {
        self.singular.replace(' ', "_")
    }
}

/// "an" before a vowel letter, "a" otherwise (a theme file overrides the exceptions:
/// "an hourglass", "a unicorn horn").
pub(crate) fn article_for(singular: &str) -> &'static str {
    match singular.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// Why `text` cannot be a themed noun, if it cannot: nouns are lower-case words of
/// letters, digits and inner hyphens, separated by single spaces.
pub(crate) fn spelling_error(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("empty".into());
    }
    for word in text.split(' ') {
        if word.is_empty() {
            return Some("words must be separated by single spaces".into());
        }
        if word.starts_with('-') || word.ends_with('-') {
            return Some(format!("\"{word}\": a hyphen must be inside a word"));
        }
        if let Some(c) = word
            .chars()
            .find(|&c| !(c == '-' || c.is_alphanumeric() && !c.is_uppercase()))
        {
            return Some(format!(
                "\"{word}\": '{c}' is not a lower-case letter, digit or hyphen"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_nouns_get_the_reader_plural_and_article() {
        let w = Word::regular("oak chest");
        assert_eq!((w.plural.as_str(), w.article), ("oak chests", "an"));
        let w = Word::regular("jug of mead");
        assert_eq!((w.plural.as_str(), w.article), ("jugs of mead", "a"));
        assert_eq!(Word::regular("cooling box").id(), "cooling_box");
    }

    #[test]
    fn spelling_rejects_capitals_punctuation_and_double_spaces() {
        assert_eq!(spelling_error("six-shooter"), None);
        assert!(spelling_error("Magic wand").is_some());
        assert!(spelling_error("magic  wand").is_some());
        assert!(spelling_error("wand,").is_some());
        assert!(spelling_error("-wand").is_some());
        assert!(spelling_error("").is_some());
    }
}
