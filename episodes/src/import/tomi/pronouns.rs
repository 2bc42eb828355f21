//! What a story's pronouns stand for: an agent's ("She exited the den") the agents of
//! the latest sentence naming any; "it" the object last named.

use crate::import::hitom::sentence::{Known, StoryNouns, Unread};
use crate::import::hitom::words::words;
use crate::import::notes::Notes;
use crate::import::Part;

/// Pronouns that stand for one agent.
const ONE: &[&str] = &["he", "she", "him", "her"];

/// Pronouns that stand for every agent of the sentence they refer to.
const MANY: &[&str] = &["they", "them"];

/// Each word of `sentence` (split at spaces, punctuation kept after it) for which
/// `stand_for` gives a replacement, replaced; `None` when nothing was.
fn replace_words(
    sentence: &str,
    mut stand_for: impl FnMut(&str) -> Option<String>,
) -> Option<String> {
    let mut out = String::with_capacity(sentence.len());
    let mut changed = false;
    for piece in sentence.split_inclusive(' ') {
        let word = piece.trim_end_matches(|c: char| !c.is_alphanumeric());
        match stand_for(&word.to_lowercase()) {
            Some(replacement) => {
                out.push_str(&replacement);
                out.push_str(&piece[word.len()..]);
                changed = true;
            }
            None => out.push_str(piece),
        }
    }
    changed.then_some(out)
}

/// `sentences` with each pronoun for an agent replaced by the agents it stands for: the
/// agents named by the latest earlier sentence that names any ("Ann entered the den. She
/// exited the den." → "Ann exited the den."). A "he" or "she" after a sentence naming
/// several is left as it is, and the sentence reader refuses it as naming no one.
pub(super) fn resolve_pronouns(sentences: &[String], notes: &mut Notes) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(sentences.len());
    for sentence in sentences {
        let replaced = replace_words(sentence, |lower| match named.as_slice() {
            [one] if ONE.contains(&lower) => Some(one.clone()),
            [_, ..] if MANY.contains(&lower) => Some(and_list(&named)),
            _ => None,
        });
        if let Some(r) = &replaced {
            notes.add(Part::Story, sentence, format!("read as \"{r}\""));
        }
        let resolved = replaced.unwrap_or_else(|| sentence.clone());
        let agents: Vec<String> = words(&resolved)
            .iter()
            .filter(|w| w.is_name())
            .map(|w| w.text.to_string())
            .collect();
        if !agents.is_empty() {
            named = agents;
            named.dedup();
        }
        out.push(resolved);
    }
    out
}

/// "Ann", "Ann and Bo", "Ann, Bo and Cy".
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `sentences` with each "it" replaced by the object last named before it ("Ann took the
/// pear and put it in the box" → "... put the pear in the box").
///
/// # Errors
/// The index of a sentence whose "it" follows no object, and why.
pub(super) fn resolve_it(
    sentences: &[String],
    lex: &StoryNouns,
    notes: &mut Notes,
) -> Result<Vec<String>, (usize, Unread)> {
    let mut last: Option<String> = None;
    let mut out = Vec::with_capacity(sentences.len());
    for (s, sentence) in sentences.iter().enumerate() {
        let mut missing = false;
        let mut current = last.clone();
        let replaced = replace_words(sentence, |lower| {
            if lex.is_object(lower) {
                current = Some(lower.to_string());
            }
            if lower != "it" {
                return None;
            }
            match &current {
                Some(object) => Some(format!("the {object}")),
                None => {
                    missing = true;
                    None
                }
            }
        });
        if missing {
            let reason = "stands for no object named before it".to_string();
            return Err((
                s,
                Unread {
                    phrase: "it".into(),
                    reason,
                },
            ));
        }
        if let Some(r) = &replaced {
            notes.add(Part::Story, sentence, format!("read as \"{r}\""));
        }
        let resolved = replaced.unwrap_or_else(|| sentence.clone());
        last = current;
        out.push(resolved);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pronouns_stand_for_the_agents_last_named() {
        let mut notes = Notes::default();
        let story = strings(&[
            "Ann entered the den.",
            "She put the pear in the box.",
            "Ann and Bo walked into the hall.",
            "They left it.",
            "He sat down.",
        ]);
        let out = resolve_pronouns(&story, &mut notes);
        assert_eq!(out[1], "Ann put the pear in the box.");
        assert_eq!(out[3], "Ann and Bo left it.");
        assert_eq!(out[4], "He sat down.", "he after two agents names no one");
        assert_eq!(notes.into_vec().len(), 2);
    }

    #[test]
    fn it_stands_for_the_object_last_named() {
        let lex = StoryNouns {
            rooms: vec!["den".into()],
            containers: vec!["shelf".into(), "crate".into()],
            objects: vec!["pear".into()],
        };
        let mut notes = Notes::default();
        let story = strings(&[
            "Ann took the pear off the shelf and put it in the crate.",
            "Bo likes it.",
        ]);
        let out = resolve_it(&story, &lex, &mut notes).expect("read");
        assert_eq!(
            out[0],
            "Ann took the pear off the shelf and put the pear in the crate."
        );
        assert_eq!(out[1], "Bo likes the pear.");
        let (at, why) =
            resolve_it(&strings(&["It rained."]), &lex, &mut notes).expect_err("no object");
        assert_eq!((at, why.phrase.as_str()), (0, "it"));
    }
}
