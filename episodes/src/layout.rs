//! Where things are relative to each other: the room graph and travel distances.

use ndarray::Array2;
use petgraph::algo::dijkstra;
use petgraph::graph::{NodeIndex, UnGraph};

use crate::ids::{FurnitureId, RoomId};

/// A position the agent can walk to: the middle of a room or the front of a piece of furniture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// Standing in a room, near nothing in particular.
    Room(RoomId),
    /// Standing at a container or surface.
    Furniture(FurnitureId),
}

/// Default cost of stepping from the middle of a room to a piece of furniture in it, and
/// between two pieces of furniture of one room. A door between rooms costs its distance
/// (1 unless the episode says otherwise).
pub const APPROACH_DISTANCE: f64 = 1.0;

/// The walking graph (rooms joined by doors, furniture joined to its room) and the
/// all-pairs shortest distances over it.
///
/// Nodes `0..rooms` are rooms and `rooms..rooms + furniture` are furniture, so a [`Place`]
/// maps to a node without a lookup table, and the distances are one square table indexed
/// `[from node, to node]`.
#[derive(Debug, Clone)]
pub struct Layout {
    graph: UnGraph<Place, f64>,
    rooms: usize,
    /// `distances[[a, b]]`: the shortest walk from node `a` to node `b` (∞ if none).
    distances: Array2<f64>,
}

impl Layout {
    /// Builds the graph and its distance table.
    ///
    /// `furniture_rooms[i]` is the room of furniture `i`; `doors` are `(room, room, distance)`.
    /// Returns the first room that cannot be reached from room 0, if any.
    ///
    /// # Complexity
    /// One Dijkstra run per node: O(n (n + e) log n) for n places, done once per world.
    pub fn new(
        rooms: usize,
        furniture_rooms: &[RoomId],
        doors: &[(RoomId, RoomId, f64)],
    ) -> Result<Self, RoomId> {
        let mut graph = UnGraph::with_capacity(rooms + furniture_rooms.len(), 0);
        for r in 0..rooms {
            graph.add_node(Place::Room(RoomId::new(r)));
        }
        for f in 0..furniture_rooms.len() {
            graph.add_node(Place::Furniture(FurnitureId::new(f)));
        }
        for &(a, b, d) in doors {
            graph.add_edge(NodeIndex::new(a.index()), NodeIndex::new(b.index()), d);
        }
        for (f, room) in furniture_rooms.iter().enumerate() {
            let node = NodeIndex::new(rooms + f);
            graph.add_edge(NodeIndex::new(room.index()), node, APPROACH_DISTANCE);
            for (g, other) in furniture_rooms.iter().enumerate().skip(f + 1) {
                if other == room {
                    graph.add_edge(node, NodeIndex::new(rooms + g), APPROACH_DISTANCE);
                }
            }
        }
        let n = graph.node_count();
        let mut distances = Array2::from_elem((n, n), f64::INFINITY);
        for (source, mut row) in distances.rows_mut().into_iter().enumerate() {
            let reached = dijkstra(&graph, NodeIndex::new(source), None, |e| *e.weight());
            for (node, d) in reached {
                row[node.index()] = d;
            }
        }
        if let Some(r) = (0..rooms).find(|&r| distances[[0, r]].is_infinite()) {
            return Err(RoomId::new(r));
        }
        Ok(Self {
            graph,
            rooms,
            distances,
        })
    }

    #[inline]
    fn node(&self, place: Place) -> usize {
        match place {
            Place::Room(r) => r.index(),
            Place::Furniture(f) => self.rooms + f.index(),
        }
    }

    /// Shortest walking distance between two places.
    ///
    /// # Panics
    /// If either place is not one of this layout's rooms or furniture.
    #[inline]
    pub fn distance(&self, from: Place, to: Place) -> f64 {
        self.distances[[self.node(from), self.node(to)]]
    }

    /// The walking graph itself, for analysis and export.
    pub fn graph(&self) -> &UnGraph<Place, f64> {
        &self.graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_follow_doors_and_approach() {
        // kitchen - living room - bedroom; fridge and table in the kitchen, desk in the bedroom.
        let rooms = [RoomId::new(0), RoomId::new(0), RoomId::new(2)];
        let doors = [
            (RoomId::new(0), RoomId::new(1), 2.0),
            (RoomId::new(1), RoomId::new(2), 3.0),
        ];
        let layout = Layout::new(3, &rooms, &doors).expect("connected");
        let fridge = Place::Furniture(FurnitureId::new(0));
        let table = Place::Furniture(FurnitureId::new(1));
        let desk = Place::Furniture(FurnitureId::new(2));
        assert_eq!(
            layout.distance(Place::Room(RoomId::new(0)), Place::Room(RoomId::new(2))),
            5.0
        );
        assert_eq!(layout.distance(fridge, table), 1.0);
        assert_eq!(layout.distance(fridge, desk), 7.0);
        assert_eq!(layout.distance(desk, Place::Room(RoomId::new(1))), 4.0);
    }

    #[test]
    fn unreachable_room_is_reported() {
        let doors = [(RoomId::new(0), RoomId::new(1), 1.0)];
        assert_eq!(Layout::new(3, &[], &doors).unwrap_err(), RoomId::new(2));
    }
}
