//! Reading: a [`StoryFile`] resolved and replayed into a validated [`Story`].

use std::collections::HashMap;

use crate::episode::check::{claim_id, question_shape};
use crate::error::EpisodeError;
use crate::ids::{AgentId, FurnitureId, ObjectId};
use crate::question_type::QuestionLabel;
use crate::story::{
    agent_by_name, Event, NestedClaim, Story, StoryAgent, StoryOption, StoryParts, StoryQuestion,
    StoryState,
};
use crate::world::World;

use super::file::FORMAT;
use super::read::{build_expected, build_world};
use super::story_file::*;

impl Story {
    /// Reads and validates a story from `bip-episode/1` JSON text (the multi-agent form:
    /// `agents` and `events`).
    ///
    /// `fallback_id` names the story when the file has no `id`.
    ///
    /// # Errors
    /// [`EpisodeError::Json`] with line and column for malformed text, otherwise the first
    /// invalid field, unknown name or impossible event, with its JSON path.
    pub fn from_json(text: &str, fallback_id: &str) -> Result<Story, EpisodeError> {
        let file: StoryFile = serde_json::from_str(text).map_err(|e| EpisodeError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        Story::from_file(file, fallback_id)
    }

    /// Validates an already-parsed [`StoryFile`].
    ///
    /// # Errors
    /// As [`Story::from_json`], less the JSON syntax errors.
    pub fn from_file(file: StoryFile, fallback_id: &str) -> Result<Story, EpisodeError> {
        if file.format != FORMAT {
            return Err(EpisodeError::Format {
                expected: FORMAT,
                found: format!("\"{}\"", file.format),
            });
        }
        let world = build_world(&file.world)?;
        let agents = build_agents(&world, &file.agents)?;
        let events = build_events(&world, &agents, &file.events)?;
        let questions = build_questions(&world, &agents, events.len(), &file.questions)?;
        Story::new(StoryParts {
            id: file.id.unwrap_or_else(|| fallback_id.to_string()),
            description: file.description,
            tags: file.tags,
            world,
            agents,
            events,
            questions,
        })
    }
}

fn build_agents(world: &World, files: &[StoryAgentFile]) -> Result<Vec<StoryAgent>, EpisodeError> {
    let mut seen = HashMap::new();
    let mut agents = Vec::with_capacity(files.len());
    for (i, a) in files.iter().enumerate() {
        claim_id(&mut seen, &a.name, format!("agents[{i}].name"))?;
        let start = a
            .start
            .as_deref()
            .map(|r| {
                world
                    .room_by_name(r)
                    .ok_or_else(|| EpisodeError::unknown(format!("agents[{i}].start"), "room", r))
            })
            .transpose()?;
        agents.push(StoryAgent {
            name: a.name.clone(),
            start,
        });
    }
    Ok(agents)
}

/// Name lookups of one story, each naming the field at fault.
struct Names<'a> {
    world: &'a World,
    agents: &'a [StoryAgent],
}

impl Names<'_> {
    fn agent(&self, name: &str, field: String) -> Result<AgentId, EpisodeError> {
        agent_by_name(self.agents, name).ok_or_else(|| EpisodeError::unknown(field, "agent", name))
    }

    fn object(&self, name: &str, field: String) -> Result<ObjectId, EpisodeError> {
        self.world
            .object_by_name(name)
            .ok_or_else(|| EpisodeError::unknown(field, "object", name))
    }

    fn furniture(&self, name: &str, field: String) -> Result<FurnitureId, EpisodeError> {
        self.world
            .furniture_by_name(name)
            .ok_or_else(|| EpisodeError::unknown(field, "container", name))
    }

    fn event(&self, file: &EventFile, i: usize) -> Result<Event, EpisodeError> {
        let f = |part: &str| format!("events[{i}].{part}");
        let room = |name: &str, field: String| {
            self.world
                .room_by_name(name)
                .ok_or_else(|| EpisodeError::unknown(field, "room", name))
        };
        Ok(match file {
            EventFile::Enter { agent, room: r } => Event::Enter {
                agent: self.agent(agent, f("enter.agent"))?,
                room: room(r, f("enter.room"))?,
            },
            EventFile::Exit { agent, room: r } => Event::Exit {
                agent: self.agent(agent, f("exit.agent"))?,
                room: room(r, f("exit.room"))?,
            },
            EventFile::Move { agent, object, to } => Event::Move {
                agent: self.agent(agent, f("move.agent"))?,
                object: self.object(object, f("move.object"))?,
                to: self.furniture(to, f("move.to"))?,
            },
            EventFile::Claim {
                speaker,
                object,
                container,
                listener,
            } => Event::Claim {
                speaker: self.agent(speaker, f("claim.speaker"))?,
                object: self.object(object, f("claim.object"))?,
                place: self.furniture(container, f("claim.container"))?,
                listener: listener
                    .as_deref()
                    .map(|l| self.agent(l, f("claim.listener")))
                    .transpose()?,
            },
        })
    }
}

fn build_events(
    world: &World,
    agents: &[StoryAgent],
    files: &[EventFile],
) -> Result<Vec<Event>, EpisodeError> {
    let names = Names { world, agents };
    let mut state = StoryState::initial(world, agents);
    let mut events = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let event = names.event(file, i)?;
        crate::story::apply_checked(&mut state, world, agents, &event, i)?;
        events.push(event);
    }
    Ok(events)
}

fn build_questions(
    world: &World,
    agents: &[StoryAgent],
    event_count: usize,
    files: &[StoryQuestionFile],
) -> Result<Vec<StoryQuestion>, EpisodeError> {
    let names = Names { world, agents };
    let mut questions = Vec::with_capacity(files.len());
    for (i, q) in files.iter().enumerate() {
        let field = format!("questions[{i}]");
        let at = q.at.unwrap_or(event_count);
        question_shape(&field, at, event_count, q.options.len())?;
        let options = q
            .options
            .iter()
            .enumerate()
            .map(|(j, o)| names.option(o, &format!("{field}.options[{j}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let expected = q
            .expected
            .as_deref()
            .map(|letter| build_expected(letter, options.len(), &field))
            .transpose()?;
        questions.push(StoryQuestion {
            id: q.id.clone().unwrap_or_else(|| format!("q{}", i + 1)),
            label: q.label.as_deref().map(QuestionLabel::parse),
            text: q.text.clone(),
            at,
            options,
            expected,
        });
    }
    Ok(questions)
}

impl Names<'_> {
    fn option(&self, o: &StoryOptionFile, field: &str) -> Result<StoryOption, EpisodeError> {
        let claim = match (&o.belief, &o.location) {
            (Some(b), None) => {
                if b.of.is_empty() {
                    return Err(EpisodeError::invalid(
                        format!("{field}.belief.of"),
                        "[]",
                        "is empty; name whose belief it is, or use \"location\"",
                    ));
                }
                NestedClaim {
                    of: b
                        .of
                        .iter()
                        .enumerate()
                        .map(|(k, a)| self.agent(a, format!("{field}.belief.of[{k}]")))
                        .collect::<Result<_, _>>()?,
                    object: self.object(&b.object, format!("{field}.belief.object"))?,
                    place: self.furniture(&b.container, format!("{field}.belief.container"))?,
                    inside: b.inside,
                }
            }
            (None, Some(l)) => NestedClaim {
                of: Vec::new(),
                object: self.object(&l.object, format!("{field}.location.object"))?,
                place: self.furniture(&l.container, format!("{field}.location.container"))?,
                inside: l.inside,
            },
            (Some(_), Some(_)) => {
                return Err(EpisodeError::invalid(
                    field,
                    "belief and location",
                    "has both; give exactly one",
                ))
            }
            (None, None) => {
                return Err(EpisodeError::invalid(
                    field,
                    "{}",
                    "has neither \"belief\" nor \"location\"",
                ))
            }
        };
        Ok(StoryOption {
            text: o.text.clone(),
            claim,
        })
    }
}

#[cfg(test)]
#[path = "story_tests.rs"]
mod tests;
