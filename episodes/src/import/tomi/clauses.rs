//! A sentence of two goings, or a going and a move, cut in two: "Bo exited the kitchen
//! and entered the hall" is two events, and the sentence reader reads one per sentence.
//! A sentence is cut at "and" or "then" before a verb when either side starts with a verb
//! of going; the agents that start the sentence are the subject of both sides. "Ann
//! took the pear off the shelf and put it in the crate" is one move and stays whole.

use crate::import::hitom::words::{words, Word, DETERMINERS, ENTER, LEAVE};

/// Words of [`ENTER`] and [`LEAVE`] that are no verbs: they do not start a clause.
const NOT_VERBS: &[&str] = &[
    "in", "inside", "into", "to", "toward", "towards", "out", "moved",
];

/// Words that join two clauses.
const JOINS: &[&str] = &["and", "then"];

fn going(w: &Word<'_>) -> bool {
    (w.is_any(ENTER) || w.is_any(LEAVE)) && !w.is_any(NOT_VERBS)
}

/// `sentence` cut into clauses (itself when there is nothing to cut).
pub(super) fn clauses(sentence: &str) -> Vec<String> {
    let w = words(sentence);
    // The subject: the names (and "and"s) the sentence starts with.
    let subject_len = w
        .iter()
        .take_while(|w| w.is_name() || w.lower == "and")
        .count();
    let subject = &w[..subject_len];
    if subject.is_empty() || subject.last().is_some_and(|w| w.lower == "and") {
        return vec![sentence.to_string()];
    }
    let cuts: Vec<usize> = (subject_len + 1..w.len().saturating_sub(1))
        .filter(|&i| {
            let next = &w[i + 1];
            w[i].is_any(JOINS)
                && !next.is_name()
                && !next.is_any(DETERMINERS)
                && !next.is_any(JOINS)
                && next.text.chars().next().is_some_and(char::is_lowercase)
        })
        .collect();
    let mut starts = vec![subject_len];
    starts.extend(cuts.iter().map(|&i| i + 1));
    let verbs_go = starts.iter().any(|&s| w.get(s).is_some_and(going));
    if cuts.is_empty() || !verbs_go {
        return vec![sentence.to_string()];
    }
    let subject: Vec<&str> = subject.iter().map(|w| w.text).collect();
    let mut ends: Vec<usize> = cuts.clone();
    ends.push(w.len());
    starts
        .iter()
        .zip(&ends)
        .map(|(&s, &e)| {
            let body: Vec<&str> = w[s..e]
                .iter()
                .map(|w| w.text)
                .filter(|t| !t.eq_ignore_ascii_case("then"))
                .collect();
            format!("{} {}.", subject.join(" "), body.join(" "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_goings_are_two_clauses() {
        assert_eq!(
            clauses("Bo exited the kitchen and entered the hall."),
            ["Bo exited the kitchen.", "Bo entered the hall."]
        );
        assert_eq!(
            clauses("Ann and Bo came back into the den, then moved the pear to the box."),
            [
                "Ann and Bo came back into the den.",
                "Ann and Bo moved the pear to the box."
            ]
        );
    }

    #[test]
    fn one_event_stays_whole() {
        for s in [
            "Ann took the pear off the shelf and put it in the crate.",
            "Ann and Bo entered the den.",
            "The pear is in the box.",
            "Ann entered the den and the hall.",
        ] {
            assert_eq!(clauses(s), [s]);
        }
    }
}
