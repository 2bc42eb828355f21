//! The seven MMToM-QA question types.

/// An MMToM-QA question type. Generated episodes carry it as a report label only.
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
}
