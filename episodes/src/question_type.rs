//! The seven MMToM-QA question types, and the label a question carries for reports.
//!
//! A question's label is either one of the seven types or a free text
//! ([`QuestionLabel`]). `bip-episode/1` files keep writing the label as the string it
//! always was (`"type": "1.2"`, `"type": "belief update"`): the text is parsed once, when
//! an episode is read, into [`QuestionLabel::Type`] when it is exactly one of the seven
//! labels and [`QuestionLabel::Other`] otherwise, and written back as the same text, so
//! every file reads and writes as before. Inference never reads a label.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An MMToM-QA question type. Questions carry it as a report label only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QuestionType {
    /// 1.1: true belief, short term — is it in the container the agent is about to open?
    TrueBeliefShort,
    /// 1.2: false belief, short term — the same, when the agent is wrong.
    FalseBeliefShort,
    /// 1.3: belief tracking, long term — what the agent thinks after searching.
    BeliefTracking,
    /// 2.1: goal given a true belief.
    GoalTrueBelief,
    /// 2.2: goal given a false belief.
    GoalFalseBelief,
    /// 2.3: goal given an updated belief (the agent saw an object and left it).
    GoalUpdatedBelief,
    /// 2.4: goal given future actions (the agent passed an object by).
    GoalFutureActions,
}

impl QuestionType {
    /// All seven, in label order.
    pub const ALL: [QuestionType; 7] = [
        QuestionType::TrueBeliefShort,
        QuestionType::FalseBeliefShort,
        QuestionType::BeliefTracking,
        QuestionType::GoalTrueBelief,
        QuestionType::GoalFalseBelief,
        QuestionType::GoalUpdatedBelief,
        QuestionType::GoalFutureActions,
    ];

    /// The MMToM-QA label: "1.1" ... "2.4".
    pub fn label(self) -> &'static str {
        match self {
            QuestionType::TrueBeliefShort => "1.1",
            QuestionType::FalseBeliefShort => "1.2",
            QuestionType::BeliefTracking => "1.3",
            QuestionType::GoalTrueBelief => "2.1",
            QuestionType::GoalFalseBelief => "2.2",
            QuestionType::GoalUpdatedBelief => "2.3",
            QuestionType::GoalFutureActions => "2.4",
        }
    }

    /// The type with this label, if any.
    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.label() == label)
    }

    /// Whether the question is about a belief (type 1.x) rather than a goal (2.x).
    pub fn is_belief(self) -> bool {
        matches!(
            self,
            QuestionType::TrueBeliefShort
                | QuestionType::FalseBeliefShort
                | QuestionType::BeliefTracking
        )
    }
}

impl fmt::Display for QuestionType {
    /// Writes the MMToM-QA label ("1.2").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The label of a question, for reports: an MMToM-QA type, or any other text.
///
/// Compared, ordered, hashed and written as its text, so that `Other("1.2")` (built by
/// hand) is the same label as `Type(FalseBeliefShort)`, and a table keyed by labels reads
/// the same whichever of the two a label is.
#[derive(Debug, Clone)]
pub enum QuestionLabel {
    /// One of the seven MMToM-QA types (the text was exactly its label, "1.2").
    Type(QuestionType),
    /// Any other text ("belief update"), kept as written.
    Other(String),
}

impl QuestionLabel {
    /// The label of `text`: the type whose label it is exactly, else the text itself.
    ///
    /// # Example
    /// ```
    /// use bip_episodes::{QuestionLabel, QuestionType};
    ///
    /// assert_eq!(QuestionLabel::parse("1.2"), QuestionLabel::Type(QuestionType::FalseBeliefShort));
    /// assert_eq!(QuestionLabel::parse("belief update").as_str(), "belief update");
    /// assert_eq!(QuestionLabel::parse("1.20").question_type(), None);
    /// ```
    pub fn parse(text: &str) -> Self {
        match QuestionType::from_label(text) {
            Some(t) => Self::Type(t),
            None => Self::Other(text.to_string()),
        }
    }

    /// The text of the label, as episode files write it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Type(t) => t.label(),
            Self::Other(text) => text,
        }
    }

    /// The MMToM-QA type, when the label is one.
    pub fn question_type(&self) -> Option<QuestionType> {
        match self {
            Self::Type(t) => Some(*t),
            Self::Other(_) => None,
        }
    }
}

impl From<QuestionType> for QuestionLabel {
    fn from(t: QuestionType) -> Self {
        Self::Type(t)
    }
}

impl fmt::Display for QuestionLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for QuestionLabel {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for QuestionLabel {}

impl std::hash::Hash for QuestionLabel {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for QuestionLabel {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for QuestionLabel {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Serialize for QuestionLabel {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for QuestionLabel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for t in QuestionType::ALL {
            assert_eq!(QuestionType::from_label(t.label()), Some(t));
        }
        assert_eq!(QuestionType::from_label("3.1"), None);
    }

    #[test]
    fn labels_keep_their_text_and_order_by_it() {
        for text in ["1.1", "2.4", "belief update", "1.10", ""] {
            let label = QuestionLabel::parse(text);
            assert_eq!(label.as_str(), text);
            let json = serde_json::to_string(&label).expect("serialises");
            assert_eq!(json, serde_json::to_string(text).expect("string"));
            let back: QuestionLabel = serde_json::from_str(&json).expect("parses");
            assert_eq!(back, label);
        }
        assert_eq!(
            QuestionLabel::parse("2.3").question_type(),
            Some(QuestionType::GoalUpdatedBelief)
        );
        assert_eq!(
            QuestionLabel::Other("1.2".into()),
            QuestionLabel::Type(QuestionType::FalseBeliefShort)
        );
        let mut labels = ["belief update", "2.1", "-", "1.3"].map(QuestionLabel::parse);
        labels.sort();
        assert_eq!(
            labels.map(|l| l.to_string()),
            ["-", "1.3", "2.1", "belief update"]
        );
    }
}
