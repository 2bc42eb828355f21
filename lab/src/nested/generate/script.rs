//! The story of a generated episode: a world of rooms, containers and objects, and the
//! chapters that happen in it.

use bip_episodes::json::{
    EventFile, FurnitureFile, KindFile, ObjectFile, StoryAgentFile, StoryFile, WorldFile, FORMAT,
};

use crate::rng::Rng;

use super::vocabulary::{COLOURS, CONTAINERS, GATHERING, NAMES, OBJECTS, ROOMS};
use super::NestedOptions;

/// Distinct items of `pool`, `n` of them, in random order.
fn pick<'a>(rng: &mut Rng, pool: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut items = pool.to_vec();
    rng.shuffle(&mut items);
    items.truncate(n);
    items
}

/// The world and the story as it is written: names, and where everyone and everything is.
struct Writer {
    file: StoryFile,
    /// The room each agent is in.
    agent_room: Vec<Option<String>>,
    /// Where each object is.
    object_at: Vec<String>,
    /// Where each agent last saw each object.
    seen: Vec<Vec<Option<String>>>,
    /// The room each container stands in.
    container_room: Vec<(String, String)>,
}

impl Writer {
    fn room_of_container(&self, container: &str) -> &str {
        self.container_room
            .iter()
            .find(|(c, _)| c == container)
            .map_or("", |(_, r)| r.as_str())
    }

    fn agent(&self, a: usize) -> String {
        self.file.agents[a].name.clone()
    }

    /// Records the event and what it changes, then what every agent now sees.
    fn push(&mut self, event: EventFile) {
        match &event {
            EventFile::Enter { agent, room } => self.set_room(agent, Some(room.clone())),
            EventFile::Exit { agent, .. } => self.set_room(agent, None),
            EventFile::Move { object, to, .. } => {
                if let Some(o) = self.file.world.objects.iter().position(|x| &x.id == object) {
                    self.object_at[o] = to.clone();
                }
            }
            EventFile::Claim { .. } => {}
        }
        self.file.events.push(event);
        for (a, room) in self.agent_room.iter().enumerate() {
            for (o, at) in self.object_at.iter().enumerate() {
                if room.as_deref() == Some(self.room_of_container(at)) {
                    self.seen[a][o] = Some(at.clone());
                }
            }
        }
    }

    fn set_room(&mut self, agent: &str, room: Option<String>) {
        if let Some(a) = self.file.agents.iter().position(|x| x.name == agent) {
            self.agent_room[a] = room;
        }
    }

    fn containers_in(&self, room: &str) -> Vec<String> {
        let here = self.container_room.iter().filter(|(_, r)| r == room);
        here.map(|(c, _)| c.clone()).collect()
    }
}

/// Where each chapter happens and what is in the rooms: the chapters' rooms and objects,
/// every container with its room, and the objects with where they start.
struct Plan {
    chapters: Vec<(String, usize)>,
    containers: Vec<(String, String)>,
    objects: Vec<ObjectFile>,
}

/// A room per chapter (one may come back), three to five containers in each, and an
/// object per chapter (a chapter in a room seen before may reuse its object); then a few
/// more containers standing empty in the first room.
fn plan(rng: &mut Rng, chapters: usize) -> Plan {
    let rooms = pick(rng, &ROOMS, chapters);
    let mut kinds: Vec<String> = COLOURS
        .iter()
        .flat_map(|c| CONTAINERS.iter().map(move |k| format!("{c}_{k}")))
        .collect();
    rng.shuffle(&mut kinds);
    let names = pick(rng, &OBJECTS, chapters);
    let mut p = Plan {
        chapters: Vec::new(),
        containers: Vec::new(),
        objects: Vec::new(),
    };
    for (c, room) in rooms.iter().enumerate() {
        let revisit = c > 0 && rng.chance(0.3);
        let room = if revisit {
            p.chapters[rng.below(c)].0.clone()
        } else {
            room.to_string()
        };
        if !p.containers.iter().any(|(_, r)| *r == room) {
            for _ in 0..rng.range(3, 5) {
                p.containers
                    .push((kinds.pop().unwrap_or_default(), room.clone()));
            }
        }
        let here: Vec<String> = p
            .containers
            .iter()
            .filter(|(_, r)| *r == room)
            .map(|(k, _)| k.clone())
            .collect();
        let in_room: Vec<usize> = (0..p.objects.len())
            .filter(|&o| here.contains(&p.objects[o].at))
            .collect();
        let object = match rng.pick(&in_room) {
            Some(&o) if revisit && rng.chance(0.5) => o,
            _ => {
                let at = here[rng.below(here.len())].clone();
                let id = names[c].to_string();
                p.objects.push(ObjectFile {
                    id,
                    class: None,
                    at,
                });
                p.objects.len() - 1
            }
        };
        p.chapters.push((room, object));
    }
    let first = p.chapters[0].0.clone();
    for _ in 0..rng.range(2, 6) {
        p.containers
            .push((kinds.pop().unwrap_or_default(), first.clone()));
    }
    rng.shuffle(&mut p.containers);
    p
}

/// The world of a story with `chapters` chapters and `agents` agents (see [`plan`]), and
/// the writer that tells it; returns the writer and, per chapter, its room and object.
fn world(rng: &mut Rng, chapters: usize, agents: usize) -> (Writer, Vec<(String, usize)>) {
    let names = pick(rng, &NAMES, agents);
    let gathering = *rng.pick(&GATHERING).unwrap_or(&GATHERING[0]);
    let plan = plan(rng, chapters);
    let mut rooms: Vec<String> = Vec::new();
    for (r, _) in &plan.chapters {
        if !rooms.contains(r) {
            rooms.push(r.clone());
        }
    }
    rooms.push(gathering.to_string());
    let furniture = plan
        .containers
        .iter()
        .map(|(c, r)| FurnitureFile {
            id: c.clone(),
            class: None,
            room: r.clone(),
            kind: KindFile::Container,
            open: false,
        })
        .collect();
    let agents = names.iter().map(|n| StoryAgentFile {
        name: n.to_string(),
        start: None,
    });
    let file = StoryFile {
        format: FORMAT.to_string(),
        id: None,
        description: None,
        tags: [("length".to_string(), chapters.to_string())].into(),
        world: WorldFile {
            rooms,
            doors: None,
            furniture,
            objects: plan.objects,
            alternatives: Vec::new(),
        },
        agents: agents.collect(),
        events: Vec::new(),
        questions: Vec::new(),
    };
    let writer = Writer {
        agent_room: vec![None; names.len()],
        seen: vec![vec![None; file.world.objects.len()]; names.len()],
        object_at: file.world.objects.iter().map(|o| o.at.clone()).collect(),
        container_room: plan.containers,
        file,
    };
    (writer, plan.chapters)
}

/// A generated story without questions: chapters in which agents enter a room, some move
/// its object before leaving one by one (one may come late, one may come back), then
/// gather; in a story with deception, one or two of them then say where the object is,
/// truly or not, publicly or to one listener.
pub(super) fn story(options: &NestedOptions, rng: &mut Rng) -> StoryFile {
    let chapters = rng.range(1, options.max_chapters.max(1));
    let agents = rng.range(3, 5);
    let deception = rng.chance(options.deception);
    let (mut w, plan) = world(rng, chapters, agents);
    let gathering = w.file.world.rooms.last().cloned().unwrap_or_default();
    for (c, (room, object)) in plan.iter().enumerate() {
        let participants: Vec<usize> = if c == 0 {
            (0..agents).collect()
        } else {
            let mut all: Vec<usize> = (0..agents).collect();
            rng.shuffle(&mut all);
            all.truncate(rng.range(2, agents));
            all
        };
        chapter(&mut w, rng, &participants, room, *object);
        for &a in &participants {
            let agent = w.agent(a);
            w.push(EventFile::Enter {
                agent,
                room: gathering.clone(),
            });
        }
        if deception {
            claims(&mut w, rng, options, &participants, *object);
        }
    }
    w.file
}

/// One chapter in `room`: everyone enters (one late, perhaps), and leaves in a random
/// order, some moving the object first; one may come back and leave again.
fn chapter(w: &mut Writer, rng: &mut Rng, participants: &[usize], room: &str, object: usize) {
    let mut order = participants.to_vec();
    rng.shuffle(&mut order);
    let late = (order.len() >= 3 && rng.chance(0.2)).then(|| order[order.len() - 1]);
    for &a in participants.iter().filter(|&&a| Some(a) != late) {
        let agent = w.agent(a);
        w.push(EventFile::Enter {
            agent,
            room: room.to_string(),
        });
    }
    let mut i = 0;
    while i < order.len() {
        let a = order[i];
        if i == 1 {
            if let Some(l) = late {
                let agent = w.agent(l);
                w.push(EventFile::Enter {
                    agent,
                    room: room.to_string(),
                });
            }
        }
        if rng.chance(0.6) {
            let here: Vec<String> = w
                .containers_in(room)
                .into_iter()
                .filter(|c| *c != w.object_at[object])
                .collect();
            if let Some(to) = rng.pick(&here) {
                let event = EventFile::Move {
                    agent: w.agent(a),
                    object: w.file.world.objects[object].id.clone(),
                    to: to.clone(),
                };
                w.push(event);
            }
        }
        let agent = w.agent(a);
        w.push(EventFile::Exit {
            agent: agent.clone(),
            room: room.to_string(),
        });
        if i + 1 < order.len() && !order[i + 1..].contains(&a) && rng.chance(0.1) {
            w.push(EventFile::Enter {
                agent,
                room: room.to_string(),
            });
            order.push(a);
        }
        i += 1;
    }
}

/// One or two claims about the chapter's object by its participants: the speaker's own
/// belief with probability `options.honesty`, another container of the room otherwise;
/// public half of the time, else to one other agent.
fn claims(
    w: &mut Writer,
    rng: &mut Rng,
    options: &NestedOptions,
    participants: &[usize],
    object: usize,
) {
    let agents = w.file.agents.len();
    for _ in 0..rng.range(1, 2) {
        let s = participants[rng.below(participants.len())];
        let believed = w.seen[s][object].clone().unwrap_or_default();
        let room = w.room_of_container(&believed).to_string();
        let others: Vec<String> = w
            .containers_in(&room)
            .into_iter()
            .filter(|c| *c != believed)
            .collect();
        let container = match rng.pick(&others) {
            Some(other) if !rng.chance(options.honesty) => other.clone(),
            _ => believed,
        };
        let listener = (!rng.chance(0.5)).then(|| {
            let mut l = rng.below(agents - 1);
            if l >= s {
                l += 1;
            }
            w.agent(l)
        });
        let event = EventFile::Claim {
            speaker: w.agent(s),
            object: w.file.world.objects[object].id.clone(),
            container,
            listener,
        };
        w.push(event);
    }
}
