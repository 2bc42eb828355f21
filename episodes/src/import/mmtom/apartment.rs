//! The apartment a scene description builds: rooms, numbered pieces of furniture and
//! objects, and the rule that turns them into `bip-episode/1` ids.
//!
//! Id rule (furniture): the class (`fridge`, `coffee_table`); prefixed with the room
//! (`bedroom_coffee_table`, `living_room_coffee_table`) when the class has pieces in more
//! than one room; suffixed with the piece's number in its room (`kitchen_table_2`) when
//! the room has several, and always for kitchen cabinets (`kitchen_cabinet_1` ..
//! `kitchen_cabinet_8`, numbered from the left). Objects are `class_N`, numbered per class
//! in the order the scene mentions them (`apple_1`, `apple_2`). Every piece and object
//! carries its class explicitly.

use crate::json::{AlternativeFile, FurnitureFile, KindFile, ObjectFile, WorldFile};

use super::lexicon::{FurnitureDef, Kind, ObjectDef, RoomDef};

/// Classes whose pieces are always numbered, even when there is one.
const ALWAYS_NUMBERED: &[&str] = &["kitchen_cabinet"];

/// A piece of furniture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Its class.
    pub(crate) def: &'static FurnitureDef,
    /// Index of its room in [`Apartment::rooms`].
    pub(crate) room: usize,
    /// Its position (1-based) among the pieces of its class in its room, from the left.
    pub(crate) number: u32,
}

/// An object and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Thing {
    /// Its class.
    pub(crate) def: &'static ObjectDef,
    /// Index of the piece it is in or on.
    pub(crate) at: usize,
}

/// Rooms, furniture and objects, in the order the scene introduces them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Apartment {
    /// Rooms.
    pub(crate) rooms: Vec<&'static RoomDef>,
    /// Furniture.
    pub(crate) furniture: Vec<Piece>,
    /// Objects.
    pub(crate) objects: Vec<Thing>,
}

impl Apartment {
    /// The index of `room`, adding it if new.
    pub(crate) fn room(&mut self, room: &'static RoomDef) -> usize {
        match self.rooms.iter().position(|r| *r == room) {
            Some(i) => i,
            None => {
                self.rooms.push(room);
                self.rooms.len() - 1
            }
        }
    }

    /// Adds `count` pieces of `def` to `room`, numbered after those already there.
    pub(crate) fn add_furniture(
        &mut self,
        def: &'static FurnitureDef,
        room: usize,
        count: u32,
    ) -> Vec<usize> {
        let first = self.series_len(room, def.class) + 1;
        (first..first + count)
            .map(|number| {
                self.furniture.push(Piece { def, room, number });
                self.furniture.len() - 1
            })
            .collect()
    }

    /// Adds an object at a piece.
    pub(crate) fn add_object(&mut self, def: &'static ObjectDef, at: usize) {
        self.objects.push(Thing { def, at });
    }

    /// How many pieces of `class` stand in `room`.
    pub(crate) fn series_len(&self, room: usize, class: &str) -> u32 {
        let n = self
            .furniture
            .iter()
            .filter(|p| p.room == room && p.def.class == class)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Whether a piece belongs to a numbered row ("the third cabinet").
    pub(crate) fn is_numbered(&self, piece: usize) -> bool {
        let p = &self.furniture[piece];
        ALWAYS_NUMBERED.contains(&p.def.class) || self.series_len(p.room, p.def.class) > 1
    }

    /// The classes of the objects each piece holds, sorted: two apartments with the same
    /// placement are the same world to inference.
    pub(crate) fn placement(&self) -> Vec<Vec<&'static str>> {
        let mut out = vec![Vec::new(); self.furniture.len()];
        for o in &self.objects {
            out[o.at].push(o.def.class);
        }
        out.iter_mut().for_each(|v| v.sort_unstable());
        out
    }

    /// The id of every piece, by the rule in the module docs.
    pub(crate) fn furniture_ids(&self) -> Vec<String> {
        self.furniture
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let several_rooms = self
                    .furniture
                    .iter()
                    .any(|q| q.def.class == p.def.class && q.room != p.room);
                let mut id = if several_rooms {
                    format!("{}_{}", self.rooms[p.room].id, p.def.class)
                } else {
                    p.def.class.to_string()
                };
                if self.is_numbered(i) {
                    id = format!("{id}_{}", p.number);
                }
                id
            })
            .collect()
    }

    /// The ids of some pieces.
    pub(crate) fn ids_of(&self, pieces: &[usize]) -> Vec<String> {
        let ids = self.furniture_ids();
        pieces.iter().map(|&p| ids[p].clone()).collect()
    }

    /// The id of every object: `class_N`, numbered per class in scene order.
    pub(crate) fn object_ids(&self) -> Vec<String> {
        let mut seen: Vec<(&str, u32)> = Vec::new();
        self.objects
            .iter()
            .map(|o| {
                let n = match seen.iter_mut().find(|(c, _)| *c == o.def.class) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        seen.push((o.def.class, 1));
                        1
                    }
                };
                format!("{}_{n}", o.def.class)
            })
            .collect()
    }

    /// The `world` of an episode file (no doors: every room opens onto every other).
    pub(crate) fn to_world_file(&self) -> WorldFile {
        let furniture_ids = self.furniture_ids();
        WorldFile {
            rooms: self.rooms.iter().map(|r| r.id.to_string()).collect(),
            doors: None,
            furniture: self
                .furniture
                .iter()
                .zip(&furniture_ids)
                .map(|(p, id)| FurnitureFile {
                    id: id.clone(),
                    class: Some(p.def.class.to_string()),
                    room: self.rooms[p.room].id.to_string(),
                    kind: match p.def.kind {
                        Kind::Container => KindFile::Container,
                        Kind::Surface => KindFile::Surface,
                    },
                    open: false,
                })
                .collect(),
            objects: self
                .objects
                .iter()
                .zip(self.object_ids())
                .map(|(o, id)| ObjectFile {
                    id,
                    class: Some(o.def.class.to_string()),
                    at: furniture_ids[o.at].clone(),
                })
                .collect(),
            alternatives: Vec::new(),
        }
    }
}

/// The `world` of an episode file for the readings of one scene: the first as written,
/// the others as alternatives moving the objects they place elsewhere.
pub(crate) fn world_file(readings: &[&Apartment]) -> WorldFile {
    let Some(first) = readings.first() else {
        return Apartment::default().to_world_file();
    };
    let mut world = first.to_world_file();
    let furniture_ids = first.furniture_ids();
    let object_ids = first.object_ids();
    world.alternatives = readings[1..]
        .iter()
        .map(|reading| AlternativeFile {
            objects: reading
                .objects
                .iter()
                .zip(&first.objects)
                .zip(&object_ids)
                .filter(|((o, base), _)| o.at != base.at)
                .map(|((o, _), id)| (id.clone(), furniture_ids[o.at].clone()))
                .collect(),
        })
        .collect();
    world
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::mmtom::lexicon::{furniture_class, room, OBJECTS};

    fn def(class: &str) -> &'static FurnitureDef {
        furniture_class(class).expect("known class")
    }

    #[test]
    fn ids_follow_the_documented_rule() {
        let mut a = Apartment::default();
        let kitchen = a.room(room("kitchen").expect("kitchen"));
        let living = a.room(room("living_room").expect("living room"));
        let bedroom = a.room(room("bedroom").expect("bedroom"));
        a.add_furniture(def("kitchen_cabinet"), kitchen, 2);
        a.add_furniture(def("fridge"), kitchen, 1);
        a.add_furniture(def("kitchen_table"), kitchen, 2);
        a.add_furniture(def("coffee_table"), living, 1);
        a.add_furniture(def("coffee_table"), bedroom, 1);
        a.add_furniture(def("cabinet"), living, 1);
        assert_eq!(
            a.furniture_ids(),
            [
                "kitchen_cabinet_1",
                "kitchen_cabinet_2",
                "fridge",
                "kitchen_table_1",
                "kitchen_table_2",
                "living_room_coffee_table",
                "bedroom_coffee_table",
                "cabinet"
            ]
        );
        assert_eq!(
            a.room(room("kitchen").expect("kitchen")),
            kitchen,
            "rooms are not repeated"
        );
    }

    #[test]
    fn objects_are_numbered_per_class_with_explicit_classes() {
        let mut a = Apartment::default();
        let kitchen = a.room(room("kitchen").expect("kitchen"));
        let fridge = a.add_furniture(def("fridge"), kitchen, 1)[0];
        let apple = OBJECTS.iter().find(|o| o.class == "apple").expect("apple");
        let wine = OBJECTS.iter().find(|o| o.class == "wine").expect("wine");
        a.add_object(apple, fridge);
        a.add_object(wine, fridge);
        a.add_object(apple, fridge);
        assert_eq!(a.object_ids(), ["apple_1", "wine_1", "apple_2"]);
        let world = a.to_world_file();
        assert_eq!(world.objects[1].class.as_deref(), Some("wine"));
        assert_eq!(world.furniture[0].kind, KindFile::Container);
        assert!(world.doors.is_none());
    }
}
