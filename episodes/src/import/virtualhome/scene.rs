//! A checked graph read into a scene: rooms, containers and surfaces in rooms, grabbable
//! objects in or on them, and where the agent starts. Every choice goes to the report.
//!
//! Roles, in order (properties and categories are compared without regard to case):
//! 1. category `Rooms`: a room;
//! 2. a scenery category (`Walls`, `Floor`, `Floors`, `Ceiling`, `Lamps`, `Doors`,
//!    `Windows`, `Characters`): left out (the character gives the start room);
//! 3. `GRABBABLE`: an object, even when it is also a container or surface (plates, folders);
//! 4. `CAN_OPEN` and `CONTAINERS`: a container, open if its states say `OPEN`, closed if
//!    `CLOSED` or if they say neither (reported);
//! 5. `SURFACES`: a surface (a `CAN_OPEN` one, the stove, is reported);
//! 6. `CONTAINERS` without `CAN_OPEN` (a sink): a surface, reported — it cannot be closed;
//! 7. anything else: left out, unless an object lies only on or in it (a bookshelf, a
//!    kitchen counter), which makes it a surface (reported).
//!
//! Furniture is in the room it is INSIDE. Failing that, in the room of what it is ON or
//! INSIDE (a rug on a table), then in the room whose bounding box covers its centre; INSIDE
//! several rooms, the one whose box covers its centre, else the lowest id. These are
//! reported; furniture with no room is left out.
//!
//! An object's place is chosen among the furniture its edges name, best first: INSIDE a
//! container, ON a surface, INSIDE a surface (books INSIDE a bookshelf, an apple INSIDE
//! the sofa its table stands in), ON a container (put inside it — an episode has no "on
//! top of" — reported). Among places of the best rank, one that is itself ON or INSIDE
//! another wins over it (the mouse is on the mouse mat, not the desk); a remaining tie goes
//! to the lowest node id, reported. Objects with no place are left out, reported.
//!
//! Imported nodes INSIDE each other in a circle are an error; circles among nodes that are
//! left out (curtains INSIDE curtains in VirtualHome's own scene 1) are not.

use super::error::VirtualHomeError;
use super::graph::{Graph, Relation};

use super::furniture::{furniture_rooms, kept_furniture, note_kinds, note_placed, Rooms};
#[cfg(test)]
use super::node::NodeId;
use super::place::{place, room_of, Role, RoomFrom};
use super::report::{NoteKind, Notes};

/// Node categories that are never imported (walls, floors, lamps, doors, ...).
pub const SCENERY: &[&str] = &[
    "Walls",
    "Floor",
    "Floors",
    "Ceiling",
    "Lamps",
    "Doors",
    "Windows",
    "Characters",
];

/// A piece of furniture of the scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SceneFurniture {
    /// Its node.
    pub(crate) node: usize,
    /// Whether it must be opened.
    pub(crate) container: bool,
    /// Whether a container starts open.
    pub(crate) open: bool,
    /// The node of its room.
    pub(crate) room: usize,
}

/// An object of the scene and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SceneObject {
    /// Its node.
    pub(crate) node: usize,
    /// The node of the furniture it is in or on.
    pub(crate) at: usize,
}

/// What the importer made of a graph; every list in node-id order.
#[derive(Debug, Clone)]
pub(crate) struct Scene {
    /// Room nodes.
    pub(crate) rooms: Vec<usize>,
    /// Containers and surfaces.
    pub(crate) furniture: Vec<SceneFurniture>,
    /// Objects.
    pub(crate) objects: Vec<SceneObject>,
    /// The room node the agent starts in.
    pub(crate) start: usize,
}

impl Scene {
    /// Reads the scene of a checked graph.
    ///
    /// # Errors
    /// [`VirtualHomeError::NoRooms`] without rooms, [`VirtualHomeError::InsideCycle`] when
    /// imported nodes are INSIDE each other in a circle.
    pub(crate) fn new(graph: &Graph, notes: &mut Notes) -> Result<Self, VirtualHomeError> {
        let mut roles: Vec<Role> = graph.nodes.iter().map(role).collect();
        let mut rooms: Vec<usize> = (0..roles.len())
            .filter(|&n| roles[n] == Role::Room)
            .collect();
        if rooms.is_empty() {
            return Err(VirtualHomeError::NoRooms);
        }
        rooms.sort_by_key(|&n| graph.nodes[n].id);
        let is_room: Vec<bool> = roles.iter().map(|r| *r == Role::Room).collect();
        let furniture_room = furniture_rooms(graph, &mut roles, &is_room, notes);
        let mut objects = Vec::new();
        for n in 0..roles.len() {
            if roles[n] != Role::Object {
                continue;
            }
            let placed = place(graph, &roles, &furniture_room, n, false)
                .or_else(|| place(graph, &roles, &furniture_room, n, true));
            let node = &graph.nodes[n];
            match placed {
                Some(placed) => {
                    let at = placed.at;
                    let rooms = Rooms {
                        is_room: &is_room,
                        of_furniture: &furniture_room,
                    };
                    note_placed(graph, &mut roles, &rooms, n, placed, notes);
                    objects.push(SceneObject { node: n, at });
                }
                None => {
                    notes.group(
                        NoteKind::Unlocated,
                        &node.class,
                        node.id,
                        "grabbable, but in or on no container or surface: left out",
                    );
                }
            }
        }
        let mut furniture = kept_furniture(graph, &roles, &furniture_room, notes);
        note_kinds(graph, &roles, notes);
        furniture.sort_by_key(|f| graph.nodes[f.node].id);
        objects.sort_by_key(|o| graph.nodes[o.node].id);
        let scene = Scene {
            start: start_room(graph, &rooms, notes),
            rooms,
            furniture,
            objects,
        };
        scene.check_cycles(graph)?;
        Ok(scene)
    }

    /// Every imported node: rooms, furniture, objects.
    pub(crate) fn nodes(&self) -> Vec<usize> {
        let mut nodes = self.rooms.clone();
        nodes.extend(self.furniture.iter().map(|f| f.node));
        nodes.extend(self.objects.iter().map(|o| o.node));
        nodes
    }

    /// Fails on a circle of INSIDE edges among imported nodes.
    fn check_cycles(&self, graph: &Graph) -> Result<(), VirtualHomeError> {
        let mut imported = vec![false; graph.nodes.len()];
        for n in self.nodes() {
            imported[n] = true;
        }
        // 0 = unvisited, 1 = on the current path, 2 = done.
        let mut mark = vec![0u8; graph.nodes.len()];
        for start in self.nodes() {
            if mark[start] != 0 {
                continue;
            }
            let mut path = vec![start];
            let mut next = vec![0usize];
            mark[start] = 1;
            while let Some(&node) = path.last() {
                let targets: Vec<usize> = graph
                    .targets(node, Relation::Inside)
                    .into_iter()
                    .filter(|&t| imported[t])
                    .collect();
                let i = next.last().copied().unwrap_or(0);
                match targets.get(i) {
                    Some(&t) => {
                        if let Some(slot) = next.last_mut() {
                            *slot += 1;
                        }
                        if mark[t] == 1 {
                            let from = path.iter().position(|&p| p == t).unwrap_or(0);
                            return Err(VirtualHomeError::InsideCycle {
                                cycle: path[from..].iter().map(|&p| graph.nodes[p].id).collect(),
                            });
                        }
                        if mark[t] == 0 {
                            mark[t] = 1;
                            path.push(t);
                            next.push(0);
                        }
                    }
                    None => {
                        mark[node] = 2;
                        path.pop();
                        next.pop();
                    }
                }
            }
        }
        Ok(())
    }
}

/// "fridge 285".
pub(crate) fn describe(graph: &Graph, node: usize) -> String {
    let n = &graph.nodes[node];
    format!("{} {}", n.class, n.id)
}

fn role(node: &super::graph::Node) -> Role {
    let category = |name: &str| node.category.eq_ignore_ascii_case(name);
    if category("Rooms") {
        Role::Room
    } else if SCENERY.iter().any(|c| category(c)) {
        Role::Scenery
    } else if node.has("GRABBABLE") {
        Role::Object
    } else if node.has("CAN_OPEN") && node.has("CONTAINERS") {
        Role::Container
    } else if node.has("SURFACES") || node.has("CONTAINERS") {
        Role::Surface
    } else {
        Role::Other
    }
}

/// Notes about a node left out that is not scenery.
pub(super) fn note_left_out(notes: &mut Notes, node: &super::graph::Node) {
    if node.has("CAN_OPEN") {
        notes.group(
            NoteKind::OpenableNotContainer,
            &node.class,
            node.id,
            "CAN_OPEN but not CONTAINERS, SURFACES or GRABBABLE: left out",
        );
    } else {
        notes.group(
            NoteKind::NotModelled,
            &node.class,
            node.id,
            "not a container, surface or grabbable object, and holds no object: left out",
        );
    }
}

/// Notes the unusual property mixes of imported furniture and how its room was found.
pub(super) fn note_room(graph: &Graph, notes: &mut Notes, n: usize, room: usize, from: RoomFrom) {
    let node = &graph.nodes[n];
    if node.has("SURFACES") && node.has("CAN_OPEN") && !node.has("CONTAINERS") {
        notes.group(
            NoteKind::OpenableNotContainer,
            &node.class,
            node.id,
            "CAN_OPEN and SURFACES but not CONTAINERS: imported as a surface",
        );
    }
    if node.has("CONTAINERS") && !node.has("CAN_OPEN") && !node.has("GRABBABLE") {
        notes.group(
            NoteKind::ContainerNotOpenable,
            &node.class,
            node.id,
            "CONTAINERS but not CAN_OPEN: imported as a surface (it cannot be closed)",
        );
    }
    let room = describe(graph, room);
    let detail = match from {
        RoomFrom::Edge => return,
        RoomFrom::Several => format!("INSIDE several rooms: put in {room}"),
        RoomFrom::Parent(p) => format!(
            "INSIDE no room: put in {room}, the room of {}, which it is ON or INSIDE",
            describe(graph, p)
        ),
        RoomFrom::Box => format!("INSIDE no room: put in {room}, whose box covers its centre"),
    };
    notes.group(NoteKind::RoomChosen, &node.class, node.id, &detail);
}

/// The room of the first character, else the first room; reported.
fn start_room(graph: &Graph, rooms: &[usize], notes: &mut Notes) -> usize {
    let is_room: Vec<bool> = (0..graph.nodes.len()).map(|n| rooms.contains(&n)).collect();
    let mut characters: Vec<usize> = (0..graph.nodes.len())
        .filter(|&n| {
            graph.nodes[n].category.eq_ignore_ascii_case("Characters")
                || graph.nodes[n].class == "character"
        })
        .collect();
    characters.sort_by_key(|&n| graph.nodes[n].id);
    for c in characters {
        if let Some((room, _)) = room_of(graph, &is_room, c) {
            notes.note(
                NoteKind::Start,
                vec![graph.nodes[c].id, graph.nodes[room].id],
                format!(
                    "the agent starts in {}, where {} is",
                    describe(graph, room),
                    describe(graph, c)
                ),
            );
            return room;
        }
    }
    let room = rooms[0];
    notes.note(
        NoteKind::Start,
        vec![graph.nodes[room].id],
        format!(
            "no character in a room: the agent starts in {}, the room with the lowest id",
            describe(graph, room)
        ),
    );
    room
}

/// Node ids of `nodes`, for messages and tests.
#[cfg(test)]
pub(crate) fn ids(graph: &Graph, nodes: impl IntoIterator<Item = usize>) -> Vec<NodeId> {
    nodes.into_iter().map(|n| graph.nodes[n].id).collect()
}

#[cfg(test)]
#[path = "scene_tests.rs"]
mod tests;
