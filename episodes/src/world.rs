//! The static world: rooms, furniture, objects and where they start.

use crate::ids::{ClassId, FurnitureClassId, FurnitureId, ObjectId, RoomId};
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
    /// Its kind of thing ("kitchen_cabinet"), shared by look-alike pieces; its name is
    /// [`World::furniture_class_name`].
    pub class: FurnitureClassId,
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
    /// Furniture class names, indexed by [`FurnitureClassId`], in order of first appearance.
    pub furniture_classes: Vec<String>,
    /// Walking graph and distances.
    pub layout: Layout,
}

impl World {
    /// The room called `name`.
    pub fn room_by_name(&self, name: &str) -> Option<RoomId> {
        position(&self.rooms, |r| &r.name, name).map(RoomId::new)
    }

    /// The furniture called `name`.
    pub fn furniture_by_name(&self, name: &str) -> Option<FurnitureId> {
        position(&self.furniture, |f| &f.name, name).map(FurnitureId::new)
    }

    /// The object called `name`.
    pub fn object_by_name(&self, name: &str) -> Option<ObjectId> {
        position(&self.objects, |o| &o.name, name).map(ObjectId::new)
    }

    /// The object class called `name`.
    pub fn class_by_name(&self, name: &str) -> Option<ClassId> {
        position(&self.classes, String::as_str, name).map(ClassId::new)
    }

    /// The furniture class called `name`.
    pub fn furniture_class_by_name(&self, name: &str) -> Option<FurnitureClassId> {
        position(&self.furniture_classes, String::as_str, name).map(FurnitureClassId::new)
    }

    /// The place called `name`: a room or a piece of furniture.
    pub fn place_by_name(&self, name: &str) -> Option<Place> {
        self.room_by_name(name)
            .map(Place::Room)
            .or_else(|| self.furniture_by_name(name).map(Place::Furniture))
    }

    /// One room record.
    ///
    /// # Panics
    /// If `id` is not a room of this world (an id taken from a larger world).
    pub fn room(&self, id: RoomId) -> &Room {
        &self.rooms[id.index()]
    }

    /// One furniture record.
    ///
    /// # Panics
    /// If `id` is not furniture of this world (an id taken from a larger world).
    pub fn furniture(&self, id: FurnitureId) -> &Furniture {
        &self.furniture[id.index()]
    }

    /// One object record.
    ///
    /// # Panics
    /// If `id` is not an object of this world (an id taken from a larger world).
    pub fn object(&self, id: ObjectId) -> &Object {
        &self.objects[id.index()]
    }

    /// The class name of `class`.
    ///
    /// # Panics
    /// If `class` is not an object class of this world.
    pub fn class_name(&self, class: ClassId) -> &str {
        &self.classes[class.index()]
    }

    /// The name of furniture class `class`.
    ///
    /// # Panics
    /// If `class` is not a furniture class of this world.
    pub fn furniture_class_name(&self, class: FurnitureClassId) -> &str {
        &self.furniture_classes[class.index()]
    }

    /// The name of a place, as written in episode files.
    ///
    /// # Panics
    /// If `place` is not a room or furniture of this world.
    pub fn place_name(&self, place: Place) -> &str {
        match place {
            Place::Room(r) => &self.room(r).name,
            Place::Furniture(f) => &self.furniture(f).name,
        }
    }

    /// The room a place is in (a room is in itself).
    ///
    /// # Panics
    /// If `place` is furniture this world does not have.
    pub fn room_of(&self, place: Place) -> RoomId {
        match place {
            Place::Room(r) => r,
            Place::Furniture(f) => self.furniture(f).room,
        }
    }

    /// All room ids, in order.
    pub fn room_ids(&self) -> impl Iterator<Item = RoomId> + '_ {
        (0..self.rooms.len()).map(RoomId::new)
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

/// The position of the item of `items` whose name is `name`.
fn position<T>(items: &[T], name_of: impl Fn(&T) -> &str, name: &str) -> Option<usize> {
    items.iter().position(|item| name_of(item) == name)
}
