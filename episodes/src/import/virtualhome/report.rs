//! The import report: every choice the importer made that the graph or script did not
//! dictate, so that nothing is silent.

use std::collections::BTreeMap;
use std::fmt;

use super::node::NodeId;

/// What kind of choice a [`Note`] records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum NoteKind {
    /// Nodes of a scenery category (walls, floors, ceilings, lamps, doors, windows,
    /// characters) were left out.
    Scenery,
    /// Nodes that are neither rooms, containers, surfaces nor grabbable objects, and hold
    /// no imported object, were left out.
    NotModelled,
    /// `CAN_OPEN` nodes without `CONTAINERS`: imported as surfaces or objects, or left out.
    OpenableNotContainer,
    /// `CONTAINERS` nodes without `CAN_OPEN` (a sink): imported as surfaces.
    ContainerNotOpenable,
    /// `GRABBABLE` nodes that are also containers or surfaces (a plate, a folder):
    /// imported as objects; what lies in or on them has no place.
    GrabbablePlace,
    /// Nodes without `SURFACES`/`CONTAINERS` that grabbable objects lie on or in (a
    /// bookshelf, a kitchen counter): imported as surfaces.
    ImpliedSurface,
    /// Containers with neither `OPEN` nor `CLOSED` among their states: assumed closed.
    AssumedClosed,
    /// Grabbable objects with no container or surface to be in or on: left out.
    Unlocated,
    /// Furniture with no room: left out.
    NoRoom,
    /// Furniture whose room came from what it stands on or from its bounding box, or
    /// that is INSIDE several rooms.
    RoomChosen,
    /// Objects with several candidate places: the rule picked one.
    PlaceChosen,
    /// Objects ON a container: put inside it (episodes have no "on top of").
    OnContainer,
    /// Several nodes share a class: named `class_1`, `class_2`, ... in node-id order.
    Numbered,
    /// How rooms were joined and how far apart they are.
    Doors,
    /// Where the agent starts.
    Start,
    /// A script line that is not an action bip models: skipped.
    SkippedAction,
    /// A script line naming something bip does not model, or a line for another
    /// character: skipped.
    SkippedTarget,
    /// A script walk to something bip left out: a walk to its room instead.
    WalkToRoom,
    /// A script walk to where the agent already is: skipped.
    Redundant,
    /// A script line acting on furniture the agent is not at: a walk there was added
    /// before it.
    AddedWalk,
}

/// One choice: its kind, the nodes or script line it concerns, and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// What kind of choice.
    pub kind: NoteKind,
    /// The nodes concerned, in id order (empty for script notes about no node).
    pub nodes: Vec<NodeId>,
    /// The 1-based script line, for script notes.
    pub line: Option<usize>,
    /// What was done, in words.
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "script line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Every choice an import made, graph notes first, then script notes in line order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// The notes.
    pub notes: Vec<Note>,
}

impl ImportReport {
    /// The notes of one kind.
    pub fn of(&self, kind: NoteKind) -> impl Iterator<Item = &Note> + '_ {
        self.notes.iter().filter(move |n| n.kind == kind)
    }

    /// Whether some note of `kind` concerns `node`.
    pub fn mentions(&self, kind: NoteKind, node: NodeId) -> bool {
        self.of(kind).any(|n| n.nodes.contains(&node))
    }
}

/// Collects per-node notes and groups those of one kind and class (and detail) into one.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    grouped: BTreeMap<(NoteKind, String, String), Vec<NodeId>>,
    single: Vec<Note>,
}

impl Notes {
    /// Adds `node` of class `class` to the group `kind`/`class`/`detail`; the group
    /// becomes one note "class (nodes a, b): detail".
    pub(crate) fn group(&mut self, kind: NoteKind, class: &str, node: NodeId, detail: &str) {
        self.grouped
            .entry((kind, class.to_string(), detail.to_string()))
            .or_default()
            .push(node);
    }

    /// Adds a note of its own.
    pub(crate) fn note(&mut self, kind: NoteKind, nodes: Vec<NodeId>, message: String) {
        self.single.push(Note {
            kind,
            nodes,
            line: None,
            message,
        });
    }

    /// Adds a script note.
    pub(crate) fn line(
        &mut self,
        kind: NoteKind,
        line: usize,
        nodes: Vec<NodeId>,
        message: String,
    ) {
        self.single.push(Note {
            kind,
            nodes,
            line: Some(line),
            message,
        });
    }

    /// The grouped notes (by kind, then class), then the others in the order added.
    pub(crate) fn into_report(self) -> ImportReport {
        let mut notes: Vec<Note> = self
            .grouped
            .into_iter()
            .map(|((kind, class, detail), mut nodes)| {
                nodes.sort();
                nodes.dedup();
                let ids: Vec<String> = nodes.iter().map(ToString::to_string).collect();
                let label = if nodes.len() == 1 { "node" } else { "nodes" };
                Note {
                    kind,
                    message: format!("{class} ({label} {}): {detail}", ids.join(", ")),
                    nodes,
                    line: None,
                }
            })
            .collect();
        notes.extend(self.single);
        ImportReport { notes }
    }
}
