//! What the agent does.

use crate::ids::{FurnitureId, ObjectId};
use crate::layout::Place;
use crate::world::World;

/// One step of the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Walk to a room (its middle) or to a piece of furniture, in any room.
    WalkTo(Place),
    /// Open the container the agent stands at.
    Open(FurnitureId),
    /// Close the container the agent stands at.
    Close(FurnitureId),
    /// Take an object from the place the agent stands at.
    Grab(ObjectId),
    /// Put a held object into or onto the place the agent stands at.
    Put {
        /// The held object.
        object: ObjectId,
        /// Where it goes.
        onto: FurnitureId,
    },
}

impl Action {
    /// Where a walk goes; `None` for any other action.
    pub fn destination(self) -> Option<Place> {
        match self {
            Action::WalkTo(to) => Some(to),
            _ => None,
        }
    }

    /// A short human-readable form, e.g. `walk_to fridge`, `put apple_1 kitchen_table`.
    pub fn describe(&self, world: &World) -> String {
        match *self {
            Action::WalkTo(p) => format!("walk_to {}", world.place_name(p)),
            Action::Open(f) => format!("open {}", world.furniture(f).name),
            Action::Close(f) => format!("close {}", world.furniture(f).name),
            Action::Grab(o) => format!("grab {}", world.object(o).name),
            Action::Put { object, onto } => format!(
                "put {} {}",
                world.object(object).name,
                world.furniture(onto).name
            ),
        }
    }
}
