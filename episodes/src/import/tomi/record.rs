//! One ToMi question read into a story with one question.

use crate::import::hitom::build::Builder;
use crate::import::hitom::question::question_file;
use crate::import::hitom::record::unreadable;
use crate::import::hitom::sentence::{read_sentence, Said, Unread};
use crate::import::notes::Notes;
use crate::import::{ImportError, Note, Part};
use crate::json::StoryFile;
use crate::story::Story;

use super::babi::{read_babi, BabiQuestion};
use super::clauses::clauses;
use super::lexicon::lexicon;
use super::pronouns::{resolve_it, resolve_pronouns};
use super::question::read_question;
use super::reference;
use super::rooms::container_rooms;

/// One ToMi question read into a story (`bip-episode/1`, the multi-agent form).
#[derive(Debug, Clone)]
pub struct TomiRecord {
    /// Line number of the question in its file.
    pub line: usize,
    /// The story as written, with its one question.
    pub file: StoryFile,
    /// The same story, validated.
    pub story: Story,
    /// The benchmark's answer (a container), when given.
    pub expected: Option<String>,
    /// Every assumption the reader made, in text order.
    pub notes: Vec<Note>,
}

/// What the trace says of a question: labels for reports, never read by the reader or by
/// inference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TomiLabels {
    /// `first_order_0_tom`, `second_order_1_no_tom`, `reality`, `memory`, ...
    pub question: String,
    /// `true_belief`, `false_belief`, `second_order_false_belief`.
    pub story: String,
}

/// The labels of one trace line: its last two comma-separated fields.
///
/// # Errors
/// [`ImportError::Field`] for a line with fewer than two fields.
pub fn trace_labels(line: &str) -> Result<TomiLabels, ImportError> {
    let mut fields = line.trim().rsplit(',').map(str::trim);
    match (fields.next(), fields.next()) {
        (Some(story), Some(question)) if !story.is_empty() && !question.is_empty() => {
            Ok(TomiLabels {
                question: question.to_string(),
                story: story.to_string(),
            })
        }
        _ => Err(ImportError::Field {
            field: "trace",
            reason: "a trace line ends with the question type and the story type".into(),
        }),
    }
}

/// One question's line number and what was read of it.
pub type ReadQuestion = (usize, Result<TomiRecord, ImportError>);

/// Every question of a bAbI text, read; with a trace (one line per question, in order),
/// each story is labelled with its question type and story type.
///
/// # Errors
/// [`ImportError::Field`] when the trace does not have one line per question, or a line
/// of it has no labels: nothing is read then. Each question's own error is beside it.
pub fn read_tomi(text: &str, trace: Option<&str>) -> Result<Vec<ReadQuestion>, ImportError> {
    let questions = read_babi(text);
    let labels = match trace {
        None => vec![None; questions.len()],
        Some(trace) => {
            let lines: Vec<&str> = trace.lines().filter(|l| !l.trim().is_empty()).collect();
            if lines.len() != questions.len() {
                return Err(ImportError::Field {
                    field: "trace",
                    reason: format!(
                        "has {} lines for {} questions",
                        lines.len(),
                        questions.len()
                    ),
                });
            }
            lines
                .into_iter()
                .map(|l| trace_labels(l).map(Some))
                .collect::<Result<_, _>>()?
        }
    };
    Ok(questions
        .into_iter()
        .zip(labels)
        .map(|((line, q), labels)| (line, q.and_then(|q| read_question_of(&q, labels.as_ref()))))
        .collect())
}

/// Reads one question and its story; its story id is `tomi-<line>`.
///
/// # Errors
/// [`ImportError::Unreadable`] naming the sentence and words that cannot be read;
/// [`ImportError::Field`] for an answer that is none of the story's containers;
/// [`ImportError::Episode`] if the story read is not valid.
pub fn read_question_of(
    q: &BabiQuestion,
    labels: Option<&TomiLabels>,
) -> Result<TomiRecord, ImportError> {
    let id = format!("tomi-{}", q.line);
    let mut notes = Notes::default();
    let split: Vec<String> = q.story.iter().flat_map(|s| clauses(s)).collect();
    let sentences = resolve_pronouns(&split, &mut notes);
    let lex = lexicon(&sentences).map_err(|(s, u)| unreadable(Part::Story, &sentences[s], u))?;
    let sentences = resolve_it(&sentences, &lex, &mut notes)
        .map_err(|(s, u)| unreadable(Part::Story, &sentences[s], u))?;
    let said: Vec<Said> = sentences
        .iter()
        .map(|s| read_sentence(s, &lex).map_err(|u| unreadable(Part::Story, s, u)))
        .collect::<Result<_, _>>()?;
    if lex.containers.len() < 2 {
        let reason = match lex.containers.as_slice() {
            [] => "names no container: a question needs two places to choose between",
            _ => "is the story's only container: a question needs two places to choose between",
        };
        // The phrase at fault: the one container, or the whole story for none.
        let story = q.story.join(" ");
        let phrase = lex
            .containers
            .first()
            .cloned()
            .unwrap_or_else(|| story.clone());
        let u = Unread {
            phrase,
            reason: reason.into(),
        };
        return Err(unreadable(Part::Story, &story, u));
    }
    let mut builder = Builder::new(&lex.containers);
    for (container, room) in container_rooms(&said) {
        builder.settle(&container, &room);
    }
    for (said, sentence) in said.into_iter().zip(&sentences) {
        builder
            .apply(said, sentence)
            .map_err(|u| unreadable(Part::Story, sentence, u))?;
    }
    let asked = read_question(&q.question, &lex, |a| builder.has_agent(a))
        .map_err(|u| unreadable(Part::Question, &q.question, u))?;
    let expected = q
        .answer
        .as_deref()
        .map(|a| {
            lex.containers
                .iter()
                .position(|c| c == a)
                .ok_or_else(|| ImportError::Field {
                    field: "answer",
                    reason: format!("\"{a}\" is none of the story's containers"),
                })
        })
        .transpose()?;
    notes.extend(std::mem::take(&mut builder.notes));
    let mut file = builder
        .finish(id.clone())
        .map_err(|u| unreadable(Part::Story, &q.story.join(" "), u))?;
    let label = labels.map(|l| l.question.clone());
    let mut question = question_file(&asked.asked, &q.question, &lex.containers, expected, label);
    if asked.at_start {
        question.at = Some(0);
    }
    if let Some(l) = labels {
        file.tags.insert("question".into(), l.question.clone());
        file.tags.insert("story".into(), l.story.clone());
    }
    if let (Some(e), Some(logic)) = (expected, reference::answer(&file, &question)) {
        let follows = lex.containers[e] == logic;
        let value = if follows { "follows" } else { "departs" };
        file.tags.insert("logic".into(), value.into());
    }
    file.questions.push(question);
    let story = Story::from_file(file.clone(), &id).map_err(|source| ImportError::Episode {
        sentence: None,
        source,
    })?;
    Ok(TomiRecord {
        line: q.line,
        file,
        story,
        expected: q.answer.clone(),
        notes: notes.into_vec(),
    })
}
