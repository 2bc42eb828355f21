//! Themed text: rewriting running text (an MMToM-QA question, an episode's wording) and
//! checking that the rewrite can be undone.

use crate::error::ThemeError;
use crate::theme::Theme;

impl Theme {
    /// `text` in the theme's words: every room, furniture and object noun (and the world
    /// noun) replaced, with articles and plurals to match; everything else kept byte for
    /// byte.
    ///
    /// # Errors
    /// [`ThemeError::NotReversible`] when [`Theme::invert_text`] would not give back
    /// `text` (up to synonyms, see [`Theme::canonical_text`]): the text already uses a
    /// themed word, or themed words next to other words read as another noun.
    ///
    /// # Example
    /// ```
    /// let theme = bip_themes::Theme::builtin("wild-west").expect("built in");
    /// let text = "An apple and two bottles of wine are on the kitchen table.";
    /// let themed = theme.apply_text(text)?;
    /// assert_eq!(themed, "A prickly pear and two bottles of whiskey are on the chuck table.");
    /// assert_eq!(theme.invert_text(&themed), text);
    /// # Ok::<(), bip_themes::ThemeError>(())
    /// ```
    pub fn apply_text(&self, text: &str) -> Result<String, ThemeError> {
        if self.is_identity() {
            return Ok(text.to_string());
        }
        let themed = self.tables.forward.rewrite(text);
        let back = self.invert_text(&themed);
        let expected = self.canonical_text(text);
        match first_difference(&expected, &back) {
            None => Ok(themed),
            Some(at) => Err(ThemeError::NotReversible {
                location: format!("character {}", expected[..at].chars().count() + 1),
                original: around(&expected, at),
                round_trip: around(&back, at),
            }),
        }
    }

    /// Themed `text` back in the base words: the inverse of [`Theme::apply_text`].
    pub fn invert_text(&self, text: &str) -> String {
        if self.is_identity() {
            return text.to_string();
        }
        self.tables.inverse.rewrite(text)
    }
}

/// The byte offset (on a character boundary) where `a` and `b` first differ.
fn first_difference(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let at = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    // Back to the start of the word, so that the message shows whole words.
    let start = a[..at]
        .rfind(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map_or(0, |i| i + 1);
    Some(start.min(at))
}

/// About 40 characters of `text` from byte `at`.
fn around(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    text[at..].chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use crate::Theme;

    fn theme(id: &str) -> Theme {
        Theme::builtin(id).expect("built in")
    }

    #[test]
    fn sentences_round_trip_through_every_theme() {
        // Sentences in the style of MMToM-QA but not taken from it.
        let text = "What's inside the apartment: The apartment has a kitchen, a dining room \
            and two bedrooms. An apple, three books and a bag of chips sit on the coffee \
            table; the fridge holds a bottle of wine, two wine glasses and a dishbowl. \
            The fifth kitchen cabinet from the left is empty.\nActions taken by Ann: Ann \
            walks past the refrigerator towards the bathroom cabinet, opens it and \
            grabs the remote control. Question: Does Ann think there is a cupcake \
            inside the microwave? (a) Yes. (b) No.";
        for t in crate::builtins() {
            let themed = t
                .apply_text(text)
                .unwrap_or_else(|e| panic!("{}: {e}", t.id()));
            assert_eq!(t.invert_text(&themed), text, "{}", t.id());
            if !t.is_identity() {
                assert_ne!(themed, text, "{}", t.id());
                assert!(!themed.contains("kitchen cabinet"), "{}: {themed}", t.id());
            }
        }
    }

    #[test]
    fn nouns_articles_and_plurals_read_naturally() {
        let t = theme("andersen");
        let themed = t
            .apply_text(
                "An apple is in the fridge, a wine glass and two remote controls on the sofa.",
            )
            .expect("reversible");
        assert_eq!(
            themed,
            "A golden apple is in the cooling box, a mead horn and two magic wands on the settle."
        );
        let egypt = theme("egypt");
        assert_eq!(
            egypt
                .apply_text("The book is in a cabinet.")
                .expect("reversible"),
            "The papyrus scroll is in a treasure chest."
        );
    }

    #[test]
    fn a_synonym_without_a_themed_noun_comes_back_as_the_usual_name() {
        let t = theme("space");
        let themed = t.apply_text("He opens the cupboard.").expect("reversible");
        assert_eq!(t.invert_text(&themed), "He opens the cabinet.");
        assert_eq!(
            t.canonical_text("He opens the cupboard."),
            "He opens the cabinet."
        );
    }

    #[test]
    fn text_already_using_a_themed_word_is_refused() {
        let t = theme("andersen");
        // "cooling box" is Andersen's fridge: the inverse could not tell them apart.
        let e = t
            .apply_text("The fridge is next to a cooling box.")
            .unwrap_err();
        assert!(e.to_string().contains("cooling box"), "{e}");
    }
}
