//! The bAbI layout ToMi is published in: numbered lines, a story restarting at `1`, a
//! question line holding tabs (`N Where is the pear really?<TAB>red_box<TAB>1`).

use crate::import::ImportError;

/// The most sentences one story may have: each of its questions reads the story again,
/// so the work is the story's length times its questions; ToMi's stories have under 20.
pub const MAX_STORY_SENTENCES: usize = 500;

/// One question with the story it is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BabiQuestion {
    /// Line number of the question in the file, from 1.
    pub line: usize,
    /// The story's sentences before the question, numbers stripped.
    pub story: Vec<String>,
    /// The question.
    pub question: String,
    /// The benchmark's answer, when the line gives one.
    pub answer: Option<String>,
}

fn field(line: usize, reason: String) -> ImportError {
    ImportError::Field {
        field: "line",
        reason: format!("line {line}: {reason}"),
    }
}

/// Every question of a bAbI text, with its line number (from 1), in order; a line that
/// breaks the layout (no number, a number out of sequence, a story longer than
/// [`MAX_STORY_SENTENCES`]) is an error for the questions of its story, named by line.
pub fn read_babi(text: &str) -> Vec<(usize, Result<BabiQuestion, ImportError>)> {
    let mut out = Vec::new();
    let mut story: Vec<String> = Vec::new();
    let mut last = 0_usize;
    // What breaks a story's lines, given to each of its questions until the next story.
    let mut broken: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let digits = raw.len() - raw.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let number = raw[..digits].parse::<usize>().ok();
        let rest = raw[digits..].trim_start();
        let Some(number) = number.filter(|_| raw[digits..].starts_with([' ', '\t'])) else {
            let reason = "does not start with a sentence number".to_string();
            out.push((line, Err(field(line, reason))));
            continue;
        };
        if number == 1 {
            story.clear();
            broken = None;
        } else if number != last + 1 && broken.is_none() {
            broken = Some((line, format!("sentence {number} follows sentence {last}")));
        }
        last = number;
        if rest.contains('\t') {
            let mut parts = rest.split('\t').map(str::trim);
            let question = parts.next().unwrap_or_default().to_string();
            let answer = parts.next().filter(|a| !a.is_empty()).map(str::to_string);
            let result = match &broken {
                Some((at, reason)) => Err(field(*at, reason.clone())),
                None => Ok(BabiQuestion {
                    line,
                    story: story.clone(),
                    question,
                    answer,
                }),
            };
            out.push((line, result));
        } else if story.len() == MAX_STORY_SENTENCES {
            if broken.is_none() {
                let reason = format!("a story of more than {MAX_STORY_SENTENCES} sentences");
                broken = Some((line, reason));
            }
        } else {
            story.push(rest.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_carry_the_story_since_the_last_one() {
        let text = "1 Ann entered the den.\n2 The pear is in the box.\n3 Where is the pear really?\tbox\t2\n\
                    4 Ann exited the den.\n5 Where was the pear at the beginning?\tbox\t2\n\
                    1 Bo entered the hall.\n2 Where is Bo?\thall\t1\n";
        let q = read_babi(text);
        assert_eq!(q.len(), 3);
        let second = q[1].1.as_ref().expect("read");
        assert_eq!(second.line, 5);
        assert_eq!(
            second.story,
            [
                "Ann entered the den.",
                "The pear is in the box.",
                "Ann exited the den."
            ]
        );
        assert_eq!(second.answer.as_deref(), Some("box"));
        let third = q[2].1.as_ref().expect("read");
        assert_eq!(third.story, ["Bo entered the hall."]);
    }

    #[test]
    fn a_broken_layout_names_the_line() {
        let text = "1 Ann entered the den.\n3 Where is Ann?\tden\t1\nno number here\n";
        let q = read_babi(text);
        let e = q[0].1.as_ref().expect_err("out of sequence").to_string();
        assert!(
            e.contains("line 2") && e.contains("follows sentence 1"),
            "{e}"
        );
        let e = q[1].1.as_ref().expect_err("no number").to_string();
        assert!(e.contains("line 3") && e.contains("sentence number"), "{e}");
    }

    #[test]
    fn a_story_too_long_is_refused_not_read_again_per_question() {
        let mut text = String::new();
        for n in 1..=MAX_STORY_SENTENCES + 1 {
            text.push_str(&format!("{n} Ann entered the den.\n"));
        }
        text.push_str(&format!(
            "{} Where is Ann?\tden\t1\n",
            MAX_STORY_SENTENCES + 2
        ));
        let q = read_babi(&text);
        let e = q[0].1.as_ref().expect_err("too long").to_string();
        assert!(e.contains("more than 500 sentences"), "{e}");
    }
}
