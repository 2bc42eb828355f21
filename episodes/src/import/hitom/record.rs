//! Hi-ToM records: one JSON object a line, read into validated stories.

use serde_json::Value;

use crate::import::mmtom::{optional_string_field, record_value, string_field};
use crate::import::notes::Notes;
use crate::import::{ImportError, Note, Part};
use crate::json::StoryFile;
use crate::story::Story;

use super::build::Builder;
use super::question::{question_file, read_choices, read_question};
use super::sentence::Unread;

/// One Hi-ToM record read into a story with one question.
#[derive(Debug, Clone)]
pub struct HitomRecord {
    /// The story as written (`bip-episode/1`, the multi-agent form).
    pub file: StoryFile,
    /// The same story, validated.
    pub story: Story,
    /// The benchmark's answer (a container), when given.
    pub expected: Option<String>,
    /// Every assumption the reader made, in text order.
    pub notes: Vec<Note>,
}

/// What a record says about itself, kept as labels for reports; never read by the reader
/// or by inference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HitomLabels {
    /// `question_order`.
    pub order: Option<u64>,
    /// `story_length` (chapters).
    pub length: Option<u64>,
    /// `deception`.
    pub deception: Option<bool>,
    /// `prompting_type` (`VP`, `CoTP`).
    pub prompting: Option<String>,
    /// `sample_id`.
    pub sample: Option<u64>,
}

/// Reads every non-blank line of a JSONL text: `(line number, record or error)`, line
/// numbers from 1. A line's story id is `hitom-<sample_id>-<line>` (`hitom-<line>` without
/// a sample id).
pub fn read_jsonl(
    text: &str,
) -> impl Iterator<Item = (usize, Result<HitomRecord, ImportError>)> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (i + 1, read_record(line, i + 1)))
}

/// Reads one JSONL line; `index` numbers the story id.
///
/// # Errors
/// [`ImportError::Json`] or [`ImportError::Field`] for a malformed record (an `answer`
/// that is not one of the choices among them); [`ImportError::Unreadable`] naming the
/// sentence and words that cannot be read; [`ImportError::Episode`] if the story read is
/// not valid.
pub fn read_record(line: &str, index: usize) -> Result<HitomRecord, ImportError> {
    let value = record_value(line)?;
    let story = string_field(&value, "story")?;
    let question = string_field(&value, "question")?;
    let choices = string_field(&value, "choices")?;
    let answer = optional_string_field(&value, "answer")?;
    let labels = labels(&value);
    let id = match labels.sample {
        Some(s) => format!("hitom-{s}-{index}"),
        None => format!("hitom-{index}"),
    };
    let (mut file, notes) = read_text(story, question, choices, answer, &id)?;
    if let Some(q) = file.questions.first_mut() {
        q.label = labels.order.map(|o| format!("order {o}"));
    }
    let tags = &mut file.tags;
    if let Some(length) = labels.length {
        tags.insert("length".into(), length.to_string());
    }
    if let Some(d) = labels.deception {
        tags.insert("deception".into(), if d { "yes" } else { "no" }.into());
    }
    if let Some(p) = &labels.prompting {
        tags.insert("prompting".into(), p.clone());
    }
    let story = Story::from_file(file.clone(), &id).map_err(|source| ImportError::Episode {
        sentence: None,
        source,
    })?;
    Ok(HitomRecord {
        file,
        story,
        expected: answer.map(str::to_string),
        notes,
    })
}

/// The record's own labels.
pub fn labels(value: &Value) -> HitomLabels {
    HitomLabels {
        order: value.get("question_order").and_then(Value::as_u64),
        length: value.get("story_length").and_then(Value::as_u64),
        deception: value.get("deception").and_then(Value::as_bool),
        prompting: value
            .get("prompting_type")
            .and_then(Value::as_str)
            .map(str::to_string),
        sample: value.get("sample_id").and_then(Value::as_u64),
    }
}

/// Reads a story text (numbered sentences, after an optional instruction line), its
/// question and its choices into a story file with one question, asked after every
/// event; `answer` (a container, or an option letter) becomes the expected option.
///
/// # Errors
/// [`ImportError::Unreadable`] naming the sentence and the words at fault;
/// [`ImportError::Field`] for choices that name fewer than two containers or an answer
/// that is none of them.
pub fn read_text(
    story: &str,
    question: &str,
    choices: &str,
    answer: Option<&str>,
    id: &str,
) -> Result<(StoryFile, Vec<Note>), ImportError> {
    let containers = read_choices(choices);
    if containers.len() < 2 {
        return Err(ImportError::Field {
            field: "choices",
            reason: format!(
                "names {} containers; a question needs two",
                containers.len()
            ),
        });
    }
    let expected = answer
        .map(|a| expected(a.trim(), &containers))
        .transpose()?;
    let mut builder = Builder::new(&containers);
    for sentence in sentences(story, &mut builder.notes) {
        builder
            .sentence(&sentence)
            .map_err(|u| unreadable(Part::Story, &sentence, u))?;
    }
    let asked =
        read_question(question, &builder).map_err(|u| unreadable(Part::Question, question, u))?;
    for name in &asked.of {
        builder.add_agent(name);
    }
    let notes = std::mem::take(&mut builder.notes);
    let mut file = builder
        .finish(id.to_string())
        .map_err(|u| unreadable(Part::Story, story, u))?;
    file.questions
        .push(question_file(&asked, question, &containers, expected, None));
    Ok((file, notes.into_vec()))
}

/// The index of the answer among the choices: a container, or an option letter.
fn expected(answer: &str, containers: &[String]) -> Result<usize, ImportError> {
    if let Some(i) = containers.iter().position(|c| c == answer) {
        return Ok(i);
    }
    let letter = answer.trim_end_matches('.');
    match letter.as_bytes() {
        [b] if b.is_ascii_uppercase() && usize::from(b - b'A') < containers.len() => {
            Ok(usize::from(b - b'A'))
        }
        _ => Err(ImportError::Field {
            field: "answer",
            reason: format!("\"{answer}\" is not one of the choices"),
        }),
    }
}

/// The error for `sentence` of `part`, which cannot be read for the reason `u` gives.
pub(in crate::import) fn unreadable(part: Part, sentence: &str, u: Unread) -> ImportError {
    ImportError::Unreadable {
        part,
        sentence: sentence.trim().to_string(),
        phrase: u.phrase,
        reason: u.reason,
    }
}

/// The sentences of a story: each numbered line ("12 Ann exited the patio."), split at
/// sentence ends; lines before the first numbered one are instructions, skipped with a
/// note; a line of only punctuation ("***") is skipped.
fn sentences(story: &str, notes: &mut Notes) -> Vec<String> {
    let mut out = Vec::new();
    let mut numbered = false;
    for line in story.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
        let has_number = rest.len() < line.len() && rest.starts_with([' ', '.', ')', ':']);
        if !has_number && !numbered {
            notes.add(
                Part::Story,
                line,
                "an instruction before the story: not part of it",
            );
            continue;
        }
        numbered = true;
        let text = if has_number {
            rest.trim_start_matches([' ', '.', ')', ':'])
        } else {
            line
        };
        if !text.chars().any(char::is_alphanumeric) {
            continue;
        }
        out.extend(split_sentences(text));
    }
    out
}

/// `text` cut after each `.`, `!`, `?` or `;` that ends a sentence.
fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if matches!(c, '.' | '!' | '?' | ';') {
            if current.chars().any(char::is_alphanumeric) {
                out.push(current.trim().to_string());
            }
            current.clear();
        }
    }
    if current.chars().any(char::is_alphanumeric) {
        out.push(current.trim().to_string());
    }
    out
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
