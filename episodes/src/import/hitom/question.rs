//! The question ("Where does Ann think Bo thinks the pear is?") and its choices.

use crate::json::{LocationFile, NestedBeliefFile, StoryOptionFile, StoryQuestionFile};

use super::build::Builder;
use super::sentence::Unread;
use super::words::{words, DETERMINERS};

/// What a question asks: whose belief (outermost first; none for where the object
/// really is) about which object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::import) struct Asked {
    pub of: Vec<String>,
    pub object: String,
}

/// Reads a question: the agents it names, in order, nest ("Where does A think B thinks
/// ..."), the object is the one the story placed; no agent is where it really is.
pub(super) fn read_question(text: &str, story: &Builder) -> Result<Asked, Unread> {
    let words = words(text);
    let mut of = Vec::new();
    let mut objects: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if w.is_name() {
            if !story.has_agent(w.text) {
                return Err(Unread {
                    phrase: w.text.to_string(),
                    reason: "no agent of the story has this name".into(),
                });
            }
            of.push(w.text.to_string());
        } else if story.object_named(w.text) && !objects.contains(&w.text) {
            objects.push(w.text);
        } else if i > 0 && words[i - 1].is_any(DETERMINERS) && !story.object_named(w.text) {
            return Err(Unread {
                phrase: format!("the {}", w.text),
                reason: "is no object of the story".into(),
            });
        }
    }
    match objects.as_slice() {
        [object] => Ok(Asked {
            of,
            object: (*object).to_string(),
        }),
        [] => Err(Unread {
            phrase: text.to_string(),
            reason: "names no object of the story".into(),
        }),
        many => Err(Unread {
            phrase: many.join(", "),
            reason: "names more than one object".into(),
        }),
    }
}

/// The containers of a choices line ("A. blue_drawer, B. green_crate, ..."): every word
/// but the option letters, in order.
pub(super) fn read_choices(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !(w.text.len() == 1 && w.text.chars().all(|c| c.is_ascii_uppercase())))
        .map(|w| w.text.to_string())
        .collect()
}

/// The question file: one option per container, each claiming the asked belief (or
/// location) at that container.
pub(in crate::import) fn question_file(
    asked: &Asked,
    text: &str,
    choices: &[String],
    expected: Option<usize>,
    label: Option<String>,
) -> StoryQuestionFile {
    let options = choices
        .iter()
        .map(|c| {
            let (belief, location) = if asked.of.is_empty() {
                let location = LocationFile {
                    object: asked.object.clone(),
                    container: c.clone(),
                    inside: true,
                };
                (None, Some(location))
            } else {
                let belief = NestedBeliefFile {
                    of: asked.of.clone(),
                    object: asked.object.clone(),
                    container: c.clone(),
                    inside: true,
                };
                (Some(belief), None)
            };
            StoryOptionFile {
                text: Some(c.clone()),
                belief,
                location,
            }
        })
        .collect();
    StoryQuestionFile {
        id: Some("q1".into()),
        label,
        text: Some(text.trim().to_string()),
        at: None,
        options,
        expected: expected.map(crate::option_letter),
    }
}
