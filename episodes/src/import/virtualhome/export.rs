//! Episode to VirtualHome: a scene graph and a program that VirtualHome's executor reads,
//! for the parts bip models.
//!
//! Nodes are numbered 1, 2, ... in the order rooms, furniture, objects, doors, character.
//! Rooms have category `Rooms`; containers `CAN_OPEN` and `CONTAINERS` with state `OPEN`
//! or `CLOSED`; surfaces `SURFACES`; objects `GRABBABLE`, INSIDE their container or ON
//! their surface, INSIDE its room and CLOSE to it (both ways); furniture is INSIDE its
//! room. Each door of the episode is a `door` node BETWEEN its two rooms, and the agent a
//! `character` node INSIDE its start room. `class_name` is the class, `prefab_name` the
//! episode id (VirtualHome needs the field; there is no real prefab), and every
//! `bounding_box` is a zero-size placeholder at the origin (the executor needs the field;
//! the importer ignores boxes without floor area).
//!
//! The program has one line per action, without a character prefix, as the executor's
//! `parse_script_line` wants: `[Walk] <kitchen> (1)`, `[Open] <fridge> (5)`, `[Grab]
//! <apple> (9)`, `[PutIn]` into a container and `[PutBack]` onto a surface.
//!
//! Not exported: door distances (VirtualHome has none; re-imported doors cost 1), the
//! agent's name and goal candidates, and questions.

use crate::action::Action;
use crate::episode::Episode;
use crate::json::default_class;
use crate::layout::Place;
use crate::world::FurnitureKind;

use super::graph::{BoundingBox, EdgeFile, GraphFile, NodeFile};
use super::node::NodeId;

/// A scene graph and a program.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The environment graph.
    pub graph: GraphFile,
    /// The program, one action a line, each line ending in a newline.
    pub script: String,
}

/// Writes `episode` as a VirtualHome graph and program (see the module docs).
///
/// # Example
/// ```
/// use bip_episodes::Episode;
/// use bip_episodes::import::virtualhome::export;
///
/// let episode = Episode::from_json(r#"{"format": "bip-episode/1",
///   "world": {"rooms": ["kitchen"],
///     "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"}],
///     "objects": [{"id": "apple", "at": "fridge"}]},
///   "agent": {"name": "Ann", "start": "kitchen"},
///   "actions": [{"walk_to": "fridge"}, {"open": "fridge"}, {"grab": "apple"}]}"#, "demo")?;
/// let exported = export(&episode);
/// assert_eq!(exported.script, "[Walk] <fridge> (2)\n[Open] <fridge> (2)\n[Grab] <apple> (3)\n");
/// assert_eq!(exported.graph.nodes.len(), 4, "kitchen, fridge, apple, character");
/// # Ok::<(), bip_episodes::EpisodeError>(())
/// ```
pub fn export(episode: &Episode) -> Exported {
    let w = episode.world();
    let rooms = w.rooms.len() as u64;
    let furniture = w.furniture.len() as u64;
    let room_id = |r: usize| NodeId(1 + r as u64);
    let furniture_id = |f: usize| NodeId(1 + rooms + f as u64);
    let object_id = |o: usize| NodeId(1 + rooms + furniture + o as u64);
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut edge = |from: NodeId, relation: &str, to: NodeId| {
        edges.push(EdgeFile {
            from_id: from,
            relation_type: relation.to_string(),
            to_id: to,
        });
    };
    for (r, room) in w.rooms.iter().enumerate() {
        nodes.push(node(
            room_id(r),
            default_class(&room.name),
            "Rooms",
            &room.name,
            &[],
            &[],
        ));
    }
    for (f, piece) in w.furniture.iter().enumerate() {
        let (properties, states): (&[&str], &[&str]) = match piece.kind {
            FurnitureKind::Container => (
                &["CAN_OPEN", "CONTAINERS"],
                if piece.open_at_start {
                    &["OPEN"]
                } else {
                    &["CLOSED"]
                },
            ),
            FurnitureKind::Surface => (&["SURFACES"], &[]),
        };
        nodes.push(node(
            furniture_id(f),
            w.furniture_class_name(piece.class),
            "Furniture",
            &piece.name,
            properties,
            states,
        ));
        edge(furniture_id(f), "INSIDE", room_id(piece.room.index()));
    }
    for (o, object) in w.objects.iter().enumerate() {
        let class = w.class_name(object.class);
        nodes.push(node(
            object_id(o),
            class,
            "Props",
            &object.name,
            &["GRABBABLE"],
            &[],
        ));
        let at = w.furniture(object.start);
        let relation = match at.kind {
            FurnitureKind::Container => "INSIDE",
            FurnitureKind::Surface => "ON",
        };
        let place = furniture_id(object.start.index());
        edge(object_id(o), relation, place);
        edge(object_id(o), "INSIDE", room_id(at.room.index()));
        edge(object_id(o), "CLOSE", place);
        edge(place, "CLOSE", object_id(o));
    }
    let mut next = 1 + rooms + furniture + w.objects.len() as u64;
    let layout = w.layout.graph();
    for e in layout.edge_indices() {
        let Some((a, b)) = layout.edge_endpoints(e) else {
            continue;
        };
        if let (Place::Room(a), Place::Room(b)) = (layout[a], layout[b]) {
            let door = NodeId(next);
            next += 1;
            nodes.push(node(
                door,
                "door",
                "Doors",
                "door",
                &["CAN_OPEN"],
                &["OPEN"],
            ));
            edge(door, "INSIDE", room_id(a.index()));
            edge(door, "BETWEEN", room_id(a.index()));
            edge(door, "BETWEEN", room_id(b.index()));
        }
    }
    let character = NodeId(next);
    nodes.push(node(
        character,
        "character",
        "Characters",
        &episode.agent().name,
        &[],
        &[],
    ));
    edge(character, "INSIDE", room_id(episode.agent().start.index()));
    let mut script = String::new();
    for action in episode.actions() {
        let place = |p: Place| match p {
            Place::Room(r) => (
                default_class(&w.room(r).name).to_string(),
                room_id(r.index()),
            ),
            Place::Furniture(f) => (
                w.furniture_class_name(w.furniture(f).class).to_string(),
                furniture_id(f.index()),
            ),
        };
        let object = |o: crate::ObjectId| {
            (
                w.class_name(w.object(o).class).to_string(),
                object_id(o.index()),
            )
        };
        let (verb, args) = match *action {
            Action::WalkTo(p) => ("Walk", vec![place(p)]),
            Action::Open(f) => ("Open", vec![place(Place::Furniture(f))]),
            Action::Close(f) => ("Close", vec![place(Place::Furniture(f))]),
            Action::Grab(o) => ("Grab", vec![object(o)]),
            Action::Put { object: o, onto } => (
                match w.furniture(onto).kind {
                    FurnitureKind::Container => "PutIn",
                    FurnitureKind::Surface => "PutBack",
                },
                vec![object(o), place(Place::Furniture(onto))],
            ),
        };
        script.push_str(&format!("[{verb}]"));
        for (class, id) in args {
            script.push_str(&format!(" <{class}> ({id})"));
        }
        script.push('\n');
    }
    Exported {
        graph: GraphFile { nodes, edges },
        script,
    }
}

fn node(
    id: NodeId,
    class: &str,
    category: &str,
    prefab: &str,
    properties: &[&str],
    states: &[&str],
) -> NodeFile {
    NodeFile {
        id,
        class_name: Some(class.to_string()),
        category: Some(category.to_string()),
        prefab_name: Some(prefab.to_string()),
        states: states.iter().map(ToString::to_string).collect(),
        properties: properties.iter().map(ToString::to_string).collect(),
        bounding_box: Some(BoundingBox::default()),
    }
}
