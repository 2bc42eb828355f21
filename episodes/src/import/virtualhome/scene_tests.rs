//! Roles, rooms and places on small hand-made graphs.

use super::*;
use crate::import::virtualhome::graph::read_graph;
use crate::import::virtualhome::report::ImportReport;

/// A node: `(id, class, category, properties, states)`.
fn node(id: u64, class: &str, category: &str, properties: &[&str], states: &[&str]) -> String {
    let list = |xs: &[&str]| {
        xs.iter()
            .map(|x| format!("\"{x}\""))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        r#"{{"id": {id}, "class_name": "{class}", "category": "{category}", "properties": [{}], "states": [{}]}}"#,
        list(properties),
        list(states)
    )
}

fn edges(list: &[(u64, &str, u64)]) -> String {
    list.iter()
        .map(|(a, r, b)| format!(r#"{{"from_id": {a}, "relation_type": "{r}", "to_id": {b}}}"#))
        .collect::<Vec<_>>()
        .join(",")
}

fn scene(
    nodes: &[String],
    list: &[(u64, &str, u64)],
) -> Result<(Graph, Scene, ImportReport), VirtualHomeError> {
    let text = format!(
        r#"{{"nodes": [{}], "edges": [{}]}}"#,
        nodes.join(","),
        edges(list)
    );
    let graph = Graph::new(&read_graph(&text)?)?;
    let mut notes = Notes::default();
    let scene = Scene::new(&graph, &mut notes)?;
    Ok((graph, scene, notes.into_report()))
}

/// A kitchen (1) with a closed fridge (2), a table (3), a sink (4), a counter without
/// properties (5), a stove that opens (6), a lamp (7) and a character (8).
fn kitchen() -> Vec<String> {
    vec![
        node(1, "kitchen", "Rooms", &[], &[]),
        node(
            2,
            "fridge",
            "Appliances",
            &["CAN_OPEN", "CONTAINERS"],
            &["CLOSED"],
        ),
        node(3, "kitchen_table", "Furniture", &["SURFACES"], &[]),
        node(4, "sink", "Furniture", &["CONTAINERS", "RECIPIENT"], &[]),
        node(5, "kitchen_counter", "Furniture", &[], &[]),
        node(
            6,
            "stove",
            "Appliances",
            &["CAN_OPEN", "SURFACES"],
            &["CLOSED"],
        ),
        node(7, "ceilinglamp", "Lamps", &[], &[]),
        node(8, "character", "Characters", &[], &[]),
    ]
}

const IN_KITCHEN: [(u64, &str, u64); 7] = [
    (2, "INSIDE", 1),
    (3, "INSIDE", 1),
    (4, "INSIDE", 1),
    (5, "INSIDE", 1),
    (6, "INSIDE", 1),
    (7, "INSIDE", 1),
    (8, "INSIDE", 1),
];

fn placed(graph: &Graph, scene: &Scene, object: u64) -> Option<NodeId> {
    scene
        .objects
        .iter()
        .find(|o| graph.nodes[o.node].id == NodeId(object))
        .map(|o| graph.nodes[o.at].id)
}

#[test]
fn roles_follow_properties_and_are_reported() {
    let (graph, scene, report) = scene(&kitchen(), &IN_KITCHEN).expect("valid");
    assert_eq!(ids(&graph, scene.rooms.clone()), vec![NodeId(1)]);
    let furniture: Vec<(NodeId, bool)> = scene
        .furniture
        .iter()
        .map(|f| (graph.nodes[f.node].id, f.container))
        .collect();
    // The counter holds nothing, so it is left out; the lamp is scenery.
    assert_eq!(
        furniture,
        vec![
            (NodeId(2), true),
            (NodeId(3), false),
            (NodeId(4), false),
            (NodeId(6), false)
        ]
    );
    assert!(report.mentions(NoteKind::ContainerNotOpenable, NodeId(4)));
    assert!(report.mentions(NoteKind::OpenableNotContainer, NodeId(6)));
    assert!(report.mentions(NoteKind::NotModelled, NodeId(5)));
    assert!(report.mentions(NoteKind::Scenery, NodeId(7)));
    assert!(report.mentions(NoteKind::Start, NodeId(8)));
    assert_eq!(scene.start, 0);
}

#[test]
fn places_prefer_inside_containers_then_on_surfaces_then_specific() {
    let mut nodes = kitchen();
    nodes.extend([
        node(10, "apple", "Food", &["GRABBABLE"], &[]),
        node(11, "plate", "Props", &["GRABBABLE", "SURFACES"], &[]),
        node(12, "rug", "Decor", &["SURFACES"], &[]),
        node(13, "mug", "Props", &["GRABBABLE"], &[]),
        node(14, "salmon", "Food", &["GRABBABLE"], &[]),
        node(15, "book", "Props", &["GRABBABLE"], &[]),
        node(16, "towel", "Props", &["GRABBABLE"], &[]),
        node(17, "pie", "Food", &[], &[]),
    ]);
    let mut list = IN_KITCHEN.to_vec();
    list.extend([
        (12, "INSIDE", 1),
        (12, "ON", 3),
        // The apple is in the fridge and (by its box) on the table: the fridge wins.
        (10, "INSIDE", 2),
        (10, "ON", 3),
        // The plate is on the rug, which is on the table: the rug is more specific.
        (11, "ON", 3),
        (11, "ON", 12),
        // The mug stands on the plate (an object) and the table.
        (13, "ON", 11),
        (13, "ON", 3),
        // The salmon lies on the fridge: put inside it.
        (14, "ON", 2),
        // The book lies on the counter, which has no SURFACES: the counter is implied.
        (15, "ON", 5),
        // The towel is only in the room.
        (16, "INSIDE", 1),
        (17, "ON", 3),
    ]);
    let (graph, scene, report) = scene(&nodes, &list).expect("valid");
    assert_eq!(placed(&graph, &scene, 10), Some(NodeId(2)));
    assert_eq!(placed(&graph, &scene, 11), Some(NodeId(12)));
    assert_eq!(placed(&graph, &scene, 13), Some(NodeId(3)));
    assert_eq!(placed(&graph, &scene, 14), Some(NodeId(2)));
    assert_eq!(placed(&graph, &scene, 15), Some(NodeId(5)));
    assert_eq!(placed(&graph, &scene, 16), None);
    assert_eq!(
        placed(&graph, &scene, 17),
        None,
        "not GRABBABLE: not an object"
    );
    assert!(report.mentions(NoteKind::OnContainer, NodeId(14)));
    assert!(report.mentions(NoteKind::ImpliedSurface, NodeId(5)));
    assert!(report.mentions(NoteKind::Unlocated, NodeId(16)));
    assert!(report.mentions(NoteKind::GrabbablePlace, NodeId(11)));
    assert!(report.mentions(NoteKind::NotModelled, NodeId(17)));
}

#[test]
fn equal_places_go_to_the_lowest_id_and_say_so() {
    let mut nodes = kitchen();
    nodes.extend([
        node(20, "desk", "Furniture", &["SURFACES"], &[]),
        node(21, "cellphone", "Props", &["GRABBABLE"], &[]),
    ]);
    let mut list = IN_KITCHEN.to_vec();
    list.extend([(20, "INSIDE", 1), (21, "ON", 20), (21, "ON", 3)]);
    let (graph, scene, report) = scene(&nodes, &list).expect("valid");
    assert_eq!(placed(&graph, &scene, 21), Some(NodeId(3)));
    assert!(report.mentions(NoteKind::PlaceChosen, NodeId(21)));
}

#[test]
fn furniture_rooms_come_from_edges_parents_or_boxes() {
    let nodes = [
        node(1, "kitchen", "Rooms", &[], &[]),
        r#"{"id": 2, "class_name": "bedroom", "category": "Rooms",
            "bounding_box": {"center": [10, 1, 0], "size": [5, 2, 5]}}"#
            .to_string(),
        node(3, "kitchen_table", "Furniture", &["SURFACES"], &[]),
        node(4, "rug", "Decor", &["SURFACES"], &[]),
        r#"{"id": 5, "class_name": "bed", "category": "Furniture", "properties": ["SURFACES"],
            "bounding_box": {"center": [11, 0.5, 1], "size": [2, 1, 2]}}"#
            .to_string(),
        node(6, "desk", "Furniture", &["SURFACES"], &[]),
        node(
            7,
            "garbage_can",
            "Furniture",
            &["CAN_OPEN", "CONTAINERS"],
            &[],
        ),
    ];
    let list = [(3, "INSIDE", 1), (4, "ON", 3), (7, "INSIDE", 2)];
    let (graph, scene, report) = scene(&nodes, &list).expect("valid");
    let room = |id: u64| {
        scene
            .furniture
            .iter()
            .find(|f| graph.nodes[f.node].id == NodeId(id))
            .map(|f| graph.nodes[f.room].id)
    };
    assert_eq!(room(4), Some(NodeId(1)), "the rug is on the kitchen table");
    assert_eq!(
        room(5),
        Some(NodeId(2)),
        "the bed's centre is in the bedroom's box"
    );
    assert_eq!(room(6), None, "the desk is nowhere");
    assert!(report.mentions(NoteKind::RoomChosen, NodeId(4)));
    assert!(report.mentions(NoteKind::RoomChosen, NodeId(5)));
    assert!(report.mentions(NoteKind::NoRoom, NodeId(6)));
    assert!(report.mentions(NoteKind::AssumedClosed, NodeId(7)));
    // No character: the first room.
    assert!(report.mentions(NoteKind::Start, NodeId(1)));
}

#[test]
fn inside_cycles_of_imported_nodes_are_errors() {
    let mut nodes = kitchen();
    nodes.push(node(
        9,
        "cabinet",
        "Furniture",
        &["CAN_OPEN", "CONTAINERS"],
        &["CLOSED"],
    ));
    let mut list = IN_KITCHEN.to_vec();
    list.extend([(9, "INSIDE", 1), (9, "INSIDE", 2), (2, "INSIDE", 9)]);
    match scene(&nodes, &list) {
        Err(VirtualHomeError::InsideCycle { cycle }) => {
            assert_eq!(cycle.len(), 2);
            assert!(cycle.contains(&NodeId(2)) && cycle.contains(&NodeId(9)));
        }
        other => panic!("expected a cycle error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn cycles_among_left_out_nodes_are_ignored() {
    let mut nodes = kitchen();
    nodes.push(node(30, "curtains", "Decor", &["CAN_OPEN"], &[]));
    nodes.push(node(31, "curtains", "Decor", &["CAN_OPEN"], &[]));
    let mut list = IN_KITCHEN.to_vec();
    list.extend([(30, "INSIDE", 31), (31, "INSIDE", 30)]);
    let (_, _, report) = scene(&nodes, &list).expect("curtains are left out");
    assert!(report.mentions(NoteKind::OpenableNotContainer, NodeId(30)));
}

#[test]
fn a_graph_without_rooms_is_an_error() {
    let nodes = [node(
        1,
        "fridge",
        "Appliances",
        &["CAN_OPEN", "CONTAINERS"],
        &[],
    )];
    assert!(matches!(scene(&nodes, &[]), Err(VirtualHomeError::NoRooms)));
}
