//! The answer Sally–Anne logic gives, written as plainly as possible, to say which of a
//! benchmark's labels follow it: a label that departs from it is reported as such (see
//! docs/readers.md, "ToMi stories"). Inference never calls this; it is a second, independent
//! statement of the rules the engine implements with beliefs.
//!
//! An agent sees what happens in the room it is in, and where everything in a room is
//! when it enters. Agent A's idea of where B thinks an object is changes only at what A
//! sees B see: a move both witness, B entering where A is, A entering where B is. Where
//! A never saw B see the object, the logic says nothing.

use std::collections::HashMap;

use crate::json::{EventFile, StoryFile, StoryQuestionFile};

/// The container Sally–Anne logic answers `question` with, or `None` where it says
/// nothing (claims, which ToMi has not; an agent who never saw the object).
pub(super) fn answer(file: &StoryFile, question: &StoryQuestionFile) -> Option<String> {
    let first = question.options.first()?;
    let (of, object) = match (&first.belief, &first.location) {
        (Some(b), None) => (b.of.as_slice(), b.object.as_str()),
        (None, Some(l)) => (&[][..], l.object.as_str()),
        _ => return None,
    };
    let start = file
        .world
        .objects
        .iter()
        .find(|o| o.id == object)
        .map(|o| o.at.clone())?;
    let room_of = |container: &str| {
        file.world
            .furniture
            .iter()
            .find(|f| f.id == container)
            .map(|f| f.room.clone())
    };
    let at = question
        .at
        .unwrap_or(file.events.len())
        .min(file.events.len());
    let mut world = start;
    let mut room: HashMap<&str, &str> = HashMap::new();
    let mut first_order: HashMap<&str, String> = HashMap::new();
    let mut second_order: HashMap<(&str, &str), String> = HashMap::new();
    for event in &file.events[..at] {
        match event {
            EventFile::Enter { agent, room: r } => {
                room.insert(agent, r);
                let here = room_of(&world).as_deref() == Some(r.as_str());
                if here {
                    first_order.insert(agent, world.clone());
                }
                for (other, _) in room.iter().filter(|(o, q)| *o != agent && **q == r) {
                    if here {
                        second_order.insert((other, agent), world.clone());
                        second_order.insert((agent, other), world.clone());
                    }
                }
            }
            EventFile::Exit { agent, .. } => {
                room.remove(agent.as_str());
            }
            EventFile::Move {
                agent,
                object: o,
                to,
            } if o == object => {
                world = to.clone();
                let Some(&r) = room.get(agent.as_str()) else {
                    continue;
                };
                let present: Vec<&str> = room
                    .iter()
                    .filter(|(_, q)| **q == r)
                    .map(|(a, _)| *a)
                    .collect();
                for &a in &present {
                    first_order.insert(a, world.clone());
                    for &b in &present {
                        second_order.insert((a, b), world.clone());
                    }
                }
            }
            EventFile::Move { .. } => {}
            EventFile::Claim { .. } => return None,
        }
    }
    match of {
        [] => Some(world),
        [a] => first_order.get(a.as_str()).cloned(),
        [a, b] => second_order.get(&(a.as_str(), b.as_str())).cloned(),
        _ => None,
    }
}
