//! The furniture of a scene: which room each piece is in, which pieces are kept, and the
//! notes on how objects were placed and on nodes whose properties say more than their role.

use super::graph::Graph;
use super::place::{room_of, Placed, Rank, Role, RoomFrom};
use super::report::{NoteKind, Notes};
use super::scene::{describe, note_left_out, note_room, SceneFurniture};

/// Which room each piece of furniture (and each node that may turn out to be one) is in;
/// furniture in no room is noted and becomes [`Role::Other`].
pub(super) fn furniture_rooms(
    graph: &Graph,
    roles: &mut [Role],
    is_room: &[bool],
    notes: &mut Notes,
) -> Vec<Option<usize>> {
    let mut furniture_room: Vec<Option<usize>> = vec![None; roles.len()];
    for n in 0..roles.len() {
        if matches!(roles[n], Role::Container | Role::Surface | Role::Other) {
            furniture_room[n] = room_of(graph, is_room, n).map(|(room, from)| {
                if roles[n] != Role::Other {
                    note_room(graph, notes, n, room, from);
                }
                room
            });
        }
    }
    for n in 0..roles.len() {
        if matches!(roles[n], Role::Container | Role::Surface) && furniture_room[n].is_none() {
            let node = &graph.nodes[n];
            notes.group(
                NoteKind::NoRoom,
                &node.class,
                node.id,
                "furniture in no room (no INSIDE edge to a room, nothing under it in one, no room box around it): left out",
            );
            roles[n] = Role::Other;
        }
    }
    furniture_room
}

/// The rooms of the graph: which nodes are rooms, and each piece of furniture's room.
pub(super) struct Rooms<'a> {
    pub is_room: &'a [bool],
    pub of_furniture: &'a [Option<usize>],
}

/// Notes how object `n` was placed; a node of no role that holds it becomes a surface.
pub(super) fn note_placed(
    graph: &Graph,
    roles: &mut [Role],
    rooms: &Rooms<'_>,
    n: usize,
    Placed { at, rank, tied }: Placed,
    notes: &mut Notes,
) {
    let node = &graph.nodes[n];
    if roles[at] == Role::Other {
        roles[at] = Role::Surface;
        let kept = &graph.nodes[at];
        let room = rooms.of_furniture[at].unwrap_or(at);
        let from = room_of(graph, rooms.is_room, at).map_or(RoomFrom::Edge, |r| r.1);
        note_room(graph, notes, at, room, from);
        notes.group(
            NoteKind::ImpliedSurface,
            &kept.class,
            kept.id,
            "neither SURFACES nor CONTAINERS, but objects lie only on or in it: imported as a surface",
        );
    }
    if rank == Rank::OnContainer {
        notes.group(
            NoteKind::OnContainer,
            &node.class,
            node.id,
            &format!("ON the container {}: put inside it", describe(graph, at)),
        );
    }
    if !tied.is_empty() {
        let others: Vec<String> = tied.iter().map(|&t| describe(graph, t)).collect();
        notes.group(
            NoteKind::PlaceChosen,
            &node.class,
            node.id,
            &format!(
                "placed at {} (lowest id) rather than {}",
                describe(graph, at),
                others.join(", ")
            ),
        );
    }
}

/// The furniture imported (containers and surfaces in a room); the rest is noted as left
/// out.
pub(super) fn kept_furniture(
    graph: &Graph,
    roles: &[Role],
    furniture_room: &[Option<usize>],
    notes: &mut Notes,
) -> Vec<SceneFurniture> {
    let mut furniture = Vec::new();
    for n in 0..roles.len() {
        let node = &graph.nodes[n];
        match (roles[n], furniture_room[n]) {
            (Role::Container | Role::Surface, Some(room)) => {
                let container = roles[n] == Role::Container;
                if container && !node.is("OPEN") && !node.is("CLOSED") {
                    notes.group(
                        NoteKind::AssumedClosed,
                        &node.class,
                        node.id,
                        "container with neither OPEN nor CLOSED among its states: assumed closed",
                    );
                }
                furniture.push(SceneFurniture {
                    node: n,
                    container,
                    open: container && node.is("OPEN") && !node.is("CLOSED"),
                    room,
                });
            }
            (Role::Other, _) => note_left_out(notes, node),
            _ => {}
        }
    }
    furniture
}

/// Notes scenery left out and objects whose properties say more than an object has.
pub(super) fn note_kinds(graph: &Graph, roles: &[Role], notes: &mut Notes) {
    for (node, &role) in graph.nodes.iter().zip(roles) {
        if role == Role::Scenery {
            notes.group(
                NoteKind::Scenery,
                &node.category,
                node.id,
                "scenery: left out",
            );
        }
        let grabbable_place = node.has("SURFACES") || node.has("CONTAINERS");
        if role == Role::Object && node.has("CAN_OPEN") && !node.has("CONTAINERS") {
            notes.group(
                NoteKind::OpenableNotContainer,
                &node.class,
                node.id,
                "CAN_OPEN and GRABBABLE but not CONTAINERS: imported as an object",
            );
        }
        if role == Role::Object && grabbable_place {
            notes.group(
                NoteKind::GrabbablePlace,
                &node.class,
                node.id,
                "GRABBABLE and a container or surface: imported as an object; nothing is placed in or on it",
            );
        }
    }
}
