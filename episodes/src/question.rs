//! Questions about an agent, posed as claims over goals and beliefs.
//!
//! A question never tells the engine what kind of question it is: each option is a
//! [`Claim`], and the engine answers by comparing the posterior probabilities of the claims.
//! The MMToM-QA type (or another label) is kept in [`Question::label`] for reporting only.

use crate::ids::{ClassId, FurnitureId};
use crate::question_type::{QuestionLabel, QuestionType};

/// Something that may be true of the agent's mind at the moment of the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Proposition {
    /// The agent is trying to get an object of this class.
    Goal(ClassId),
    /// The agent thinks an object of `class` is (`inside: true`) or is not (`false`) in
    /// or on `place`.
    Belief {
        /// The object class the belief is about.
        class: ClassId,
        /// The container or surface.
        place: FurnitureId,
        /// Whether the agent thinks the object is there.
        inside: bool,
    },
}

/// A proposition, optionally conditioned on another: P(about | given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Claim {
    /// What the option asserts.
    pub about: Proposition,
    /// What the question assumes ("If Mark has been trying to get a plate, ...").
    pub given: Option<Proposition>,
}

/// One answer option.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerOption {
    /// The option's wording, if any (shown to people, never read by the engine).
    pub text: Option<String>,
    /// What the option claims.
    pub claim: Claim,
}

/// A multiple-choice question about the agent at one moment of the episode.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Identifier within the episode.
    pub id: String,
    /// Its label: an MMToM-QA type such as 1.2, or free text; for reports only.
    pub label: Option<QuestionLabel>,
    /// The question's wording, if any.
    pub text: Option<String>,
    /// How many of the episode's actions have happened when the question is asked.
    pub at: usize,
    /// The options, labelled a, b, c ... in this order.
    pub options: Vec<AnswerOption>,
    /// The correct answer, when known.
    pub expected: Option<Expected>,
}

impl Question {
    /// The MMToM-QA type, when the question's label is one.
    pub fn question_type(&self) -> Option<QuestionType> {
        self.label.as_ref().and_then(QuestionLabel::question_type)
    }
}

/// What a question's correct answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Expected {
    /// The option with this index.
    Option(usize),
    /// Nothing the agent has done so far tells the options apart: the right response is to
    /// abstain. Written `"unknowable"` in episode files.
    Unknowable,
}

impl Expected {
    /// The word used in episode files and reports for [`Expected::Unknowable`].
    pub const UNKNOWABLE: &'static str = "unknowable";

    /// The option letter, or `"unknowable"`.
    pub fn label(self) -> String {
        match self {
            Expected::Option(i) => option_letter(i),
            Expected::Unknowable => Self::UNKNOWABLE.to_string(),
        }
    }

    /// The correct option's index, if one is correct.
    pub fn option(self) -> Option<usize> {
        match self {
            Expected::Option(i) => Some(i),
            Expected::Unknowable => None,
        }
    }
}

/// The letter of option `index`: 0 → "a", 1 → "b", ...
pub fn option_letter(index: usize) -> String {
    let letter = u8::try_from(index)
        .ok()
        .and_then(|i| b'a'.checked_add(i))
        .filter(u8::is_ascii_lowercase);
    match letter {
        Some(c) => char::from(c).to_string(),
        None => format!("option{}", index + 1),
    }
}

/// The index of the option with letter `letter`, if it is one of `count` options.
pub fn option_index(letter: &str, count: usize) -> Option<usize> {
    (0..count).find(|&i| option_letter(i) == letter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        assert_eq!(option_letter(0), "a");
        assert_eq!(option_letter(1), "b");
        assert_eq!(option_index("b", 2), Some(1));
        assert_eq!(option_index("c", 2), None);
        assert_eq!(option_letter(30), "option31");
    }
}
