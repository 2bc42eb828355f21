//! Where things are relative to each other: the room graph and travel distances.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ndarray::Array2;
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
/// shortest distances over it.
///
/// Nodes `0..rooms` are rooms and `rooms..rooms + furniture` are furniture, so a [`Place`]
/// maps to a node without a lookup table. Two pieces of furniture of one room are
/// [`APPROACH_DISTANCE`] apart (a rule, not an edge of the graph), and furniture leads
/// nowhere but to its room and the furniture beside it, so every shortest walk runs
/// between rooms through doors: the layout keeps two room × room tables (from a room's
/// middle, and from any piece of furniture in it) and derives every other distance from
/// them. Its size is O(rooms² + furniture + doors), however much furniture a room holds.
#[derive(Debug, Clone)]
pub struct Layout {
    graph: UnGraph<Place, f64>,
    /// The room of each piece of furniture.
    furniture_rooms: Vec<RoomId>,
    /// `from_room[[a, b]]`: the shortest walk from the middle of room `a` to the middle of
    /// room `b` (∞ if none).
    from_room: Array2<f64>,
    /// `from_furniture[[a, b]]`: the shortest walk from a piece of furniture of room `a`
    /// to the middle of room `b`, the first step to `a`'s middle included.
    from_furniture: Array2<f64>,
}

impl Layout {
    /// Builds the graph and its distance tables.
    ///
    /// `furniture_rooms[i]` is the room of furniture `i`; `doors` are `(room, room, distance)`.
    /// Returns the first room that cannot be reached from room 0, if any.
    ///
    /// # Complexity
    /// Two Dijkstra runs per room over the rooms and doors: O(r (r + d) log r) for r rooms
    /// and d doors, and O(r² + f) memory, done once per world.
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
        let mut neighbours = vec![Vec::new(); rooms];
        for &(a, b, d) in doors {
            graph.add_edge(NodeIndex::new(a.index()), NodeIndex::new(b.index()), d);
            neighbours[a.index()].push((b.index(), d));
            neighbours[b.index()].push((a.index(), d));
        }
        for (f, room) in furniture_rooms.iter().enumerate() {
            let node = NodeIndex::new(rooms + f);
            graph.add_edge(NodeIndex::new(room.index()), node, APPROACH_DISTANCE);
        }
        let mut from_room = Array2::from_elem((rooms, rooms), f64::INFINITY);
        let mut from_furniture = Array2::from_elem((rooms, rooms), f64::INFINITY);
        for source in 0..rooms {
            shortest_walks(&neighbours, source, 0.0, from_room.row_mut(source));
            let row = from_furniture.row_mut(source);
            shortest_walks(&neighbours, source, APPROACH_DISTANCE, row);
        }
        if let Some(r) = (0..rooms).find(|&r| from_room[[0, r]].is_infinite()) {
            return Err(RoomId::new(r));
        }
        Ok(Self {
            graph,
            furniture_rooms: furniture_rooms.to_vec(),
            from_room,
            from_furniture,
        })
    }

    /// Shortest walking distance between two places.
    ///
    /// # Panics
    /// If either place is not one of this layout's rooms or furniture.
    #[inline]
    pub fn distance(&self, from: Place, to: Place) -> f64 {
        match (from, to) {
            (Place::Room(a), Place::Room(b)) => self.from_room[[a.index(), b.index()]],
            (Place::Room(_), Place::Furniture(g)) => self.to_furniture_in(from, self.room_of(g)),
            (Place::Furniture(f), Place::Room(b)) => {
                let a = self.furniture_rooms[f.index()];
                self.from_furniture[[a.index(), b.index()]]
            }
            (Place::Furniture(f), Place::Furniture(g)) if f == g => 0.0,
            (Place::Furniture(_), Place::Furniture(g)) => {
                self.to_furniture_in(from, self.room_of(g))
            }
        }
    }

    /// The distance from `from` to any piece of furniture of `room` other than `from`
    /// itself: the same for every one of them, so that a sum or a minimum over furniture
    /// can be taken room by room.
    ///
    /// # Panics
    /// If `from` or `room` is not one of this layout's.
    #[inline]
    pub fn to_furniture_in(&self, from: Place, room: RoomId) -> f64 {
        let b = room.index();
        match from {
            Place::Room(a) => self.from_room[[a.index(), b]] + APPROACH_DISTANCE,
            Place::Furniture(f) => {
                let a = self.furniture_rooms[f.index()];
                if a == room {
                    APPROACH_DISTANCE
                } else {
                    self.from_furniture[[a.index(), b]] + APPROACH_DISTANCE
                }
            }
        }
    }

    /// The room piece `f` stands in.
    ///
    /// # Panics
    /// If `f` is not one of this layout's.
    #[inline]
    pub fn room_of(&self, f: FurnitureId) -> RoomId {
        self.furniture_rooms[f.index()]
    }

    /// The number of rooms.
    pub fn rooms(&self) -> usize {
        self.from_room.nrows()
    }

    /// The walking graph itself, for analysis and export: rooms joined by their doors,
    /// each piece of furniture joined to its room (walks between two pieces of one room
    /// are not edges; they cost [`APPROACH_DISTANCE`]).
    pub fn graph(&self) -> &UnGraph<Place, f64> {
        &self.graph
    }
}

/// Dijkstra over the rooms from `source`, starting at `start` (0 from the room's middle,
/// the approach from a piece of furniture in it), into `row` (∞ where unreachable).
/// Distances add up step by step along each walk, as a search over the whole graph
/// would add them.
fn shortest_walks(
    neighbours: &[Vec<(usize, f64)>],
    source: usize,
    start: f64,
    mut row: ndarray::ArrayViewMut1<'_, f64>,
) {
    let mut done = vec![false; neighbours.len()];
    let mut queue = BinaryHeap::new();
    row[source] = start;
    queue.push(Reverse(Walk(start, source)));
    while let Some(Reverse(Walk(d, room))) = queue.pop() {
        if std::mem::replace(&mut done[room], true) {
            continue;
        }
        for &(next, step) in &neighbours[room] {
            let through = d + step;
            if !done[next] && through < row[next] {
                row[next] = through;
                queue.push(Reverse(Walk(through, next)));
            }
        }
    }
}

/// A distance and a room, ordered by distance (then room) for the Dijkstra queue.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Walk(f64, usize);

impl Eq for Walk {}

impl PartialOrd for Walk {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Walk {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
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

    /// The distances of the whole walking graph (furniture of one room joined pairwise),
    /// by petgraph's Dijkstra from every node: what the room tables must reproduce exactly.
    fn whole_graph_distances(
        rooms: usize,
        furniture: &[RoomId],
        doors: &[(RoomId, RoomId, f64)],
    ) -> Vec<Vec<f64>> {
        use petgraph::algo::dijkstra;
        let mut graph = UnGraph::<(), f64>::new_undirected();
        let nodes: Vec<_> = (0..rooms + furniture.len())
            .map(|_| graph.add_node(()))
            .collect();
        for &(a, b, d) in doors {
            graph.add_edge(nodes[a.index()], nodes[b.index()], d);
        }
        for (f, room) in furniture.iter().enumerate() {
            graph.add_edge(nodes[room.index()], nodes[rooms + f], APPROACH_DISTANCE);
            for (g, other) in furniture.iter().enumerate().skip(f + 1) {
                if other == room {
                    graph.add_edge(nodes[rooms + f], nodes[rooms + g], APPROACH_DISTANCE);
                }
            }
        }
        nodes
            .iter()
            .map(|&n| {
                let reached = dijkstra(&graph, n, None, |e| *e.weight());
                nodes
                    .iter()
                    .map(|m| reached.get(m).copied().unwrap_or(f64::INFINITY))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn room_tables_give_the_whole_graph_distances_bit_for_bit() {
        let mut state = 7u64;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for _ in 0..40 {
            let rooms = 1 + next(6) as usize;
            let furniture: Vec<RoomId> = (0..next(9))
                .map(|_| RoomId::new(next(rooms as u64) as usize))
                .collect();
            let mut doors: Vec<(RoomId, RoomId, f64)> = (1..rooms)
                .map(|r| {
                    (
                        RoomId::new(next(r as u64) as usize),
                        RoomId::new(r),
                        0.1 + next(40) as f64 / 7.0,
                    )
                })
                .collect();
            for _ in 0..next(4) {
                let (a, b) = (next(rooms as u64) as usize, next(rooms as u64) as usize);
                doors.push((RoomId::new(a), RoomId::new(b), 0.3 + next(30) as f64 / 3.0));
            }
            let layout = Layout::new(rooms, &furniture, &doors).expect("connected");
            let whole = whole_graph_distances(rooms, &furniture, &doors);
            let places: Vec<Place> = (0..rooms)
                .map(|r| Place::Room(RoomId::new(r)))
                .chain((0..furniture.len()).map(|f| Place::Furniture(FurnitureId::new(f))))
                .collect();
            for (i, &a) in places.iter().enumerate() {
                for (j, &b) in places.iter().enumerate() {
                    assert_eq!(
                        layout.distance(a, b).to_bits(),
                        whole[i][j].to_bits(),
                        "{a:?} → {b:?}"
                    );
                }
            }
        }
    }
}
