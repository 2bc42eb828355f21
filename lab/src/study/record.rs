//! The lines of a study's results file ([`crate::run_file`]): a header naming the run,
//! then one record per scored question of one policy in one theme.

use serde::{Deserialize, Serialize};

use bip_episodes::Episode;

use crate::error::in_episode;
use crate::run_file::{parse_run_file, RunFile, RunHeader};
use crate::variance::ItemRecord;
use crate::LabError;
use bip_engine::Policy;
use bip_engine::QuestionCost;
use bip_engine::{infer_episode, BatchOptions};

/// The format named in every results file's header.
pub const STUDY_FORMAT: &str = "bip-study/1";

/// The first line of a results file ([`STUDY_FORMAT`]): what run wrote it, so that a
/// resumed run or a merge can refuse the records of another plan. Its plan is everything
/// of the study's plan that decides the records (questions, themes, subset, policies
/// with their flags), as the caller describes it.
pub type StudyHeader = RunHeader<serde_json::Value>;

/// A scored question of one policy in one theme: the variance record of the question,
/// with the policy, the input line and what the answer cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyRecord {
    /// The policy cell's name.
    pub policy: String,
    /// The item's input line (from 1).
    pub line: usize,
    /// The question and its answer in the theme.
    #[serde(flatten)]
    pub item: ItemRecord,
    /// What answering it took.
    pub cost: QuestionCost,
}

impl StudyRecord {
    /// What the record answers: (policy, theme, question key). A study has one record
    /// per key.
    pub fn key(&self) -> (&str, &str, &str) {
        (
            self.policy.as_str(),
            self.item.theme.as_str(),
            self.item.item.as_str(),
        )
    }

    /// Infers `episode` (item `line` read in `theme`) under `policy` and returns one
    /// record per question whose key (`episode/question`) `wanted` accepts and that has
    /// an expected answer, in the episode's order. Answers come from the posterior only.
    ///
    /// # Errors
    /// [`LabError::InEpisode`] naming the episode when its inference fails.
    pub fn of_episode(
        policy_name: &str,
        theme: &str,
        line: usize,
        episode: &Episode,
        policy: &dyn Policy,
        batch: &BatchOptions,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<Self>, LabError> {
        let inference =
            infer_episode(episode, policy, batch).map_err(|e| in_episode(e, episode.id()))?;
        let questions = episode.questions().iter().zip(&inference.answers);
        Ok(questions
            .zip(&inference.costs)
            .filter(|((q, _), _)| q.expected.is_some())
            .map(|((q, answer), cost)| StudyRecord {
                policy: policy_name.to_string(),
                line,
                item: ItemRecord::new(theme, episode.id(), q, answer),
                cost: *cost,
            })
            .filter(|r| wanted(&r.item.item))
            .collect())
    }
}

/// The header and records of one results file (JSON Lines, blank lines skipped); `file`
/// names it in errors.
///
/// # Errors
/// As [`parse_run_file`]: a missing header, a line that is not a record, a record whose
/// figures no run could have written.
pub fn parse_results(
    file: &str,
    text: &str,
) -> Result<RunFile<serde_json::Value, StudyRecord>, LabError> {
    parse_run_file(file, text, STUDY_FORMAT, |r: &StudyRecord| Some(&r.item))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_flatten_the_variance_record_and_round_trip() {
        let line = r#"{"policy":"lm","line":3,"theme":"egypt","item":"e1/q1","episode":"e1","type":"1.1","expected":"a","answer":"a","posterior":[0.9,0.1],"margin":0.8,"correct":true,"cost":{"seconds":0.5,"lm_tokens":10,"lm_tokens_unshared":40,"hypotheses":4}}"#;
        let record: StudyRecord = serde_json::from_str(line).expect("parses");
        assert_eq!(
            (
                record.policy.as_str(),
                record.line,
                record.item.item.as_str()
            ),
            ("lm", 3, "e1/q1")
        );
        assert_eq!(serde_json::to_string(&record).expect("json"), line);
        let unknown = line.replace("\"margin\"", "\"marge\"");
        assert!(serde_json::from_str::<StudyRecord>(&unknown).is_err());
    }

    #[test]
    fn results_need_their_header_and_sound_records() {
        let header = r#"{"run":{"format":"bip-study/1","shard":"1/1","plan":{}}}"#;
        let record = r#"{"policy":"p","line":1,"theme":"apartment","item":"e/q","episode":"e","expected":"b","answer":"a","posterior":[0.6,0.4],"margin":0.2,"correct":false,"cost":{"seconds":0.0,"lm_tokens":0,"lm_tokens_unshared":0,"hypotheses":1}}"#;
        let (_, records) = parse_results("r", &format!("{header}\n\n{record}\n")).expect("parses");
        assert_eq!(records[0].0, 3);
        let bad = parse_results("r", record).unwrap_err();
        assert!(bad.to_string().starts_with("r: no run line first"), "{bad}");
        let wrong = record.replace("\"correct\":false", "\"correct\":true");
        let bad = parse_results("r", &format!("{header}\n{wrong}")).unwrap_err();
        assert!(
            bad.to_string().starts_with("r:2: correct: true disagrees"),
            "{bad}"
        );
        let cut = &record[..40];
        let bad = parse_results("r", &format!("{header}\n{cut}")).unwrap_err();
        assert!(
            bad.to_string().starts_with("r:2: not a bip-study/1 record"),
            "{bad}"
        );
    }
}
