//! Which rooms open onto which, and how far apart their middles are.
//!
//! VirtualHome graphs have no walking distances, and their doors are incomplete (scene 1
//! has a door node BETWEEN the bedroom and the kitchen but none for the open doorway from
//! the kitchen into the living room). So two rooms are joined when either
//!
//! - some node (a door) has BETWEEN edges to both, or
//! - their bounding boxes, seen from above (x and z; y is up), meet: along one axis they
//!   overlap or leave a gap of at most [`TOUCH_TOLERANCE`] metres, and along the other
//!   they overlap by at least [`MIN_SHARED_WALL`] metres — a wall long enough for a
//!   doorway, so rooms that only meet at a corner are not joined.
//!
//! A door's distance is the distance between the two rooms' box centres in metres divided
//! by [`METRES_PER_UNIT`] (2.5 m), rounded to hundredths: scene 1's doors come out between
//! 2.25 and 3.0. bip's layout charges 1 for stepping from a room's middle to a piece of
//! furniture and between two pieces of one room; episodes have no per-furniture
//! distances, so those are kept at 1 whatever the furniture's boxes say. Without boxes on
//! both rooms (boxes of zero floor area, as in exported graphs, count as none) a door costs
//! 1, the episode format's default.
//!
//! When the rooms so joined fall apart into groups, the nearest two rooms of different
//! groups are joined until one group is left; with no boxes and no doors at all, every room
//! opens onto every other at distance 1. Both are reported.

use super::graph::{BoundingBox, Graph, Relation};
use super::report::{NoteKind, Notes};
use super::scene::describe;

/// Metres of centre-to-centre distance per unit of walking distance.
pub const METRES_PER_UNIT: f64 = 2.5;

/// The widest gap, in metres, between two room boxes that still counts as a shared wall.
pub const TOUCH_TOLERANCE: f64 = 0.5;

/// The shortest overlap, in metres, along a shared wall for the rooms to be joined.
pub const MIN_SHARED_WALL: f64 = 1.0;

/// Why two rooms were joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// A node (this one) BETWEEN both.
    Door(usize),
    /// Their boxes meet.
    Boxes,
    /// Nothing joined their groups; they are the nearest pair.
    Nearest,
    /// No evidence at all: everything is joined.
    Everything,
}

/// Doors between `rooms` (positions in that slice) with their distances; reported.
pub(crate) fn join_rooms(
    graph: &Graph,
    rooms: &[usize],
    notes: &mut Notes,
) -> Vec<(usize, usize, f64)> {
    let boxes: Vec<Option<BoundingBox>> =
        rooms.iter().map(|&r| graph.nodes[r].place_box()).collect();
    let distance = |a: usize, b: usize| match (boxes[a], boxes[b]) {
        (Some(x), Some(y)) => centre_distance(&x, &y),
        _ => 1.0,
    };
    let mut joins = evident_joins(graph, rooms, &boxes);
    // Join the nearest rooms of different groups until one group is left.
    loop {
        let group = groups(rooms.len(), &joins);
        let mut nearest: Option<(f64, usize, usize)> = None;
        for a in 0..rooms.len() {
            for b in a + 1..rooms.len() {
                if group[a] != group[b] {
                    let d = distance(a, b);
                    if nearest.is_none_or(|(best, _, _)| d < best) {
                        nearest = Some((d, a, b));
                    }
                }
            }
        }
        match nearest {
            Some((_, a, b)) => joins.push((a, b, Join::Nearest)),
            None => break,
        }
    }
    joins.sort_by_key(|&(a, b, _)| (a, b));
    let doors: Vec<(usize, usize, f64)> = joins
        .iter()
        .map(|&(a, b, _)| (a, b, distance(a, b)))
        .collect();
    note_doors(graph, rooms, &boxes, &joins, &doors, notes);
    doors
}

/// The joins the graph gives evidence for: doors BETWEEN two rooms, boxes that meet, or,
/// with neither boxes nor doors, every pair.
fn evident_joins(
    graph: &Graph,
    rooms: &[usize],
    boxes: &[Option<BoundingBox>],
) -> Vec<(usize, usize, Join)> {
    let mut joins: Vec<(usize, usize, Join)> = Vec::new();
    let add = |joins: &mut Vec<(usize, usize, Join)>, a: usize, b: usize, why: Join| {
        let (a, b) = (a.min(b), a.max(b));
        if a != b && !joins.iter().any(|&(x, y, _)| (x, y) == (a, b)) {
            joins.push((a, b, why));
        }
    };
    for n in 0..graph.nodes.len() {
        let between: Vec<usize> = graph
            .targets(n, Relation::Between)
            .into_iter()
            .filter_map(|t| rooms.iter().position(|&r| r == t))
            .collect();
        for (i, &a) in between.iter().enumerate() {
            for &b in &between[i + 1..] {
                add(&mut joins, a, b, Join::Door(n));
            }
        }
    }
    for a in 0..rooms.len() {
        for b in a + 1..rooms.len() {
            if let (Some(x), Some(y)) = (boxes[a], boxes[b]) {
                if boxes_meet(&x, &y) {
                    add(&mut joins, a, b, Join::Boxes);
                }
            }
        }
    }
    if joins.is_empty() && boxes.iter().all(Option::is_none) {
        for a in 0..rooms.len() {
            for b in a + 1..rooms.len() {
                joins.push((a, b, Join::Everything));
            }
        }
    }
    joins
}

/// Reports the doors: each with its distance and why it is there.
fn note_doors(
    graph: &Graph,
    rooms: &[usize],
    boxes: &[Option<BoundingBox>],
    joins: &[(usize, usize, Join)],
    doors: &[(usize, usize, f64)],
    notes: &mut Notes,
) {
    let parts: Vec<String> = joins
        .iter()
        .zip(doors)
        .map(|(&(a, b, why), &(_, _, d))| {
            let why = match why {
                Join::Door(n) => format!("{} BETWEEN them", describe(graph, n)),
                Join::Boxes => "boxes meet".to_string(),
                Join::Nearest => "nearest rooms of groups nothing else joins".to_string(),
                Join::Everything => "no room boxes and no doors: every room joined".to_string(),
            };
            format!(
                "{} – {}: {d} ({why})",
                describe(graph, rooms[a]),
                describe(graph, rooms[b])
            )
        })
        .collect();
    let rule = if boxes.iter().all(Option::is_some) {
        format!("distances are box-centre distances / {METRES_PER_UNIT} m")
    } else {
        "rooms without a bounding box are 1 from their neighbours".to_string()
    };
    notes.note(
        NoteKind::Doors,
        rooms.iter().map(|&r| graph.nodes[r].id).collect(),
        format!(
            "doors ({rule}): {}",
            if parts.is_empty() {
                "none (one room)".to_string()
            } else {
                parts.join("; ")
            }
        ),
    );
}

/// Whether two room boxes share a stretch of wall (see the module docs).
fn boxes_meet(a: &BoundingBox, b: &BoundingBox) -> bool {
    let overlap = |axis: usize| {
        let (a0, a1) = a.interval(axis);
        let (b0, b1) = b.interval(axis);
        a1.min(b1) - a0.max(b0)
    };
    let (x, z) = (overlap(0), overlap(2));
    (x >= -TOUCH_TOLERANCE && z >= MIN_SHARED_WALL)
        || (z >= -TOUCH_TOLERANCE && x >= MIN_SHARED_WALL)
}

/// Centre-to-centre distance in walking units, rounded to hundredths (at least 0.01).
fn centre_distance(a: &BoundingBox, b: &BoundingBox) -> f64 {
    let metres: f64 = (0..3)
        .map(|i| (a.center[i] - b.center[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    ((metres / METRES_PER_UNIT * 100.0).round() / 100.0).max(0.01)
}

/// A group label per room: rooms joined directly or through others share one.
fn groups(rooms: usize, joins: &[(usize, usize, Join)]) -> Vec<usize> {
    let mut group: Vec<usize> = (0..rooms).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &(a, b, _) in joins {
            let low = group[a].min(group[b]);
            if group[a] != low || group[b] != low {
                group[a] = low;
                group[b] = low;
                changed = true;
            }
        }
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::virtualhome::graph::{read_graph, Graph};

    fn room(id: u64, name: &str, centre: [f64; 2], size: [f64; 2]) -> String {
        format!(
            r#"{{"id": {id}, "class_name": "{name}", "category": "Rooms",
                "bounding_box": {{"center": [{}, 1.25, {}], "size": [{}, 2.5, {}]}}}}"#,
            centre[0], centre[1], size[0], size[1]
        )
    }

    fn doors(nodes: &[String], edges: &str) -> Vec<(usize, usize, f64)> {
        let text = format!(r#"{{"nodes": [{}], "edges": [{edges}]}}"#, nodes.join(","));
        let graph = Graph::new(&read_graph(&text).expect("json")).expect("graph");
        let rooms: Vec<usize> = (0..graph.nodes.len())
            .filter(|&n| graph.nodes[n].category == "Rooms")
            .collect();
        join_rooms(&graph, &rooms, &mut Notes::default())
    }

    #[test]
    fn touching_boxes_are_joined_at_centre_distance() {
        // a | b side by side (5 m apart), c far away below b: joined to its nearest.
        let d = doors(
            &[
                room(1, "a", [0.0, 0.0], [5.0, 5.0]),
                room(2, "b", [5.2, 0.0], [5.0, 5.0]),
                room(3, "c", [5.0, -20.0], [5.0, 5.0]),
            ],
            "",
        );
        assert_eq!(d.len(), 2);
        assert_eq!(d[0], (0, 1, 2.08));
        assert_eq!(d[1], (1, 2, 8.0), "the nearest pair joins the lone room");
    }

    #[test]
    fn corners_do_not_join_but_doors_do() {
        let nodes = [
            room(1, "a", [0.0, 0.0], [4.0, 4.0]),
            room(2, "b", [4.0, 4.0], [4.0, 4.0]),
            r#"{"id": 9, "class_name": "door", "category": "Doors"}"#.to_string(),
        ];
        let corner_only = doors(&nodes, "");
        assert_eq!(corner_only.len(), 1, "joined only as the nearest pair");
        let with_door = doors(
            &nodes,
            r#"{"from_id": 9, "relation_type": "BETWEEN", "to_id": 1},
               {"from_id": 9, "relation_type": "BETWEEN", "to_id": 2}"#,
        );
        assert_eq!(with_door, vec![(0, 1, 2.26)]);
    }

    #[test]
    fn no_geometry_means_every_room_at_one() {
        let nodes: Vec<String> = (1..=3)
            .map(|i| format!(r#"{{"id": {i}, "class_name": "r{i}", "category": "Rooms"}}"#))
            .collect();
        assert_eq!(
            doors(&nodes, ""),
            vec![(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0)]
        );
    }
}
