//! The story as it is read, sentence by sentence: who is where and where everything is,
//! so that each sentence is checked against what came before, and the file it makes.

use crate::import::notes::Notes;
use crate::import::Part;
use crate::json::{
    EventFile, FurnitureFile, KindFile, ObjectFile, StoryAgentFile, StoryFile, WorldFile, FORMAT,
};

use super::sentence::{read_sentence, Known, Said, StoryNouns, Unread};

/// The story read so far.
#[derive(Debug, Default)]
pub(in crate::import) struct Builder {
    /// The rooms, containers and objects named so far.
    nouns: StoryNouns,
    /// The room of each container, once a sentence places it.
    container_room: Vec<Option<usize>>,
    object_start: Vec<usize>,
    object_at: Vec<usize>,
    agents: Vec<String>,
    agent_room: Vec<Option<usize>>,
    /// The room most recently entered: where a stated object is.
    scene: Option<usize>,
    events: Vec<EventFile>,
    pub notes: Notes,
}

fn unread(phrase: impl Into<String>, reason: impl Into<String>) -> Unread {
    Unread {
        phrase: phrase.into(),
        reason: reason.into(),
    }
}

fn index_of(names: &[String], name: &str) -> Option<usize> {
    names.iter().position(|n| n == name)
}

impl Builder {
    /// A story whose containers are `containers` (the record's choices) and any the
    /// sentences add.
    pub fn new(containers: &[String]) -> Self {
        Self {
            nouns: StoryNouns {
                containers: containers.to_vec(),
                ..StoryNouns::default()
            },
            container_room: vec![None; containers.len()],
            ..Self::default()
        }
    }

    /// Stands `container` in `room` before any sentence is read: a room known from the
    /// whole story (where the object in it is later moved), so a sentence that places
    /// it elsewhere is an error.
    pub fn settle(&mut self, container: &str, room: &str) {
        let r = self.room(room);
        if let Some(c) = index_of(&self.nouns.containers, container) {
            self.container_room[c] = Some(r);
        }
    }

    /// The index of agent `name`, added when new.
    fn agent(&mut self, name: &str) -> usize {
        index_of(&self.agents, name).unwrap_or_else(|| {
            self.agents.push(name.to_string());
            self.agent_room.push(None);
            self.agents.len() - 1
        })
    }

    /// The index of room `name`, added when new.
    fn room(&mut self, name: &str) -> usize {
        index_of(&self.nouns.rooms, name).unwrap_or_else(|| {
            self.nouns.rooms.push(name.to_string());
            self.nouns.rooms.len() - 1
        })
    }

    /// Whether `name` is an agent of the story.
    pub fn has_agent(&self, name: &str) -> bool {
        index_of(&self.agents, name).is_some()
    }

    /// Reads one sentence and applies it.
    pub fn sentence(&mut self, sentence: &str) -> Result<(), Unread> {
        let said = read_sentence(sentence, &self.nouns)?;
        self.apply(said, sentence)
    }

    /// Applies what `sentence` says, checked against what came before.
    pub fn apply(&mut self, said: Said, sentence: &str) -> Result<(), Unread> {
        match said {
            Said::Enter { agents, room } => self.enter(&agents, &room, sentence),
            Said::Leave { agents, room } => self.leave(&agents, room.as_deref()),
            Said::Stay { agents, room } => self.stay(&agents, room.as_deref()),
            Said::Place { object, container } => self.place(&object, &container),
            Said::Move {
                agent,
                object,
                container,
                from,
            } => self.move_to(&agent, &object, &container, from.as_deref()),
            Said::Claim {
                speaker,
                object,
                container,
                listener,
            } => self.claim(&speaker, &object, &container, listener.as_deref()),
            Said::Nothing { why } => {
                self.notes.add(Part::Story, sentence, why);
                Ok(())
            }
        }
    }

    fn enter(&mut self, agents: &[String], room: &str, sentence: &str) -> Result<(), Unread> {
        let r = self.room(room);
        for name in agents {
            let a = self.agent(name);
            if self.agent_room[a] == Some(r) {
                let reading = format!("{name} is already in the {room}: nothing happens");
                self.notes.add(Part::Story, sentence, reading);
                continue;
            }
            self.agent_room[a] = Some(r);
            self.events.push(EventFile::Enter {
                agent: name.clone(),
                room: room.to_string(),
            });
        }
        self.scene = Some(r);
        Ok(())
    }

    fn leave(&mut self, agents: &[String], room: Option<&str>) -> Result<(), Unread> {
        for name in agents {
            let a = self.agent(name);
            let here = self.agent_room[a].ok_or_else(|| unread(name, "is in no room to leave"))?;
            if let Some(room) = room.filter(|r| *r != self.nouns.rooms[here]) {
                let reason = format!("leaves the {room} but is in the {}", self.nouns.rooms[here]);
                return Err(unread(format!("{name} ... {room}"), reason));
            }
            self.agent_room[a] = None;
            self.events.push(EventFile::Exit {
                agent: name.clone(),
                room: self.nouns.rooms[here].clone(),
            });
        }
        Ok(())
    }

    fn stay(&mut self, agents: &[String], room: Option<&str>) -> Result<(), Unread> {
        for name in agents {
            let a = self.agent(name);
            let here = self.agent_room[a].map(|r| self.nouns.rooms[r].as_str());
            match (room, here) {
                (_, None) => return Err(unread(name, "stays, but is in no room")),
                (Some(room), Some(here)) if room != here => {
                    let reason = format!("stays in the {room} but is in the {here}");
                    return Err(unread(format!("{name} ... {room}"), reason));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The container called `name`, placed in `room` if no sentence placed it yet; an
    /// error if it stands in another room.
    fn container_in(&mut self, name: &str, room: usize) -> Result<usize, Unread> {
        let c = index_of(&self.nouns.containers, name)
            .ok_or_else(|| unread(name, "is not one of the containers"))?;
        match self.container_room[c] {
            None => self.container_room[c] = Some(room),
            Some(r) if r != room => {
                let reason = format!(
                    "stands in the {}, not the {}",
                    self.nouns.rooms[r], self.nouns.rooms[room]
                );
                return Err(unread(name, reason));
            }
            Some(_) => {}
        }
        Ok(c)
    }

    fn place(&mut self, object: &str, container: &str) -> Result<(), Unread> {
        if let Some(o) = index_of(&self.nouns.objects, object) {
            let at = &self.nouns.containers[self.object_at[o]];
            if at != container {
                let reason =
                    format!("says the {object} is in the {container}, but it is in the {at}");
                return Err(unread(format!("{object} ... {container}"), reason));
            }
            return Ok(());
        }
        let c = match index_of(&self.nouns.containers, container)
            .and_then(|c| self.container_room[c])
        {
            Some(room) => self.container_in(container, room)?,
            None => {
                let scene = self.scene.ok_or_else(|| {
                    unread(
                        container,
                        "no room has been entered, so the container stands nowhere",
                    )
                })?;
                self.container_in(container, scene)?
            }
        };
        self.nouns.objects.push(object.to_string());
        self.object_start.push(c);
        self.object_at.push(c);
        Ok(())
    }

    fn move_to(
        &mut self,
        agent: &str,
        object: &str,
        container: &str,
        from: Option<&str>,
    ) -> Result<(), Unread> {
        let a = self.agent(agent);
        let here =
            self.agent_room[a].ok_or_else(|| unread(agent, "moves something but is in no room"))?;
        let o = index_of(&self.nouns.objects, object)
            .ok_or_else(|| unread(object, "is moved before the story says where it is"))?;
        let at = self.object_at[o];
        if self.container_room[at] != Some(here) {
            let reason = format!("is not in the {}, where {agent} is", self.nouns.rooms[here]);
            return Err(unread(object, reason));
        }
        if let Some(from) = from.filter(|f| *f != self.nouns.containers[at]) {
            let reason = format!("the {object} is in the {}", self.nouns.containers[at]);
            return Err(unread(from, reason));
        }
        self.object_at[o] = self.container_in(container, here)?;
        self.events.push(EventFile::Move {
            agent: agent.to_string(),
            object: object.to_string(),
            to: container.to_string(),
        });
        Ok(())
    }

    fn claim(
        &mut self,
        speaker: &str,
        object: &str,
        container: &str,
        listener: Option<&str>,
    ) -> Result<(), Unread> {
        if index_of(&self.nouns.objects, object).is_none() {
            return Err(unread(
                object,
                "is talked of before the story says where it is",
            ));
        }
        if index_of(&self.nouns.containers, container).is_none() {
            return Err(unread(container, "is not one of the containers"));
        }
        self.agent(speaker);
        if let Some(l) = listener {
            self.agent(l);
        }
        self.events.push(EventFile::Claim {
            speaker: speaker.to_string(),
            object: object.to_string(),
            container: container.to_string(),
            listener: listener.map(str::to_string),
        });
        Ok(())
    }

    /// Adds `name` as an agent named by the question only (one the story never mentions).
    pub fn add_agent(&mut self, name: &str) {
        self.agent(name);
    }

    /// The story file: containers no sentence placed stand in the first room.
    pub fn finish(mut self, id: String) -> Result<StoryFile, Unread> {
        let first = self
            .nouns
            .rooms
            .first()
            .cloned()
            .ok_or_else(|| unread("", "no one enters any room: the story has no room"))?;
        if self.container_room.iter().any(Option::is_none) {
            self.notes.add(
                Part::Story,
                "",
                format!("containers no sentence places are taken to stand in the {first}, empty"),
            );
        }
        let furniture = self
            .nouns
            .containers
            .iter()
            .zip(&self.container_room)
            .map(|(c, r)| FurnitureFile {
                id: c.clone(),
                class: None,
                room: r.map_or_else(|| first.clone(), |r| self.nouns.rooms[r].clone()),
                kind: KindFile::Container,
                open: false,
            })
            .collect();
        let objects = self
            .nouns
            .objects
            .iter()
            .zip(&self.object_start)
            .map(|(o, &c)| ObjectFile {
                id: o.clone(),
                class: None,
                at: self.nouns.containers[c].clone(),
            })
            .collect();
        Ok(StoryFile {
            format: FORMAT.to_string(),
            id: Some(id),
            description: None,
            tags: Default::default(),
            world: WorldFile {
                rooms: self.nouns.rooms,
                doors: None,
                furniture,
                objects,
                alternatives: Vec::new(),
            },
            agents: self
                .agents
                .into_iter()
                .map(|name| StoryAgentFile { name, start: None })
                .collect(),
            events: self.events,
            questions: Vec::new(),
        })
    }

    /// Whether `word` is an object of the story.
    pub fn object_named(&self, word: &str) -> bool {
        self.nouns.is_object(word)
    }
}
