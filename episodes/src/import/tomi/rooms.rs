//! Where each container stands, from the whole story: ToMi states where an object is
//! while other agents wander in and out of other rooms, so the room last entered before
//! the statement is often not the container's. A container stands where an agent moves
//! an object out of it or into it; one that is only ever stated stands in the room last
//! entered before its statement.

use crate::import::hitom::sentence::Said;

/// `(container, room)` for every container the story's sentences locate, in order of
/// the sentences that decide; a container two sentences put in different rooms keeps the
/// first, and the builder then refuses the other sentence, naming it.
pub(super) fn container_rooms(said: &[Said]) -> Vec<(String, String)> {
    let mut agent_room: Vec<(&str, Option<&str>)> = Vec::new();
    let mut object_at: Vec<(&str, &str)> = Vec::new();
    let mut decided: Vec<(String, String)> = Vec::new();
    let mut stated: Vec<(&str, Option<&str>)> = Vec::new();
    let mut scene: Option<&str> = None;
    let mut decide = |container: &str, room: &str| {
        if !decided.iter().any(|(c, _)| c == container) {
            decided.push((container.to_string(), room.to_string()));
        }
    };
    for s in said {
        match s {
            Said::Enter { agents, room } => {
                for a in agents {
                    set(&mut agent_room, a, Some(room.as_str()));
                }
                scene = Some(room.as_str());
            }
            Said::Leave { agents, .. } => {
                for a in agents {
                    set(&mut agent_room, a, None);
                }
            }
            Said::Place { object, container } => {
                if !object_at.iter().any(|(o, _)| o == object) {
                    object_at.push((object, container));
                }
                stated.push((container.as_str(), scene));
            }
            Said::Move {
                agent,
                object,
                container,
                ..
            } => {
                let here = agent_room
                    .iter()
                    .find(|(a, _)| a == agent)
                    .and_then(|(_, r)| *r);
                if let Some(room) = here {
                    if let Some((_, from)) = object_at.iter().find(|(o, _)| o == object) {
                        decide(from, room);
                    }
                    decide(container, room);
                }
                set(&mut object_at, object, container);
            }
            Said::Stay { .. } | Said::Claim { .. } | Said::Nothing { .. } => {}
        }
    }
    for (container, room) in stated {
        if let Some(room) = room {
            decide(container, room);
        }
    }
    decided
}

fn set<'a, T: Copy>(list: &mut Vec<(&'a str, T)>, key: &'a str, value: T) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 = value,
        None => list.push((key, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enter(agent: &str, room: &str) -> Said {
        Said::Enter {
            agents: vec![agent.into()],
            room: room.into(),
        }
    }

    #[test]
    fn a_later_move_decides_where_a_stated_container_stands() {
        let said = [
            enter("Liam", "cellar"),
            enter("Ann", "hall"),
            Said::Place {
                object: "apple".into(),
                container: "box".into(),
            },
            Said::Move {
                agent: "Liam".into(),
                object: "apple".into(),
                container: "crate".into(),
                from: None,
            },
        ];
        let rooms = container_rooms(&said);
        assert_eq!(
            rooms,
            [
                ("box".to_string(), "cellar".to_string()),
                ("crate".to_string(), "cellar".to_string())
            ]
        );
    }

    #[test]
    fn a_container_only_stated_stands_where_the_story_last_went() {
        let said = [
            enter("Ann", "hall"),
            Said::Place {
                object: "apple".into(),
                container: "box".into(),
            },
        ];
        assert_eq!(
            container_rooms(&said),
            [("box".to_string(), "hall".to_string())]
        );
    }
}
