//! ToMi's questions: where an agent will look ("Where will Ann look for the pear?"),
//! where one agent thinks another searches ("Where does Ann think that Bo searches for
//! the pear?"), where the object really is, and where it was at the beginning.

use crate::import::hitom::question::Asked;
use crate::import::hitom::sentence::{Known, StoryNouns, Unread};
use crate::import::hitom::words::{words, DETERMINERS};

/// Words that ask about the start of the story ("at the beginning").
#[rustfmt::skip]
const START: &[&str] = &[
    "beginning", "begin", "began", "start", "started", "starting", "initially",
    "originally", "outset",
];

/// A word that asks about the start only where no agent is named: "Where was the pear
/// first?" asks where it started, "Where will Ann look first for the pear?" where she
/// looks now.
const FIRST: &str = "first";

/// Nouns of time that ask about now ("at the end", "at this moment"): no object.
const NOW: &[&str] = &["end", "moment", "present", "story"];

/// A question read: whose belief about which object, and whether at the story's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TomiAsked {
    pub asked: Asked,
    /// Asked about the start of the story (before any event), not its end.
    pub at_start: bool,
}

fn unread(phrase: impl Into<String>, reason: &str) -> Unread {
    Unread {
        phrase: phrase.into(),
        reason: reason.into(),
    }
}

/// Reads a question: the agents it names nest in order, outermost first (none: where
/// the object is); the object is the one of the story it names; a word of starting asks
/// about the start.
pub(super) fn read_question(
    text: &str,
    lex: &StoryNouns,
    is_agent: impl Fn(&str) -> bool,
) -> Result<TomiAsked, Unread> {
    let words = words(text);
    let mut of: Vec<String> = Vec::new();
    let mut objects: Vec<&str> = Vec::new();
    let mut at_start = false;
    let mut first = false;
    for (i, w) in words.iter().enumerate() {
        if w.is_any(START) {
            at_start = true;
        } else if w.lower == FIRST {
            first = true;
        } else if w.is_name() {
            if !is_agent(w.text) {
                return Err(unread(w.text, "no agent of the story has this name"));
            }
            of.push(w.text.to_string());
        } else if lex.is_object(w.text) {
            if !objects.contains(&w.text) {
                objects.push(w.text);
            }
        } else if i > 0 && words[i - 1].is_any(DETERMINERS) && !w.is_any(NOW) {
            return Err(unread(
                format!("the {}", w.text),
                "is no object of the story",
            ));
        }
    }
    at_start |= first && of.is_empty();
    if at_start && !of.is_empty() {
        return Err(unread(
            text,
            "asks what someone thought at the start, before anyone saw anything",
        ));
    }
    match objects.as_slice() {
        [object] => Ok(TomiAsked {
            asked: Asked {
                of,
                object: (*object).to_string(),
            },
            at_start,
        }),
        [] => Err(unread(text, "names no object of the story")),
        many => Err(unread(many.join(", "), "names more than one object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex() -> StoryNouns {
        StoryNouns {
            rooms: vec!["den".into()],
            containers: vec!["box".into(), "crate".into()],
            objects: vec!["pear".into()],
        }
    }

    fn read(text: &str) -> Result<TomiAsked, Unread> {
        read_question(text, &lex(), |a| a == "Ann" || a == "Bo")
    }

    #[test]
    fn the_four_kinds_of_question() {
        let q = read("Where does Ann think that Bo searches for the pear?").expect("read");
        assert_eq!(
            (q.asked.of.as_slice(), q.at_start),
            (&["Ann".to_string(), "Bo".to_string()][..], false)
        );
        let q = read("Where will Bo look for the pear?").expect("read");
        assert_eq!(q.asked.of, ["Bo"]);
        let q = read("Where is the pear really?").expect("read");
        assert!(q.asked.of.is_empty() && !q.at_start);
        let q = read("Where was the pear at the beginning?").expect("read");
        assert!(q.asked.of.is_empty() && q.at_start);
        let q = read("Where did the pear start out?").expect("read");
        assert!(q.at_start);
    }

    #[test]
    fn unknown_names_and_objects_are_named() {
        assert_eq!(
            read("Where will Cy look for the pear?")
                .expect_err("Cy")
                .phrase,
            "Cy"
        );
        let e = read("Where is the plum really?").expect_err("plum");
        assert_eq!(e.phrase, "the plum");
        let q = read("Where will Ann look first for the pear?").expect("read");
        assert!(!q.at_start && q.asked.of == ["Ann"]);
        assert!(read("Where was the pear first?").expect("read").at_start);
        assert!(
            !read("Where is the pear at the end of the story?")
                .expect("read")
                .at_start
        );
        assert!(read("Where did Ann think the pear was at the start?").is_err());
    }
}
