//! Where things are: the room of a piece of furniture and the place of an object, by the
//! rules in the [`scene`](super::scene) module docs.

use super::graph::{BoundingBox, Graph, Relation};

/// What a node would be, before rooms and places are settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Category `Rooms`.
    Room,
    /// A scenery category.
    Scenery,
    /// `GRABBABLE`.
    Object,
    /// `CAN_OPEN` and `CONTAINERS`.
    Container,
    /// `SURFACES`, or `CONTAINERS` without `CAN_OPEN`.
    Surface,
    /// Anything else: left out unless objects lie on or in it.
    Other,
}

/// How a piece of furniture's room was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoomFrom {
    /// It is INSIDE exactly one room.
    Edge,
    /// It is INSIDE several rooms: the one whose box covers it, else the lowest id.
    Several,
    /// It is ON or INSIDE something (this node) that is in the room.
    Parent(usize),
    /// The room's bounding box covers its centre.
    Box,
}

/// The room of a non-room node and how it was found.
pub(crate) fn room_of(graph: &Graph, is_room: &[bool], node: usize) -> Option<(usize, RoomFrom)> {
    let direct = |n: usize| -> Vec<usize> {
        let mut rooms: Vec<usize> = graph
            .targets(n, Relation::Inside)
            .into_iter()
            .filter(|&t| is_room[t])
            .collect();
        rooms.sort_by_key(|&r| graph.nodes[r].id);
        rooms
    };
    let covering = |n: usize, among: &[usize]| -> Option<usize> {
        let centre = graph.nodes[n].place_box()?.center;
        among.iter().copied().find(|&r| {
            graph.nodes[r]
                .place_box()
                .is_some_and(|b: BoundingBox| b.covers(centre))
        })
    };
    let rooms = direct(node);
    match rooms.as_slice() {
        [room] => return Some((*room, RoomFrom::Edge)),
        [first, ..] => return Some((covering(node, &rooms).unwrap_or(*first), RoomFrom::Several)),
        [] => {}
    }
    // What it stands on or in, breadth first.
    let mut seen = vec![false; graph.nodes.len()];
    seen[node] = true;
    let mut queue = std::collections::VecDeque::from([node]);
    while let Some(n) = queue.pop_front() {
        for relation in [Relation::On, Relation::Inside] {
            for t in graph.targets(n, relation) {
                if seen[t] || is_room[t] {
                    continue;
                }
                seen[t] = true;
                if let Some(&room) = direct(t).first() {
                    return Some((room, RoomFrom::Parent(t)));
                }
                queue.push_back(t);
            }
        }
    }
    let all: Vec<usize> = (0..graph.nodes.len()).filter(|&r| is_room[r]).collect();
    covering(node, &all).map(|r| (r, RoomFrom::Box))
}

/// How good a candidate place is; lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    /// INSIDE a container.
    InsideContainer,
    /// ON a surface.
    OnSurface,
    /// INSIDE a surface.
    InsideSurface,
    /// ON a container (put inside it).
    OnContainer,
}

/// The place chosen for an object.
pub(crate) struct Placed {
    /// The furniture (or implied surface) node.
    pub(crate) at: usize,
    /// How it was chosen.
    pub(crate) rank: Rank,
    /// Equally good places passed over for the lowest id.
    pub(crate) tied: Vec<usize>,
}

/// Chooses an object's place among furniture (`implied`: among nodes left out so far).
pub(crate) fn place(
    graph: &Graph,
    roles: &[Role],
    rooms: &[Option<usize>],
    object: usize,
    implied: bool,
) -> Option<Placed> {
    let mut candidates: Vec<(Rank, usize)> = Vec::new();
    for (relation, inside) in [(Relation::Inside, true), (Relation::On, false)] {
        for t in graph.targets(object, relation) {
            if rooms[t].is_none() {
                continue;
            }
            let rank = match (roles[t], implied, inside) {
                (Role::Container, false, true) => Rank::InsideContainer,
                (Role::Container, false, false) => Rank::OnContainer,
                (Role::Surface, false, true) | (Role::Other, true, true) => Rank::InsideSurface,
                (Role::Surface, false, false) | (Role::Other, true, false) => Rank::OnSurface,
                _ => continue,
            };
            candidates.push((rank, t));
        }
    }
    let best = candidates.iter().map(|c| c.0).min()?;
    let mut top: Vec<usize> = candidates
        .iter()
        .filter(|c| c.0 == best)
        .map(|c| c.1)
        .collect();
    top.sort_by_key(|&t| graph.nodes[t].id);
    top.dedup();
    let specific: Vec<usize> = top
        .iter()
        .copied()
        .filter(|&t| {
            !top.iter()
                .any(|&u| u != t && rests_on(graph, u, t) && !rests_on(graph, t, u))
        })
        .collect();
    let (&at, tied) = specific.split_first()?;
    Some(Placed {
        at,
        rank: best,
        tied: tied.to_vec(),
    })
}

/// Whether `a` is ON or INSIDE `b`, directly or through other nodes.
fn rests_on(graph: &Graph, a: usize, b: usize) -> bool {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![a];
    seen[a] = true;
    while let Some(n) = stack.pop() {
        for relation in [Relation::On, Relation::Inside] {
            for t in graph.targets(n, relation) {
                if t == b {
                    return true;
                }
                if !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
    }
    false
}
