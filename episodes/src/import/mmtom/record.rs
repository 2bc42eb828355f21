//! MMToM-QA records: one JSON object a line, read into validated episodes.

use serde_json::Value;

use crate::episode::Episode;
use crate::error::EpisodeError;
use crate::import::{ImportError, Part};
use crate::json::{AgentFile, EpisodeFile, FORMAT};
use crate::question_type::QuestionType;

use super::apartment::{world_file, Apartment};
use super::narrative::read_narrative;
use super::question::read_question;
use super::resolve::{Context, Reading};
use super::scene::read_scene;
use super::script::play;
use crate::import::notes::{Note, Notes};

/// One MMToM-QA question read into an episode, with what the benchmark says about it.
#[derive(Debug, Clone)]
pub struct MmtomRecord {
    /// The episode as written (`bip-episode/1`; no doors, every class explicit).
    pub file: EpisodeFile,
    /// The same episode, validated and replayed.
    pub episode: Episode,
    /// The letter of the correct option, as the benchmark gives it.
    pub expected: String,
    /// The MMToM-QA question type (1.1 ... 2.4), for reports only: the reader never
    /// looks at it.
    pub question_type: Option<QuestionType>,
    /// The MMToM-QA episode number, when given.
    pub mmtom_episode: Option<u64>,
    /// Every assumption the reader made, in text order.
    pub notes: Vec<Note>,
}

/// Reads every non-blank line of a JSONL text: `(line number, record or error)`, line
/// numbers from 1. A line's episode id is `mmtom-<episode>-<line>` (`mmtom-<line>` when the
/// record has no episode number).
///
/// # Example
/// ```
/// let line = r#"{"question": "What's inside the apartment: The apartment consists of a kitchen and a bathroom. The kitchen is equipped with a fridge. The fridge contains an apple and a cupcake. \nActions taken by Ann: Ann is in the bathroom. She walks to the kitchen and is about to open the fridge. \nQuestion: Which one of the following statements is more likely to be true? (a) Ann has been trying to get an apple. (b) Ann has been trying to get a cupcake. Please respond with either a or b.", "answer": "a", "question_type": 2.4, "episode": 7}"#;
/// let (number, record) = bip_episodes::import::mmtom::read_jsonl(line).next().unwrap();
/// let record = record?;
/// assert_eq!((number, record.episode.id()), (1, "mmtom-7-1"));
/// assert_eq!(record.file.actions.len(), 2, "walk to the kitchen, then to the fridge");
/// assert_eq!(record.question_type, Some(bip_episodes::QuestionType::GoalFutureActions));
/// # Ok::<(), bip_episodes::import::ImportError>(())
/// ```
pub fn read_jsonl(
    text: &str,
) -> impl Iterator<Item = (usize, Result<MmtomRecord, ImportError>)> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (i + 1, read_record(line, i + 1)))
}

/// One JSONL line of MMToM-QA as a JSON value.
///
/// # Errors
/// [`ImportError::Json`] when the line is not JSON.
pub fn record_value(line: &str) -> Result<Value, ImportError> {
    serde_json::from_str(line).map_err(|e| ImportError::Json {
        message: crate::limits::shortened(&e.to_string(), 4 * crate::limits::QUOTED_CHARS),
    })
}

/// The string field `field` of a record.
///
/// # Errors
/// [`ImportError::Field`] when it is missing or not a string.
pub fn string_field<'v>(value: &'v Value, field: &'static str) -> Result<&'v str, ImportError> {
    value
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| ImportError::Field {
            field,
            reason: "missing or not a string".into(),
        })
}

/// The string `field` of a record, or `None` when it is absent or null; any other value
/// is an error rather than a field silently dropped.
///
/// # Errors
/// [`ImportError::Field`] naming the field when it holds a number, a list, ...
pub fn optional_string_field<'v>(
    value: &'v Value,
    field: &'static str,
) -> Result<Option<&'v str>, ImportError> {
    match value.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(ImportError::Field {
            field,
            reason: format!(
                "must be a string, not {}",
                crate::limits::shortened(&other.to_string(), 40)
            ),
        }),
    }
}

/// Reads one JSONL line; `index` numbers the episode id (`mmtom-<episode>-<index>`).
///
/// # Errors
/// [`ImportError::Json`] or [`ImportError::Field`] for a malformed record (a
/// `question_type` that is not one of the seven MMToM-QA types among them); otherwise as
/// [`read_text`], or [`ImportError::Episode`] if the episode read is not valid.
pub fn read_record(line: &str, index: usize) -> Result<MmtomRecord, ImportError> {
    let value = record_value(line)?;
    let text = string_field(&value, "question")?;
    let expected = string_field(&value, "answer")?;
    let question_type = question_type(&value)?;
    let mmtom_episode = value.get("episode").and_then(Value::as_u64);
    let id = match mmtom_episode {
        Some(e) => format!("mmtom-{e}-{index}"),
        None => format!("mmtom-{index}"),
    };
    let label = question_type.map(QuestionType::label);
    let reading = read_text_noted(text, &id, Some(expected), label)?;
    let episode = validate(&reading)?;
    let TextReading { file, notes, .. } = reading;
    Ok(MmtomRecord {
        notes,
        expected: file
            .questions
            .first()
            .and_then(|q| q.expected.clone())
            .unwrap_or_default(),
        file,
        episode,
        question_type,
        mmtom_episode,
    })
}

/// The record's `question_type`, written as a number (`1.2`) or a string (`"1.2"`);
/// `None` when absent or null.
fn question_type(record: &Value) -> Result<Option<QuestionType>, ImportError> {
    let text = match record.get("question_type") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => other.to_string(),
    };
    QuestionType::from_label(&text)
        .map(Some)
        .ok_or_else(|| ImportError::Field {
            field: "question_type",
            reason: format!("{text} is not an MMToM-QA question type (1.1 ... 2.4)"),
        })
}

/// Reads the text of one MMToM-QA question (scene, "Actions taken by NAME:", "Question:")
/// into an episode file with one question, `q1`, asked after every narrated action.
///
/// `expected` is the letter of the correct option, `label` the question type; both are
/// only copied into the file.
///
/// # Errors
/// [`ImportError::MissingPart`] when a part is missing, [`ImportError::Unreadable`] or
/// [`ImportError::Ambiguous`] naming the sentence and phrase that could not be read, and
/// [`ImportError::Field`] when `expected` is not an option letter.
pub fn read_text(
    text: &str,
    id: &str,
    expected: Option<&str>,
    label: Option<&str>,
) -> Result<EpisodeFile, ImportError> {
    read_text_noted(text, id, expected, label).map(|reading| reading.file)
}

/// A question text read: the episode file, what the reader assumed, and the narrative
/// sentence behind each action.
#[derive(Debug, Clone)]
pub struct TextReading {
    /// The episode as written (`bip-episode/1`).
    pub file: EpisodeFile,
    /// Every assumption the reader made, in text order.
    pub notes: Vec<Note>,
    /// For each action of `file`, the narrative sentence it comes from.
    pub action_sentences: Vec<String>,
}

/// As [`read_text`], with the reader's assumptions.
///
/// # Errors
/// As [`read_text`].
pub fn read_text_noted(
    text: &str,
    id: &str,
    expected: Option<&str>,
    label: Option<&str>,
) -> Result<TextReading, ImportError> {
    let parts = split(text)?;
    let scene = read_scene(parts.scene)?;
    let apartment = scene.first();
    let narrative = read_narrative(parts.narrative, parts.agent, apartment)?;
    let script =
        play(apartment, &narrative).map_err(|(sentence, reason)| ImportError::Unreadable {
            part: Part::Narrative,
            sentence: narrative.sentences[sentence].clone(),
            phrase: narrative.sentences[sentence].clone(),
            reason,
        })?;
    let mut notes = Notes::default();
    for note in scene.notes.iter().chain(&narrative.notes) {
        notes.add(note.part, &note.sentence, note.reading.clone());
    }
    // Readings of the scene in which the narrative cannot happen (the agent takes an
    // object from where that reading does not put it) are ruled out by the narrative.
    let readings: Vec<&Apartment> = scene
        .readings
        .iter()
        .filter(|a| play(a, &narrative).is_ok())
        .collect();
    if readings.len() < scene.readings.len() {
        notes.add(
            Part::Narrative,
            parts.narrative.trim(),
            format!(
                "{} of {} readings of the scene do not admit the actions and are dropped",
                scene.readings.len() - readings.len(),
                scene.readings.len()
            ),
        );
    }
    let context = Context {
        room: Some(script.room),
        mentioned: &narrative.mentioned,
        last_noun: None,
        last_list: &[],
        reading: Reading::Named,
    };
    let mut question = read_question(parts.question, apartment, &context, expected, label)?;
    question.at = Some(script.actions.len());
    let file = EpisodeFile {
        format: FORMAT.to_string(),
        id: Some(id.to_string()),
        description: Some(format!("MMToM-QA. {}", parts.narrative.trim())),
        world: world_file(&readings),
        agent: AgentFile {
            name: parts.agent.to_string(),
            start: apartment.rooms[narrative.start].id.to_string(),
            goals: None,
        },
        actions: script.actions,
        questions: vec![question],
    };
    let action_sentences = script
        .sources
        .iter()
        .map(|&s| narrative.sentences[s].clone())
        .collect();
    Ok(TextReading {
        file,
        notes: notes.into_vec(),
        action_sentences,
    })
}

/// Validates an imported file, naming the narrative sentence behind an impossible action.
fn validate(reading: &TextReading) -> Result<Episode, ImportError> {
    let file = &reading.file;
    let id = file.id.clone().unwrap_or_default();
    Episode::from_file(file.clone(), &id).map_err(|source| {
        let sentence = match &source {
            EpisodeError::ImpossibleAction { index, .. } => {
                reading.action_sentences.get(*index).cloned()
            }
            _ => None,
        };
        ImportError::Episode { sentence, source }
    })
}

struct Parts<'a> {
    scene: &'a str,
    agent: &'a str,
    narrative: &'a str,
    question: &'a str,
}

const NARRATIVE_MARKER: &str = "Actions taken by ";
const QUESTION_MARKER: &str = "Question:";

/// Cuts the text into scene, agent name, narrative and question.
fn split(text: &str) -> Result<Parts<'_>, ImportError> {
    let actions = text
        .find(NARRATIVE_MARKER)
        .ok_or(ImportError::MissingPart {
            part: Part::Narrative,
            marker: NARRATIVE_MARKER,
        })?;
    let after = &text[actions + NARRATIVE_MARKER.len()..];
    let colon = after.find(':').ok_or(ImportError::MissingPart {
        part: Part::Narrative,
        marker: "Actions taken by NAME:",
    })?;
    let agent = after[..colon].trim();
    if agent.is_empty() || agent.contains(['.', '\n']) {
        return Err(ImportError::MissingPart {
            part: Part::Narrative,
            marker: "Actions taken by NAME:",
        });
    }
    let rest = &after[colon + 1..];
    let q = rest.find(QUESTION_MARKER).ok_or(ImportError::MissingPart {
        part: Part::Question,
        marker: QUESTION_MARKER,
    })?;
    let mut scene = &text[..actions];
    // "What's inside the apartment: ..." — drop a heading that ends with a colon.
    if let Some(colon) = scene.find(':') {
        if !scene[..colon].contains('.') {
            scene = &scene[colon + 1..];
        }
    }
    Ok(Parts {
        scene,
        agent,
        narrative: &rest[..q],
        question: &rest[q + QUESTION_MARKER.len()..],
    })
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
