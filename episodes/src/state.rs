//! The changing state of an episode and what the agent observes of it.

use crate::action::Action;
use crate::ids::{FurnitureId, ObjectId, RoomId};
use crate::layout::Place;
use crate::world::{FurnitureKind, World};

/// Where every object is and what the agent is doing, at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    /// The room the agent is in.
    pub room: RoomId,
    /// The furniture the agent stands at, if any.
    pub at: Option<FurnitureId>,
    /// Whether each piece of furniture is open (surfaces always are).
    pub open: Vec<bool>,
    /// Where each object is: `None` while the agent holds it.
    pub object_at: Vec<Option<FurnitureId>>,
}

/// What the agent sees at one moment: the places whose whole contents are in view
/// (surfaces of its room and open containers of its room) and the objects in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The room the agent is in.
    pub room: RoomId,
    /// Places whose contents the agent can see completely, in id order.
    pub visible: Vec<FurnitureId>,
    /// Objects the agent sees, with where they are; all lie in `visible` places.
    pub seen: Vec<(ObjectId, FurnitureId)>,
}

/// Why an action cannot happen in a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Impossible {
    /// The agent is already there.
    AlreadyThere,
    /// Open/close/grab/put needs the agent to stand at this furniture first.
    NotAt(FurnitureId),
    /// Surfaces cannot be opened or closed.
    NotAContainer(FurnitureId),
    /// Opening an open container.
    AlreadyOpen(FurnitureId),
    /// Closing a closed container.
    AlreadyClosed(FurnitureId),
    /// Grabbing an object that is not at the agent's furniture.
    NotHere(ObjectId),
    /// Grabbing an object inside a closed container.
    InsideClosed(ObjectId, FurnitureId),
    /// Putting an object the agent does not hold.
    NotHeld(ObjectId),
    /// Putting into a closed container.
    Closed(FurnitureId),
}

impl Impossible {
    /// A sentence naming the cause, with the world's names.
    pub fn describe(&self, world: &World) -> String {
        let f = |id: &FurnitureId| world.furniture(*id).name.clone();
        let o = |id: &ObjectId| world.object(*id).name.clone();
        match self {
            Impossible::AlreadyThere => "the agent is already there".into(),
            Impossible::NotAt(id) => format!("the agent is not at {} (walk_to it first)", f(id)),
            Impossible::NotAContainer(id) => format!("{} is a surface, not a container", f(id)),
            Impossible::AlreadyOpen(id) => format!("{} is already open", f(id)),
            Impossible::AlreadyClosed(id) => format!("{} is already closed", f(id)),
            Impossible::NotHere(id) => format!("{} is not where the agent is", o(id)),
            Impossible::InsideClosed(id, c) => {
                format!("{} is inside {}, which is closed", o(id), f(c))
            }
            Impossible::NotHeld(id) => format!("the agent does not hold {}", o(id)),
            Impossible::Closed(id) => format!("{} is closed", f(id)),
        }
    }
}

impl State {
    /// The state at the start of an episode: the agent in `start`, everything in place.
    pub fn initial(world: &World, start: RoomId) -> Self {
        Self {
            room: start,
            at: None,
            open: world
                .furniture
                .iter()
                .map(|f| f.kind == FurnitureKind::Surface || f.open_at_start)
                .collect(),
            object_at: world.objects.iter().map(|o| Some(o.start)).collect(),
        }
    }

    /// Where the agent stands.
    pub fn place(&self) -> Place {
        self.at.map_or(Place::Room(self.room), Place::Furniture)
    }

    /// Whether the agent holds `object`.
    ///
    /// # Panics
    /// If `object` is not an object of the world the state is of.
    pub fn holds(&self, object: ObjectId) -> bool {
        self.object_at[object.index()].is_none()
    }

    /// Objects the agent holds, in id order.
    pub fn held(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.object_at
            .iter()
            .enumerate()
            .filter(|(_, at)| at.is_none())
            .map(|(i, _)| ObjectId::new(i))
    }

    /// Checks that `action` can happen now, without changing anything.
    ///
    /// # Panics
    /// If `action` names furniture or an object that `world` (the world the state is of)
    /// does not have.
    pub fn check(&self, world: &World, action: &Action) -> Result<(), Impossible> {
        let at = |f: FurnitureId| {
            if self.at == Some(f) {
                Ok(())
            } else {
                Err(Impossible::NotAt(f))
            }
        };
        let container = |f: FurnitureId| match world.furniture(f).kind {
            FurnitureKind::Container => Ok(()),
            FurnitureKind::Surface => Err(Impossible::NotAContainer(f)),
        };
        match *action {
            Action::WalkTo(p) if p == self.place() => Err(Impossible::AlreadyThere),
            Action::WalkTo(_) => Ok(()),
            Action::Open(f) => {
                container(f)?;
                at(f)?;
                if self.open[f.index()] {
                    Err(Impossible::AlreadyOpen(f))
                } else {
                    Ok(())
                }
            }
            Action::Close(f) => {
                container(f)?;
                at(f)?;
                if self.open[f.index()] {
                    Ok(())
                } else {
                    Err(Impossible::AlreadyClosed(f))
                }
            }
            Action::Grab(o) => match self.object_at[o.index()] {
                Some(f) if self.at == Some(f) && !self.open[f.index()] => {
                    Err(Impossible::InsideClosed(o, f))
                }
                Some(f) if self.at == Some(f) => Ok(()),
                _ => Err(Impossible::NotHere(o)),
            },
            Action::Put { object, onto } => {
                if !self.holds(object) {
                    return Err(Impossible::NotHeld(object));
                }
                at(onto)?;
                if self.open[onto.index()] {
                    Ok(())
                } else {
                    Err(Impossible::Closed(onto))
                }
            }
        }
    }

    /// Applies `action`, or says why it is impossible (leaving the state unchanged).
    ///
    /// # Panics
    /// As [`State::check`].
    pub fn apply(&mut self, world: &World, action: &Action) -> Result<(), Impossible> {
        self.check(world, action)?;
        match *action {
            Action::WalkTo(Place::Room(r)) => {
                self.room = r;
                self.at = None;
            }
            Action::WalkTo(Place::Furniture(f)) => {
                self.room = world.furniture(f).room;
                self.at = Some(f);
            }
            Action::Open(f) => self.open[f.index()] = true,
            Action::Close(f) => self.open[f.index()] = false,
            Action::Grab(o) => self.object_at[o.index()] = None,
            Action::Put { object, onto } => self.object_at[object.index()] = Some(onto),
        }
        Ok(())
    }

    /// The state after `action`, which must be possible.
    ///
    /// # Panics
    /// As [`State::check`].
    pub fn after(&self, world: &World, action: &Action) -> Result<State, Impossible> {
        let mut next = self.clone();
        next.apply(world, action)?;
        Ok(next)
    }

    /// Every action possible now, in a fixed order: walks to other rooms, walks to
    /// furniture, then open/close, grab and put at the current furniture.
    pub fn possible_actions(&self, world: &World) -> Vec<Action> {
        let mut actions: Vec<Action> = (0..world.rooms.len())
            .map(|r| Action::WalkTo(Place::Room(RoomId::new(r))))
            .chain(
                world
                    .furniture_ids()
                    .map(|f| Action::WalkTo(Place::Furniture(f))),
            )
            .filter(|a| *a != Action::WalkTo(self.place()))
            .collect();
        if let Some(f) = self.at {
            if world.furniture(f).kind == FurnitureKind::Container {
                actions.push(if self.open[f.index()] {
                    Action::Close(f)
                } else {
                    Action::Open(f)
                });
            }
            if self.open[f.index()] {
                for (i, at) in self.object_at.iter().enumerate() {
                    if *at == Some(f) {
                        actions.push(Action::Grab(ObjectId::new(i)));
                    }
                }
                for object in self.held() {
                    actions.push(Action::Put { object, onto: f });
                }
            }
        }
        actions
    }

    /// What the agent sees now: every surface and open container of its room.
    pub fn observe(&self, world: &World) -> Observation {
        let visible: Vec<FurnitureId> = world
            .furniture_ids()
            .filter(|f| world.furniture(*f).room == self.room && self.open[f.index()])
            .collect();
        let seen = self
            .object_at
            .iter()
            .enumerate()
            .filter_map(|(i, at)| at.map(|f| (ObjectId::new(i), f)))
            .filter(|(_, f)| visible.contains(f))
            .collect();
        Observation {
            room: self.room,
            visible,
            seen,
        }
    }
}
