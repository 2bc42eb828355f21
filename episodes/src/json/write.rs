//! Writing: a validated [`Episode`] back as an [`EpisodeFile`].

use crate::action::Action;
use crate::episode::Episode;
use crate::ids::FurnitureId;
use crate::layout::Place;
use crate::question::{Expected, Proposition, Question};
use crate::world::{FurnitureKind, World};

use super::file::*;

impl Episode {
    /// The episode as a [`EpisodeFile`], ready to serialise.
    pub fn to_file(&self) -> EpisodeFile {
        let w = self.world();
        let agent = self.agent();
        EpisodeFile {
            format: FORMAT.to_string(),
            id: Some(self.id().to_string()),
            description: self.description().map(str::to_string),
            world: world_file(w, self.alternatives()),
            agent: AgentFile {
                name: agent.name.clone(),
                start: w.room(agent.start).name.clone(),
                goals: agent
                    .goal_candidates
                    .as_ref()
                    .map(|cs| cs.iter().map(|c| w.class_name(*c).to_string()).collect()),
            },
            actions: self
                .actions()
                .iter()
                .map(|a| ActionFile::new(a, w))
                .collect(),
            questions: self
                .questions()
                .iter()
                .map(|q| question_file(w, q))
                .collect(),
        }
    }

    /// The episode as pretty-printed `bip-episode/1` JSON.
    pub fn to_json(&self) -> String {
        // Serialising plain structs of strings, numbers and vectors cannot fail.
        serde_json::to_string_pretty(&self.to_file()).unwrap_or_default()
    }
}

impl ActionFile {
    /// `action` as episode files write it, in `world`'s names.
    ///
    /// # Panics
    /// If `action` names a place or object `world` does not have.
    pub fn new(action: &Action, world: &World) -> Self {
        match *action {
            Action::WalkTo(p) => ActionFile::WalkTo(world.place_name(p).to_string()),
            Action::Open(f) => ActionFile::Open(world.furniture(f).name.clone()),
            Action::Close(f) => ActionFile::Close(world.furniture(f).name.clone()),
            Action::Grab(o) => ActionFile::Grab(world.object(o).name.clone()),
            Action::Put { object, onto } => ActionFile::Put {
                object: world.object(object).name.clone(),
                onto: world.furniture(onto).name.clone(),
            },
        }
    }
}

/// The `class` field of a piece or object: written only when the id does not imply it.
fn class_field(id: &str, class: &str) -> Option<String> {
    (default_class(id) != class).then(|| class.to_string())
}

/// The `world` object: rooms, doors, furniture, objects and the other readings.
pub(crate) fn world_file(w: &World, alternatives: &[Vec<FurnitureId>]) -> WorldFile {
    WorldFile {
        rooms: w.rooms.iter().map(|r| r.name.clone()).collect(),
        doors: Some(doors(w)),
        furniture: w
            .furniture
            .iter()
            .map(|f| FurnitureFile {
                id: f.name.clone(),
                class: class_field(&f.name, w.furniture_class_name(f.class)),
                room: w.room(f.room).name.clone(),
                kind: match f.kind {
                    FurnitureKind::Container => KindFile::Container,
                    FurnitureKind::Surface => KindFile::Surface,
                },
                open: f.open_at_start,
            })
            .collect(),
        objects: w
            .objects
            .iter()
            .map(|o| ObjectFile {
                id: o.name.clone(),
                class: class_field(&o.name, w.class_name(o.class)),
                at: w.furniture(o.start).name.clone(),
            })
            .collect(),
        alternatives: alternatives
            .iter()
            .map(|starts| AlternativeFile {
                objects: w
                    .objects
                    .iter()
                    .zip(starts)
                    .filter(|(o, &start)| o.start != start)
                    .map(|(o, &start)| (o.name.clone(), w.furniture(start).name.clone()))
                    .collect(),
            })
            .collect(),
    }
}

/// Every door of the walking graph, in the order the graph holds them.
fn doors(w: &World) -> Vec<DoorFile> {
    let graph = w.layout.graph();
    let mut doors = Vec::new();
    for edge in graph.edge_indices() {
        if let Some((a, b)) = graph.edge_endpoints(edge) {
            if let (Place::Room(a), Place::Room(b)) = (graph[a], graph[b]) {
                let between = [w.room(a).name.clone(), w.room(b).name.clone()];
                let distance = graph[edge];
                doors.push(if distance == 1.0 {
                    DoorFile::Pair(between)
                } else {
                    DoorFile::Weighted { between, distance }
                });
            }
        }
    }
    doors
}

fn question_file(w: &World, q: &Question) -> QuestionFile {
    QuestionFile {
        id: Some(q.id.clone()),
        label: q.label.as_ref().map(ToString::to_string),
        text: q.text.clone(),
        at: Some(q.at),
        options: q
            .options
            .iter()
            .map(|o| {
                let about = proposition_file(w, o.claim.about);
                OptionFile {
                    text: o.text.clone(),
                    goal: about.goal,
                    belief: about.belief,
                    given: o.claim.given.map(|g| proposition_file(w, g)),
                }
            })
            .collect(),
        expected: q.expected.map(Expected::label),
    }
}

fn proposition_file(w: &World, p: Proposition) -> PropositionFile {
    match p {
        Proposition::Goal(c) => PropositionFile {
            goal: Some(w.class_name(c).to_string()),
            belief: None,
        },
        Proposition::Belief {
            class,
            place,
            inside,
        } => PropositionFile {
            goal: None,
            belief: Some(BeliefFile {
                object: w.class_name(class).to_string(),
                container: w.furniture(place).name.clone(),
                inside,
            }),
        },
    }
}
