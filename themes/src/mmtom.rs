//! Themed MMToM-QA questions: rewriting a record's text, and reading themed text.
//!
//! The reader (`bip_episodes::import::mmtom`) knows only the base vocabulary, and
//! `bip-episodes` cannot depend on this crate. So themed text is read by mapping it back
//! to the base words first ([`Theme::invert_text`], exact by construction: applying a
//! theme is refused unless it can be undone), reading that, and renaming the episode read
//! into the theme's ids ([`Theme::apply_episode`]). The reader's grammar thus stays one
//! grammar, and a themed episode carries the themed words a language-model policy sees.

use serde_json::Value;

use bip_episodes::import::mmtom::{read_record, record_value, string_field, MmtomRecord};
use bip_episodes::Episode;

use crate::error::ThemeError;
use crate::theme::Theme;

/// A question record (one JSONL line of MMToM-QA) with its `question` text passed
/// through `rewrite`; every other field is kept.
fn map_question(
    line: &str,
    rewrite: impl FnOnce(&str) -> Result<String, ThemeError>,
) -> Result<String, ThemeError> {
    let mut value = record_value(line)?;
    let rewritten = rewrite(string_field(&value, "question")?)?;
    value["question"] = Value::String(rewritten);
    Ok(value.to_string())
}

/// A question record with its text in the theme's words ([`Theme::apply_text`]).
///
/// # Errors
/// [`ThemeError::Import`] for a line that is not a record with a `question` string;
/// otherwise as [`Theme::apply_text`].
pub fn apply_record(line: &str, theme: &Theme) -> Result<String, ThemeError> {
    map_question(line, |text| theme.apply_text(text))
}

/// A themed question record back in the base words ([`Theme::invert_text`]).
///
/// # Errors
/// [`ThemeError::Import`] for a line that is not a record with a `question` string.
pub fn invert_record(line: &str, theme: &Theme) -> Result<String, ThemeError> {
    map_question(line, |text| Ok(theme.invert_text(text)))
}

/// Reads a question record written in `theme`'s words into a themed episode: the text is
/// mapped back to the base words, read, and the episode renamed into the theme.
/// `index` numbers the episode id as in `read_record`.
///
/// # Errors
/// [`ThemeError::Import`] when the text cannot be read; [`ThemeError::Episode`] or
/// [`ThemeError::NotReversible`] when the themed episode cannot be built.
pub fn read_themed_record(
    line: &str,
    index: usize,
    theme: &Theme,
) -> Result<MmtomRecord, ThemeError> {
    let base = invert_record(line, theme)?;
    let mut record = read_record(&base, index)?;
    if theme.is_identity() {
        return Ok(record);
    }
    let file = theme.apply_episode(&record.file)?;
    let id = file.id.clone().unwrap_or_default();
    record.episode = Episode::from_file(file.clone(), &id)?;
    record.file = file;
    Ok(record)
}

/// The theme `text` is written in: the one with the most of its themed words in it,
/// when no other has as many and they outnumber the base words that theme replaces (a
/// themed MMToM-QA record keeps a few, in fields the theme leaves alone; a base text
/// with a stray themed word has many); `Ok(None)` when no theme's words appear.
///
/// # Errors
///
/// [`ThemeError::Undetected`] when two themes tie, or the best theme's words do not
/// outnumber the base words it replaces: guessing would rewrite words of the wrong theme.
pub fn detect<'a>(text: &str, themes: &'a [Theme]) -> Result<Option<&'a Theme>, ThemeError> {
    let mut counts: Vec<(&Theme, usize)> = themes
        .iter()
        .map(|t| (t, t.themed_word_count(text)))
        .filter(|&(_, count)| count > 0)
        .collect();
    counts.sort_by_key(|&(_, count)| std::cmp::Reverse(count));
    let Some(&(best, count)) = counts.first() else {
        return Ok(None);
    };
    if let Some((other, _)) = counts.get(1).filter(|(_, c)| *c == count) {
        return Err(ThemeError::Undetected {
            reason: format!(
                "the words of {} and of {} appear equally often ({count})",
                best.id(),
                other.id()
            ),
        });
    }
    let base = best.base_words(text);
    if base.len() >= count {
        let mut shown: Vec<&str> = base.iter().map(String::as_str).take(3).collect();
        shown.dedup();
        return Err(ThemeError::Undetected {
            reason: format!(
                "it has {count} words of {} and {} base words that theme replaces ({})",
                best.id(),
                base.len(),
                shown.join(", ")
            ),
        });
    }
    Ok(Some(best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip_episodes::test_support::mmtom_record;

    #[test]
    fn themed_records_read_into_themed_episodes_with_the_same_answer() {
        let base = read_record(mmtom_record(), 1).expect("readable");
        for theme in crate::builtins() {
            let themed = apply_record(mmtom_record(), &theme).expect("reversible");
            let record = read_themed_record(&themed, 1, &theme)
                .unwrap_or_else(|e| panic!("{}: {e}", theme.id()));
            assert_eq!(record.expected, base.expected);
            assert_eq!(record.episode.id(), base.episode.id());
            assert_eq!(record.file.actions.len(), base.file.actions.len());
            let back = theme.invert_episode(&record.file);
            assert_eq!(
                serde_json::to_value(back).expect("json"),
                serde_json::to_value(&base.file).expect("json"),
                "{}",
                theme.id()
            );
            let text: Value =
                serde_json::from_str(&invert_record(&themed, &theme).expect("record"))
                    .expect("json");
            let original: Value = serde_json::from_str(mmtom_record()).expect("json");
            assert_eq!(text, original, "{}", theme.id());
        }
    }

    #[test]
    fn the_theme_of_a_text_is_detected() {
        let themes = crate::builtins();
        for theme in &themes {
            let themed = apply_record(mmtom_record(), theme).expect("reversible");
            let found = detect(&themed, &themes).expect("one theme").map(Theme::id);
            let expected = (!theme.is_identity()).then(|| theme.id());
            assert_eq!(found, expected);
        }
    }

    #[test]
    fn a_base_text_with_a_few_themed_words_is_not_given_that_theme() {
        let themes = crate::builtins();
        let base = mmtom_record();
        for theme in themes.iter().filter(|t| !t.is_identity()) {
            let themed = apply_record(base, theme).expect("reversible");
            // A base record with a stray piece of themed text: no theme wrote it.
            let cut = (0..=themed.len() / 8)
                .rev()
                .find(|&i| themed.is_char_boundary(i))
                .unwrap();
            let mixed = format!("{base} {}", &themed[..cut]);
            let err = detect(&mixed, &themes).expect_err(theme.id()).to_string();
            assert!(err.contains("cannot tell the theme"), "{err}");
        }
    }
}
