//! Narrative steps played out into `bip-episode/1` actions.
//!
//! Each target of a step gets each of the step's operations in turn. Opening, closing or
//! being about to open a container first walks to it when the agent is elsewhere ("opens
//! the fridge" after walking into the kitchen); walking to the room the agent is already
//! in, or to the piece it already stands at, says nothing new and is dropped ("Upon
//! reaching the kitchen, ..."). An object as a destination ("walks towards the wine") is
//! written as `walk_to` the object, which means the furniture it is at.

use crate::json::ActionFile;

use super::apartment::Apartment;
use super::lexicon::Kind;
use super::narrative::Narrative;
use super::steps::{Op, Target};

/// Actions with, for each, the index of the sentence it comes from, and where the agent
/// ends up.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    /// The actions, in order.
    pub(crate) actions: Vec<ActionFile>,
    /// For each action, the index of its sentence in the narrative.
    pub(crate) sources: Vec<usize>,
    /// The room the agent is in after the last action.
    pub(crate) room: usize,
}

/// Why a step cannot be played: the sentence index and the reason.
pub(crate) type StepError = (usize, String);

/// Plays the narrative's steps out.
///
/// # Errors
/// The sentence of the first step that cannot happen (opening a surface, closing what is
/// closed, taking what is held) and why.
pub(crate) fn play(apartment: &Apartment, narrative: &Narrative) -> Result<Script, StepError> {
    let mut player = Player {
        apartment,
        furniture_ids: apartment.furniture_ids(),
        object_ids: apartment.object_ids(),
        room: narrative.start,
        at: None,
        open: vec![false; apartment.furniture.len()],
        held: vec![false; apartment.objects.len()],
        script: Script {
            actions: Vec::new(),
            sources: Vec::new(),
            room: narrative.start,
        },
        sentence: 0,
    };
    for step in &narrative.steps {
        player.sentence = step.sentence;
        for &target in &step.targets {
            for &op in &step.ops {
                player
                    .apply(op, target)
                    .map_err(|reason| (step.sentence, reason))?;
            }
        }
    }
    player.script.room = player.room;
    Ok(player.script)
}

struct Player<'a> {
    apartment: &'a Apartment,
    furniture_ids: Vec<String>,
    object_ids: Vec<String>,
    room: usize,
    at: Option<usize>,
    open: Vec<bool>,
    held: Vec<bool>,
    script: Script,
    sentence: usize,
}

impl Player<'_> {
    fn emit(&mut self, action: ActionFile) {
        self.script.actions.push(action);
        self.script.sources.push(self.sentence);
    }

    fn apply(&mut self, op: Op, target: Target) -> Result<(), String> {
        match (op, target) {
            (Op::Walk, Target::Room(r)) => {
                if self.room != r {
                    self.emit(ActionFile::WalkTo(self.apartment.rooms[r].id.to_string()));
                    self.room = r;
                    self.at = None;
                }
            }
            (Op::Walk, Target::Furniture(f)) => self.walk_to(f),
            (Op::Walk, Target::Object(o)) => {
                let f = self.object_place(o)?;
                if self.at != Some(f) {
                    self.emit(ActionFile::WalkTo(self.object_ids[o].clone()));
                    self.arrive(f);
                }
            }
            (Op::Open | Op::Close | Op::IntendOpen, Target::Furniture(f)) => {
                if self.apartment.furniture[f].def.kind == Kind::Surface {
                    return Err(format!(
                        "{} is a surface; it cannot be opened or closed",
                        self.furniture_ids[f]
                    ));
                }
                self.walk_to(f);
                let id = self.furniture_ids[f].clone();
                match op {
                    Op::Open if self.open[f] => return Err(format!("{id} is already open")),
                    Op::Open => {
                        self.emit(ActionFile::Open(id));
                        self.open[f] = true;
                    }
                    Op::Close if !self.open[f] => return Err(format!("{id} is already closed")),
                    Op::Close => {
                        self.emit(ActionFile::Close(id));
                        self.open[f] = false;
                    }
                    _ => {}
                }
            }
            (Op::Grab | Op::IntendOpen, Target::Object(o)) => {
                let f = self.object_place(o)?;
                let closed =
                    self.apartment.furniture[f].def.kind == Kind::Container && !self.open[f];
                if op == Op::Grab && closed {
                    return Err(format!(
                        "{} is inside {}, which is closed",
                        self.object_ids[o], self.furniture_ids[f]
                    ));
                }
                self.walk_to(f);
                if op == Op::Grab {
                    self.emit(ActionFile::Grab(self.object_ids[o].clone()));
                    self.held[o] = true;
                }
            }
            (Op::Grab, _) => return Err("only objects can be taken".into()),
            (_, Target::Room(r)) => {
                return Err(format!(
                    "{} is a room; only containers open and close",
                    self.apartment.rooms[r].id
                ))
            }
            (_, Target::Object(o)) => {
                return Err(format!(
                    "{} is an object; only containers open and close",
                    self.object_ids[o]
                ))
            }
        }
        Ok(())
    }

    fn walk_to(&mut self, f: usize) {
        if self.at != Some(f) {
            self.emit(ActionFile::WalkTo(self.furniture_ids[f].clone()));
            self.arrive(f);
        }
    }

    fn arrive(&mut self, f: usize) {
        self.at = Some(f);
        self.room = self.apartment.furniture[f].room;
    }

    fn object_place(&self, o: usize) -> Result<usize, String> {
        if self.held[o] {
            return Err(format!(
                "the agent holds {}; it is nowhere to walk to",
                self.object_ids[o]
            ));
        }
        Ok(self.apartment.objects[o].at)
    }
}
