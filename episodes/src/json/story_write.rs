//! Writing: a validated [`Story`] back as a [`StoryFile`].

use crate::question::Expected;
use crate::story::{Event, Story, StoryQuestion};
use crate::world::World;

use super::file::{DoorFile, FORMAT};
use super::story_file::*;
use super::write::world_file;

impl Story {
    /// The story as a [`StoryFile`], ready to serialise.
    pub fn to_file(&self) -> StoryFile {
        let w = self.world();
        let mut world = world_file(w, &[]);
        if world.doors.as_ref().is_some_and(|d| every_pair(w, d)) {
            world.doors = None;
        }
        StoryFile {
            format: FORMAT.to_string(),
            id: Some(self.id().to_string()),
            description: self.description().map(str::to_string),
            tags: self.tags().clone(),
            world,
            agents: self
                .agents()
                .iter()
                .map(|a| StoryAgentFile {
                    name: a.name.clone(),
                    start: a.start.map(|r| w.room(r).name.clone()),
                })
                .collect(),
            events: self.events().iter().map(|e| self.event_file(e)).collect(),
            questions: self
                .questions()
                .iter()
                .map(|q| self.question_file(q))
                .collect(),
        }
    }

    /// The story as pretty-printed `bip-episode/1` JSON.
    pub fn to_json(&self) -> String {
        // Plain structs of strings, numbers and vectors always serialise.
        serde_json::to_string_pretty(&self.to_file()).unwrap_or_default()
    }

    fn event_file(&self, event: &Event) -> EventFile {
        let w = self.world();
        let name = |a| self.agent_name(a).to_string();
        let place = |f| w.furniture(f).name.clone();
        match *event {
            Event::Enter { agent, room } => EventFile::Enter {
                agent: name(agent),
                room: w.room(room).name.clone(),
            },
            Event::Exit { agent, room } => EventFile::Exit {
                agent: name(agent),
                room: w.room(room).name.clone(),
            },
            Event::Move { agent, object, to } => EventFile::Move {
                agent: name(agent),
                object: w.object(object).name.clone(),
                to: place(to),
            },
            Event::Claim {
                speaker,
                object,
                place: at,
                listener,
            } => EventFile::Claim {
                speaker: name(speaker),
                object: w.object(object).name.clone(),
                container: place(at),
                listener: listener.map(name),
            },
        }
    }

    fn question_file(&self, q: &StoryQuestion) -> StoryQuestionFile {
        let w = self.world();
        let options = q
            .options
            .iter()
            .map(|o| {
                let c = &o.claim;
                let object = w.object(c.object).name.clone();
                let container = w.furniture(c.place).name.clone();
                let (belief, location) = if c.of.is_empty() {
                    let location = LocationFile {
                        object,
                        container,
                        inside: c.inside,
                    };
                    (None, Some(location))
                } else {
                    let of = c.of.iter().map(|&a| self.agent_name(a).to_string());
                    let belief = NestedBeliefFile {
                        of: of.collect(),
                        object,
                        container,
                        inside: c.inside,
                    };
                    (Some(belief), None)
                };
                StoryOptionFile {
                    text: o.text.clone(),
                    belief,
                    location,
                }
            })
            .collect();
        StoryQuestionFile {
            id: Some(q.id.clone()),
            label: q.label.as_ref().map(ToString::to_string),
            text: q.text.clone(),
            at: Some(q.at),
            options,
            expected: q.expected.map(Expected::label),
        }
    }
}

/// Whether `doors` join every pair of `w`'s rooms at distance 1: what a file without
/// doors means.
fn every_pair(w: &World, doors: &[DoorFile]) -> bool {
    let n = w.rooms.len();
    doors.len() == n * (n - 1) / 2 && doors.iter().all(|d| matches!(d, DoorFile::Pair(_)))
}
