//! What one sentence of a story says, read by what it names and a few cues.
//!
//! - A container (one of the record's choices, or one the story has named) and an
//!   object: with no agent, where the object is ("The pear is in the red_box"); with one
//!   agent and no word of saying, a move ("Ann put the pear in the red_box"); with a word
//!   of saying, "that", or a second agent, a claim — public with a public cue or no
//!   listener, private to the second agent otherwise.
//! - A container and no object, or a word of liking: nothing the story tracks ("Ann
//!   likes the red_box").
//! - Agents and a room (a noun after "the" that is no container or object): leaving with
//!   a word of leaving, staying with a word of staying, otherwise entering if a verb of
//!   motion or a preposition leads to the room.
//! - Agents and nothing else ("Noah saw a monkey", "Ann lost his watch"): nothing.
//!
//! A sentence naming an object but no container, or a container but too many agents, or
//! denying what happened, or standing for an agent with a pronoun, cannot be read: the
//! error names the words.

use super::words::{
    has_phrase, words, Word, DETERMINERS, ENTER, FROM, LEAVE, LIKE, NOT, PRIVATE, PRONOUNS, PUBLIC,
    SAY, STAY, STAY_PHRASES,
};

/// What a sentence says, in the story's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::import) enum Said {
    /// The agents go into the room.
    Enter { agents: Vec<String>, room: String },
    /// The agents leave the room (their own when not named).
    Leave {
        agents: Vec<String>,
        room: Option<String>,
    },
    /// The agents stay where they are (in the room, when named).
    Stay {
        agents: Vec<String>,
        room: Option<String>,
    },
    /// The object is in the container.
    Place { object: String, container: String },
    /// The agent moves the object into the container (from `from`, when named).
    Move {
        agent: String,
        object: String,
        container: String,
        from: Option<String>,
    },
    /// The speaker says the object is in the container, to one listener or to everyone.
    Claim {
        speaker: String,
        object: String,
        container: String,
        listener: Option<String>,
    },
    /// Nothing about where anyone or anything is; `why` says what was taken so.
    Nothing { why: &'static str },
}

/// Why a sentence cannot be read: the words at fault and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::import) struct Unread {
    pub phrase: String,
    pub reason: String,
}

fn unread(phrase: impl Into<String>, reason: impl Into<String>) -> Unread {
    Unread {
        phrase: phrase.into(),
        reason: reason.into(),
    }
}

/// What the reader knows of the story so far: which words are containers and objects.
pub(in crate::import) trait Known {
    /// Whether `word` is a container.
    fn is_container(&self, word: &str) -> bool;
    /// Whether `word` is an object already placed.
    fn is_object(&self, word: &str) -> bool;
    /// Whether `word` is a room already named.
    fn is_room(&self, word: &str) -> bool;
}

/// The nouns of a story by kind, each in order of first mention: what a sentence's words
/// are told apart by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::import) struct StoryNouns {
    pub rooms: Vec<String>,
    pub containers: Vec<String>,
    pub objects: Vec<String>,
}

impl Known for StoryNouns {
    fn is_container(&self, word: &str) -> bool {
        self.containers.iter().any(|c| c == word)
    }

    fn is_object(&self, word: &str) -> bool {
        self.objects.iter().any(|o| o == word)
    }

    fn is_room(&self, word: &str) -> bool {
        self.rooms.iter().any(|r| r == word)
    }
}

/// The words of a sentence sorted into what they name.
struct Parts<'a> {
    words: Vec<Word<'a>>,
    agents: Vec<String>,
    /// (position, name) of each container.
    containers: Vec<(usize, String)>,
    /// Nouns that are not containers: known objects and rooms, words after "the", and a
    /// bare word between "that" and "is".
    nouns: Vec<String>,
}

fn parts<'a>(sentence: &'a str, known: &dyn Known) -> Parts<'a> {
    let words = words(sentence);
    let mut agents: Vec<String> = Vec::new();
    let mut containers = Vec::new();
    let mut nouns: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if w.is_name() {
            if !agents.iter().any(|a| a == w.text) {
                agents.push(w.text.to_string());
            }
        } else if known.is_container(w.text) {
            containers.push((i, w.text.to_string()));
        } else {
            let after_the = i > 0 && words[i - 1].is_any(DETERMINERS);
            let bare_subject = i > 0
                && words[i - 1].lower == "that"
                && words.get(i + 1).is_some_and(|n| n.is_any(&["is", "was"]));
            let tracked = known.is_object(w.text) || known.is_room(w.text);
            if (after_the || bare_subject || tracked) && !nouns.iter().any(|n| n == w.text) {
                nouns.push(w.text.to_string());
            }
        }
    }
    Parts {
        words,
        agents,
        containers,
        nouns,
    }
}

/// Reads one sentence.
pub(in crate::import) fn read_sentence(sentence: &str, known: &dyn Known) -> Result<Said, Unread> {
    let p = parts(sentence, known);
    if p.words.iter().any(|w| w.is_any(LIKE)) {
        return Ok(Said::Nothing {
            why: "a liking says nothing of where anyone or anything is",
        });
    }
    if let Some(w) = p.words.iter().find(|w| w.is_any(PRONOUNS)) {
        return Err(unread(
            w.text,
            "stands for someone the sentence does not name",
        ));
    }
    if p.containers.is_empty() {
        return presence(&p, known);
    }
    let mut objects: Vec<&String> = p.nouns.iter().filter(|n| !known.is_room(n)).collect();
    if objects.iter().any(|o| known.is_object(o)) {
        // "to the group", "in the corner": nouns the story does not track, beside one it does.
        objects.retain(|o| known.is_object(o));
    }
    let object = match objects.as_slice() {
        [] if p.agents.is_empty() => {
            return Err(unread(sentence, "names a container but no object or agent"))
        }
        [] => {
            return Ok(Said::Nothing {
                why: "an agent and a container, with no object, say nothing of where anything is",
            })
        }
        [one] => (*one).clone(),
        [first, second, ..] => {
            return Err(unread(
                format!("{first}, {second}"),
                "names more than one object beside a container",
            ))
        }
    };
    if let Some(w) = p.words.iter().find(|w| w.is_any(NOT)) {
        return Err(unread(w.text, "says what did not happen"));
    }
    located(&p, object, sentence)
}

/// A sentence with an object and a container: a placement, a move or a claim.
fn located(p: &Parts<'_>, object: String, sentence: &str) -> Result<Said, Unread> {
    let saying = p.words.iter().any(|w| w.is_any(SAY) || w.lower == "that");
    let (container, from) = destination(p)?;
    match (p.agents.as_slice(), saying) {
        ([], false) => Ok(Said::Place { object, container }),
        ([], true) => Err(unread(
            sentence,
            "tells where an object is, but no one says it",
        )),
        ([agent], false) => Ok(Said::Move {
            agent: agent.clone(),
            object,
            container,
            from,
        }),
        ([speaker, rest @ ..], _) if rest.len() <= 1 => {
            let public = p.words.iter().any(|w| w.is_any(PUBLIC));
            let private = p.words.iter().any(|w| w.is_any(PRIVATE));
            let listener = if public { None } else { rest.first().cloned() };
            if listener.is_none() && private && !public {
                return Err(unread(sentence, "a private claim names no listener"));
            }
            Ok(Said::Claim {
                speaker: speaker.clone(),
                object,
                container,
                listener,
            })
        }
        (agents, _) => Err(unread(
            agents.join(", "),
            "names more agents than a speaker and a listener",
        )),
    }
}

/// Where the object goes (or is said to be), and where it comes from when the sentence
/// says ("from the red_box").
fn destination(p: &Parts<'_>) -> Result<(String, Option<String>), Unread> {
    let is_source = |i: usize| {
        let before = |k: usize| i >= k && p.words[i - k].is_any(FROM);
        before(1) || (before(2) && p.words[i - 1].is_any(DETERMINERS))
    };
    let (sources, targets): (Vec<_>, Vec<_>) =
        p.containers.iter().partition(|(i, _)| is_source(*i));
    match (targets.as_slice(), sources.as_slice()) {
        ([(_, to)], []) => Ok((to.clone(), None)),
        ([(_, to)], [(_, from)]) => Ok((to.clone(), Some(from.clone()))),
        _ => {
            let all: Vec<&str> = p.containers.iter().map(|(_, c)| c.as_str()).collect();
            Err(unread(
                all.join(", "),
                "cannot tell which container the object is in",
            ))
        }
    }
}

/// A sentence with no container: agents entering, leaving or staying, or nothing.
fn presence(p: &Parts<'_>, known: &dyn Known) -> Result<Said, Unread> {
    if let Some(o) = p.nouns.iter().find(|n| known.is_object(n)) {
        let other = p
            .nouns
            .iter()
            .find(|n| !known.is_object(n) && !known.is_room(n));
        return Err(match other {
            Some(other) => unread(
                format!("the {other}"),
                "is not one of the record's containers",
            ),
            None => unread(o.as_str(), "names an object but no container"),
        });
    }
    let rooms = &p.nouns;
    if p.agents.is_empty() {
        return Ok(Said::Nothing {
            why: "names no agent, object or container",
        });
    }
    if rooms.len() > 1 {
        return Err(unread(rooms.join(", "), "names more than one room"));
    }
    let agents = p.agents.clone();
    let room = rooms.first().cloned();
    if p.words.iter().any(|w| w.is_any(STAY)) || has_phrase(&p.words, STAY_PHRASES) {
        return Ok(Said::Stay { agents, room });
    }
    if p.words.iter().any(|w| w.is_any(LEAVE)) {
        return Ok(Said::Leave { agents, room });
    }
    match room {
        Some(room) if p.words.iter().any(|w| w.is_any(ENTER)) => Ok(Said::Enter { agents, room }),
        _ => Ok(Said::Nothing {
            why: "names no container, and no room entered or left",
        }),
    }
}

#[cfg(test)]
#[path = "sentence_tests.rs"]
mod tests;
