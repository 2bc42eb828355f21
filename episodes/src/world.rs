//! The static world: rooms, furniture, objects and where they start.

use crate::ids::{ClassId, FurnitureId, ObjectId, RoomId};
use crate::layout::{Layout, Place};

/// Whether a piece of furniture hides its contents until opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FurnitureKind {
    /// Must be opened to see or take what is inside (fridge, cabinet, microwave).
    Container,
    /// Its contents are visible to anyone in the room (table, desk, sofa).
    Surface,
}

/// A room.
#[derive(Debug, Clone, PartialEq)]
pub struct Room {
    /// The id used in episode files ("kitchen").
    pub name: String,
}

/// A container or surface, fixed in one room.
#[derive(Debug, Clone, PartialEq)]
pub struct Furniture {
    /// The id used in episode files ("kitchen_cabinet_3").
    pub name: String,
    /// Its kind of thing ("kitchen_cabinet"), shared by look-alike pieces.
    pub class: String,
    /// The room it stands in.
    pub room: RoomId,
    /// Container or surface.
    pub kind: FurnitureKind,
    /// Whether a container starts open (surfaces are always "open").
    pub open_at_start: bool,
}

/// An object instance and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// The id used in episode files ("apple_2").
    pub name: String,
    /// Its class; goals and beliefs are about classes.
    pub class: ClassId,
    /// The container or surface it starts in or on.
    pub start: FurnitureId,
}

/// Everything that does not change during an episode, plus the starting placement.
#[derive(Debug, Clone)]
pub struct World {
    /// Rooms, indexed by [`RoomId`].
    pub rooms: Vec<Room>,
    /// Furniture, indexed by [`FurnitureId`].
    pub furniture: Vec<Furniture>,
    /// Objects, indexed by [`ObjectId`].
    pub objects: Vec<Object>,
    /// Object class names, indexed by [`ClassId`], in order of first appearance.
    pub classes: Vec<String>,
    /// Walking graph and distances.
    pub layout: Layout,
}

impl World {
    /// The room called `name`.
    pub fn room_by_name(&self, name: &str) -> Option<RoomId> {
        self.rooms
            .iter()
            .position(|r| r.name == name)
            .map(RoomId::new)
    }

    /// The furniture called `name`.
    pub fn furniture_by_name(&self, name: &str) -> Option<FurnitureId> {
        self.furniture
            .iter()
            .position(|f| f.name == name)
            .map(FurnitureId::new)
    }

    /// The object called `name`.
    pub fn object_by_name(&self, name: &str) -> Option<ObjectId> {
        self.objects
            .iter()
            .position(|o| o.name == name)
            .map(ObjectId::new)
    }

    /// The object class called `name`.
    pub fn class_by_name(&self, name: &str) -> Option<ClassId> {
        self.classes
            .iter()
            .position(|c| c == name)
            .map(ClassId::new)
    }

    /// The place called `name`: a room or a piece of furniture.
    pub fn place_by_name(&self, name: &str) -> Option<Place> {
        self.room_by_name(name)
            .map(Place::Room)
            .or_else(|| self.furniture_by_name(name).map(Place::Furniture))
    }

    /// One furniture record.
    pub fn furniture(&self, id: FurnitureId) -> &Furniture {
        &self.furniture[id.index()]
    }

    /// One object record.
    pub fn object(&self, id: ObjectId) -> &Object {
        &self.objects[id.index()]
    }

    /// The class name of `class`.
    pub fn class_name(&self, class: ClassId) -> &str {
        &self.classes[class.index()]
    }

    /// The name of a place, as written in episode files.
    pub fn place_name(&self, place: Place) -> &str {
        match place {
            Place::Room(r) => &self.rooms[r.index()].name,
            Place::Furniture(f) => &self.furniture[f.index()].name,
        }
    }

    /// The room a place is in (a room is in itself).
    pub fn room_of(&self, place: Place) -> RoomId {
        match place {
            Place::Room(r) => r,
            Place::Furniture(f) => self.furniture[f.index()].room,
        }
    }

    /// All furniture ids, in order.
    pub fn furniture_ids(&self) -> impl Iterator<Item = FurnitureId> + '_ {
        (0..self.furniture.len()).map(FurnitureId::new)
    }

    /// All class ids, in order.
    pub fn class_ids(&self) -> impl Iterator<Item = ClassId> + '_ {
        (0..self.classes.len()).map(ClassId::new)
    }
}
