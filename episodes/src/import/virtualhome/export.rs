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
use crate::ids::{FurnitureId, ObjectId, RoomId};
use crate::json::default_class;
use crate::layout::Place;
use crate::world::{FurnitureKind, World};

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
    let ids = Ids {
        rooms: w.rooms.len() as u64,
        furniture: w.furniture.len() as u64,
    };
    let mut graph = GraphFile::default();
    add_rooms_and_furniture(&mut graph, w, ids);
    add_objects(&mut graph, w, ids);
    let next = add_doors(&mut graph, w, ids);
    let agent = episode.agent();
    graph
        .nodes
        .push(node(next, "character", "Characters", &agent.name, &[], &[]));
    add_edge(&mut graph, next, "INSIDE", ids.room(agent.start));
    Exported {
        graph,
        script: script(w, episode.actions(), ids),
    }
}

/// Node ids of the exported graph: rooms from 1, then furniture, objects, doors and the
/// character.
#[derive(Debug, Clone, Copy)]
struct Ids {
    rooms: u64,
    furniture: u64,
}

impl Ids {
    fn room(self, r: RoomId) -> NodeId {
        NodeId(1 + r.index() as u64)
    }

    fn furniture(self, f: FurnitureId) -> NodeId {
        NodeId(1 + self.rooms + f.index() as u64)
    }

    fn object(self, o: ObjectId) -> NodeId {
        NodeId(1 + self.rooms + self.furniture + o.index() as u64)
    }

    /// The first id after those of the `objects` objects.
    fn after_objects(self, objects: usize) -> u64 {
        1 + self.rooms + self.furniture + objects as u64
    }
}

fn add_edge(graph: &mut GraphFile, from: NodeId, relation: &str, to: NodeId) {
    graph.edges.push(EdgeFile {
        from_id: from,
        relation_type: relation.to_string(),
        to_id: to,
    });
}

fn add_rooms_and_furniture(graph: &mut GraphFile, w: &World, ids: Ids) {
    for (r, room) in w.room_ids().zip(&w.rooms) {
        let class = default_class(&room.name);
        graph
            .nodes
            .push(node(ids.room(r), class, "Rooms", &room.name, &[], &[]));
    }
    for (f, piece) in w.furniture_ids().zip(&w.furniture) {
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
        graph.nodes.push(node(
            ids.furniture(f),
            w.furniture_class_name(piece.class),
            "Furniture",
            &piece.name,
            properties,
            states,
        ));
        add_edge(graph, ids.furniture(f), "INSIDE", ids.room(piece.room));
    }
}

fn add_objects(graph: &mut GraphFile, w: &World, ids: Ids) {
    for (o, object) in w.objects.iter().enumerate() {
        let id = ids.object(ObjectId::new(o));
        let class = w.class_name(object.class);
        let props = &["GRABBABLE"];
        graph
            .nodes
            .push(node(id, class, "Props", &object.name, props, &[]));
        let at = w.furniture(object.start);
        let relation = match at.kind {
            FurnitureKind::Container => "INSIDE",
            FurnitureKind::Surface => "ON",
        };
        let place = ids.furniture(object.start);
        add_edge(graph, id, relation, place);
        add_edge(graph, id, "INSIDE", ids.room(at.room));
        add_edge(graph, id, "CLOSE", place);
        add_edge(graph, place, "CLOSE", id);
    }
}

/// A `door` node for each door of the layout, numbered after the objects; returns the next
/// free id.
fn add_doors(graph: &mut GraphFile, w: &World, ids: Ids) -> NodeId {
    let mut next = ids.after_objects(w.objects.len());
    let layout = w.layout.graph();
    for e in layout.edge_indices() {
        let Some((a, b)) = layout.edge_endpoints(e) else {
            continue;
        };
        if let (Place::Room(a), Place::Room(b)) = (layout[a], layout[b]) {
            let door = NodeId(next);
            next += 1;
            let (props, states) = (&["CAN_OPEN"], &["OPEN"]);
            graph
                .nodes
                .push(node(door, "door", "Doors", "door", props, states));
            add_edge(graph, door, "INSIDE", ids.room(a));
            add_edge(graph, door, "BETWEEN", ids.room(a));
            add_edge(graph, door, "BETWEEN", ids.room(b));
        }
    }
    NodeId(next)
}

/// The program: one line per action, `[Verb] <class> (id) ...`.
fn script(w: &World, actions: &[Action], ids: Ids) -> String {
    let place = |p: Place| match p {
        Place::Room(r) => (default_class(&w.room(r).name).to_string(), ids.room(r)),
        Place::Furniture(f) => (
            w.furniture_class_name(w.furniture(f).class).to_string(),
            ids.furniture(f),
        ),
    };
    let object = |o: ObjectId| (w.class_name(w.object(o).class).to_string(), ids.object(o));
    let mut script = String::new();
    for action in actions {
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
    script
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
