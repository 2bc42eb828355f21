//! Typed indices into a [`World`](crate::World).
//!
//! Names from episode files are resolved to these once, at load time, so that the rest
//! of bip never compares strings. An id is a position in one world's list; its number is
//! private, so ids come from the world ([`World::furniture_by_name`](crate::World::furniture_by_name),
//! [`World::furniture_ids`](crate::World::furniture_ids), ...) or from [`new`](RoomId::new)
//! with a position the caller knows to be in range.

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            /// Wraps a position in the world's list.
            ///
            /// # Panics
            /// If `index` does not fit in a `u32` (worlds are far smaller).
            #[inline]
            pub fn new(index: usize) -> Self {
                Self(u32::try_from(index).expect("world lists are smaller than u32::MAX"))
            }

            /// The position in the world's list.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

index_type!(
    /// A room of the world.
    RoomId
);
index_type!(
    /// A piece of furniture: a container or a surface.
    FurnitureId
);
index_type!(
    /// One object instance (e.g. the second of two apples).
    ObjectId
);
index_type!(
    /// An object class ("apple"): goals and beliefs are about classes.
    ClassId
);
index_type!(
    /// A furniture class ("kitchen_cabinet"), shared by look-alike pieces.
    FurnitureClassId
);
index_type!(
    /// One agent of a multi-agent episode ([`Story`](crate::Story)).
    AgentId
);
