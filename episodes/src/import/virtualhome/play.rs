//! Program lines played out into episode actions, in the world the graph became.
//!
//! - `[Walk]`, `[Run]`, `[Find]`, `[TurnTo]`, `[LookAt]` (and its variants) walk to the
//!   thing's place: a room, a piece of furniture, or the furniture an object is at then.
//!   Something bip left out (a TV) is walked to as its room (reported). A walk to where the
//!   agent already is says nothing new and is skipped (reported): VirtualHome programs
//!   often `[Walk]` to a fridge and then `[Find]` it.
//! - `[Open]`, `[Close]` a container; `[Grab]` an object; `[PutBack]`/`[Put]` and
//!   `[PutIn]` a held object onto or into furniture. VirtualHome lets the agent act on
//!   anything close to it; bip needs it to stand at the furniture, so when it is elsewhere
//!   a walk there is added first (reported).
//! - Every other action (`[SwitchOn]`, `[Sit]`, ...) is skipped, as are lines for other
//!   characters and actions on things bip does not model (opening a door, grabbing a
//!   cupcake that is not `GRABBABLE`); each is reported with its line.
//!
//! With `strict`, everything reported except skipped redundant walks is an error instead.
//! What cannot happen even so (grabbing from a closed fridge, opening an open one) is an
//! error naming the line.

use std::collections::HashMap;

use crate::action::Action;
use crate::ids::{FurnitureId, ObjectId, RoomId};
use crate::json::ActionFile;
use crate::layout::Place;
use crate::state::State;
use crate::world::{FurnitureKind, World};

use super::error::{ScriptProblem, VirtualHomeError};
use super::graph::Graph;
use super::node::NodeId;
use super::place::room_of;
use super::report::{Note, NoteKind, Notes};
use super::scene::describe;
use super::script::{parse_script, ScriptLine};

/// Actions that walk to their argument.
const WALKS: &[&str] = &[
    "WALK",
    "RUN",
    "GOTO",
    "FIND",
    "TURNTO",
    "LOOKAT",
    "LOOKAT_SHORT",
    "LOOKAT_MEDIUM",
    "LOOKAT_LONG",
];

/// The rest of VirtualHome's actions: known, not modelled.
const UNMODELLED: &[&str] = &[
    "DRINK",
    "POINTAT",
    "PUTOBJBACK",
    "SIT",
    "STANDUP",
    "SWITCHOFF",
    "SWITCHON",
    "TOUCH",
    "WATCH",
    "WIPE",
    "PUTON",
    "PUTOFF",
    "GREET",
    "DROP",
    "READ",
    "LIE",
    "POUR",
    "TYPE",
    "PUSH",
    "PULL",
    "MOVE",
    "WASH",
    "RINSE",
    "SCRUB",
    "SQUEEZE",
    "PLUGIN",
    "PLUGOUT",
    "CUT",
    "EAT",
    "SLEEP",
    "WAKEUP",
    "RELEASE",
];

/// What a script argument is in the episode.
#[derive(Debug, Clone, Copy)]
enum Thing {
    Room(RoomId),
    Furniture(FurnitureId),
    Object(ObjectId),
    /// A node bip left out.
    Other(usize),
}

/// Plays a program in `world`, whose ids for graph nodes are `names`.
pub(crate) struct Player<'a> {
    pub(crate) world: &'a World,
    pub(crate) graph: &'a Graph,
    pub(crate) names: &'a HashMap<usize, String>,
    pub(crate) agent: &'a str,
    pub(crate) strict: bool,
    pub(crate) start: RoomId,
}

impl Player<'_> {
    /// The actions of `lines`, with notes for every line skipped or completed.
    ///
    /// # Errors
    /// [`VirtualHomeError::Script`] for a line naming a missing node, a node of another
    /// class, the wrong number of arguments, or an action that cannot happen;
    /// [`VirtualHomeError::Strict`] in strict mode for a line that would be noted.
    pub(crate) fn play(
        &self,
        lines: &[ScriptLine<'_>],
        notes: &mut Notes,
    ) -> Result<Vec<ActionFile>, VirtualHomeError> {
        let state = State::initial(self.world, self.start);
        let actions = self.play_from(state, lines, notes)?;
        Ok(actions
            .iter()
            .map(|a| ActionFile::new(a, self.world))
            .collect())
    }

    /// The actions of `lines` played from `state`, as [`play`](Self::play).
    fn play_from(
        &self,
        state: State,
        lines: &[ScriptLine<'_>],
        notes: &mut Notes,
    ) -> Result<Vec<Action>, VirtualHomeError> {
        let mut run = Run {
            player: self,
            state,
            actions: Vec::new(),
            notes,
            is_room: (0..self.graph.nodes.len())
                .map(|n| {
                    self.names
                        .get(&n)
                        .is_some_and(|name| self.world.room_by_name(name).is_some())
                })
                .collect(),
        };
        for line in lines {
            run.line(line)?;
        }
        Ok(run.actions)
    }
}

/// Plays program lines one at a time, as a simulator executes them: the rules of
/// [`import`](super::import)'s program (walks added, lines skipped, each noted), applied
/// at a state the caller keeps — an inference session's, say, so that a program fed line
/// by line becomes the actions importing it whole would give.
///
/// Made by [`import`](super::import) ([`Imported::player`](super::Imported::player)),
/// for the world it imported.
#[derive(Debug, Clone)]
pub struct LinePlayer {
    graph: Graph,
    names: HashMap<usize, String>,
    agent: String,
    strict: bool,
}

/// What program lines became.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedLines {
    /// The actions, in order: none for a skipped line, two when a walk was added first.
    pub actions: Vec<Action>,
    /// Every line skipped or completed, as the import report notes it.
    pub notes: Vec<Note>,
}

impl LinePlayer {
    pub(crate) fn new(
        graph: Graph,
        names: HashMap<usize, String>,
        agent: String,
        strict: bool,
    ) -> Self {
        Self {
            graph,
            names,
            agent,
            strict,
        }
    }

    /// Plays the program `text` (one line or several; blank lines and `#` comments are
    /// passed over) from `state` in `world`, numbering its first line `first_line` in
    /// notes and errors.
    ///
    /// # Errors
    /// As [`import`](super::import) for a program: [`VirtualHomeError::Script`] for an
    /// unreadable line, a node missing from the graph or of another class, or an action
    /// that cannot happen at that state; [`VirtualHomeError::Strict`] in strict mode.
    ///
    /// # Panics
    /// If `world` or `state` is not of the world imported with this player.
    pub fn play(
        &self,
        world: &World,
        state: &State,
        first_line: usize,
        text: &str,
    ) -> Result<PlayedLines, VirtualHomeError> {
        let shift = first_line.saturating_sub(1);
        let renumber = |e: VirtualHomeError| match e {
            VirtualHomeError::Script {
                line,
                text,
                problem,
            } => VirtualHomeError::Script {
                line: line + shift,
                text,
                problem,
            },
            VirtualHomeError::Strict { line, text, reason } => VirtualHomeError::Strict {
                line: line + shift,
                text,
                reason,
            },
            other => other,
        };
        let mut lines = parse_script(text).map_err(renumber)?;
        for line in &mut lines {
            line.line += shift;
        }
        let player = Player {
            world,
            graph: &self.graph,
            names: &self.names,
            agent: &self.agent,
            strict: self.strict,
            start: state.room,
        };
        let mut notes = Notes::default();
        let actions = player.play_from(state.clone(), &lines, &mut notes)?;
        Ok(PlayedLines {
            actions,
            notes: notes.into_report().notes,
        })
    }
}

struct Run<'p, 'a, 'n> {
    player: &'p Player<'a>,
    state: State,
    actions: Vec<Action>,
    notes: &'n mut Notes,
    is_room: Vec<bool>,
}

impl Run<'_, '_, '_> {
    fn line(&mut self, line: &ScriptLine<'_>) -> Result<(), VirtualHomeError> {
        let error = |problem: ScriptProblem| VirtualHomeError::Script {
            line: line.line,
            text: line.text.to_string(),
            problem,
        };
        if let Some(who) = line.character {
            let ours = who.eq_ignore_ascii_case("char0") || who == self.player.agent;
            if !ours {
                return self.skip(
                    line,
                    NoteKind::SkippedTarget,
                    vec![],
                    format!(
                        "<{who}> is another character; only char0 ({}) is imported",
                        self.player.agent
                    ),
                );
            }
        }
        let action = line.action.to_ascii_uppercase();
        let arity = if WALKS.contains(&action.as_str())
            || ["OPEN", "CLOSE", "GRAB"].contains(&action.as_str())
        {
            1
        } else if ["PUTBACK", "PUT", "PUTIN"].contains(&action.as_str()) {
            2
        } else {
            let why = if UNMODELLED.contains(&action.as_str()) {
                "a VirtualHome action bip does not model"
            } else {
                "not an action bip knows"
            };
            return self.skip(
                line,
                NoteKind::SkippedAction,
                vec![],
                format!("[{}] is {why}: skipped", line.action),
            );
        };
        if line.args.len() != arity {
            return Err(error(ScriptProblem::Arity {
                action: line.action.to_string(),
                expected: arity,
                found: line.args.len(),
            }));
        }
        let mut things = Vec::with_capacity(arity);
        for &(class, id) in &line.args {
            things.push(self.resolve(class, id).map_err(error)?);
        }
        match (action.as_str(), things.as_slice()) {
            (_, [thing]) if WALKS.contains(&action.as_str()) => self.walk(line, *thing),
            ("OPEN" | "CLOSE", [thing]) => self.open_close(line, *thing, action == "OPEN"),
            ("GRAB", [thing]) => self.grab(line, *thing),
            (_, [object, onto]) => self.put(line, *object, *onto),
            _ => Ok(()),
        }
    }

    /// The episode's thing for node `id`, checking that its class is `class`.
    fn resolve(&self, class: &str, id: NodeId) -> Result<Thing, ScriptProblem> {
        let graph = self.player.graph;
        let n = graph
            .position(id)
            .ok_or(ScriptProblem::UnknownNode { id })?;
        let actual = &graph.nodes[n].class;
        if !actual.eq_ignore_ascii_case(class) {
            return Err(ScriptProblem::WrongClass {
                id,
                actual: actual.clone(),
                written: class.to_string(),
            });
        }
        let world = self.player.world;
        Ok(match self.player.names.get(&n) {
            Some(name) => {
                if let Some(r) = world.room_by_name(name) {
                    Thing::Room(r)
                } else if let Some(f) = world.furniture_by_name(name) {
                    Thing::Furniture(f)
                } else if let Some(o) = world.object_by_name(name) {
                    Thing::Object(o)
                } else {
                    Thing::Other(n)
                }
            }
            None => Thing::Other(n),
        })
    }

    fn walk(&mut self, line: &ScriptLine<'_>, thing: Thing) -> Result<(), VirtualHomeError> {
        let place = match thing {
            Thing::Room(r) => Place::Room(r),
            Thing::Furniture(f) => Place::Furniture(f),
            Thing::Object(o) => match self.state.object_at[o.index()] {
                Some(f) => Place::Furniture(f),
                None => {
                    let object = &self.player.world.object(o).name;
                    return self.skip_target(
                        line,
                        format!("{object} is held by the agent: nowhere to walk to; skipped"),
                    );
                }
            },
            Thing::Other(n) => {
                let room = room_of(self.player.graph, &self.is_room, n)
                    .and_then(|(r, _)| self.player.names.get(&r))
                    .and_then(|name| self.player.world.room_by_name(name));
                let what = describe(self.player.graph, n);
                match room {
                    Some(r) => {
                        let room_name = &self.player.world.rooms[r.index()].name;
                        self.fix(
                            line,
                            NoteKind::WalkToRoom,
                            format!("{what} is not imported: walks to its room, {room_name}"),
                        )?;
                        Place::Room(r)
                    }
                    None => {
                        return self.skip_target(
                            line,
                            format!("{what} is not imported and in no room: skipped"),
                        )
                    }
                }
            }
        };
        if place == self.state.place() {
            self.notes.line(
                NoteKind::Redundant,
                line.line,
                nodes_of(line),
                format!(
                    "the agent is already at {}: skipped",
                    self.player.world.place_name(place)
                ),
            );
            return Ok(());
        }
        self.apply(line, Action::WalkTo(place))
    }

    fn open_close(
        &mut self,
        line: &ScriptLine<'_>,
        thing: Thing,
        open: bool,
    ) -> Result<(), VirtualHomeError> {
        let verb = if open { "open" } else { "close" };
        match thing {
            Thing::Furniture(f)
                if self.player.world.furniture(f).kind == FurnitureKind::Container =>
            {
                self.be_at(line, f)?;
                self.apply(
                    line,
                    if open {
                        Action::Open(f)
                    } else {
                        Action::Close(f)
                    },
                )
            }
            other => self.skip_thing(line, other, |what| {
                format!("bip models how containers {verb}, and {what} is not one: skipped")
            }),
        }
    }

    fn grab(&mut self, line: &ScriptLine<'_>, thing: Thing) -> Result<(), VirtualHomeError> {
        match thing {
            Thing::Object(o) => {
                if let Some(f) = self.state.object_at[o.index()] {
                    self.be_at(line, f)?;
                }
                self.apply(line, Action::Grab(o))
            }
            other => self.skip_thing(line, other, |what| {
                format!("{what} is not an imported grabbable object: skipped")
            }),
        }
    }

    fn put(
        &mut self,
        line: &ScriptLine<'_>,
        object: Thing,
        onto: Thing,
    ) -> Result<(), VirtualHomeError> {
        match (object, onto) {
            (Thing::Object(o), Thing::Furniture(f)) => {
                self.be_at(line, f)?;
                self.apply(line, Action::Put { object: o, onto: f })
            }
            (Thing::Object(_), other) | (other, _) => self.skip_thing(line, other, |what| {
                format!("{what} is not imported as furniture or an object: skipped")
            }),
        }
    }

    /// Walks to `f` first when the agent is elsewhere.
    fn be_at(&mut self, line: &ScriptLine<'_>, f: FurnitureId) -> Result<(), VirtualHomeError> {
        if self.state.at == Some(f) {
            return Ok(());
        }
        let name = &self.player.world.furniture(f).name;
        self.fix(
            line,
            NoteKind::AddedWalk,
            format!("the agent is not at {name}: a walk to it was added first"),
        )?;
        self.apply(line, Action::WalkTo(Place::Furniture(f)))
    }

    /// Applies and records an action, or names the line it cannot happen at.
    fn apply(&mut self, line: &ScriptLine<'_>, action: Action) -> Result<(), VirtualHomeError> {
        let world = self.player.world;
        self.state
            .apply(world, &action)
            .map_err(|why| VirtualHomeError::Script {
                line: line.line,
                text: line.text.to_string(),
                problem: ScriptProblem::Impossible {
                    reason: why.describe(world),
                    why,
                },
            })?;
        self.actions.push(action);
        Ok(())
    }

    /// Notes a line that is skipped, or rejects it in strict mode.
    fn skip(
        &mut self,
        line: &ScriptLine<'_>,
        kind: NoteKind,
        nodes: Vec<NodeId>,
        message: String,
    ) -> Result<(), VirtualHomeError> {
        if self.player.strict {
            return Err(VirtualHomeError::Strict {
                line: line.line,
                text: line.text.to_string(),
                reason: message,
            });
        }
        self.notes.line(kind, line.line, nodes, message);
        Ok(())
    }

    /// Notes a line skipped for what its arguments are (naming their nodes), or rejects it
    /// in strict mode. Every "not something bip models" branch of the actions ends here.
    fn skip_target(
        &mut self,
        line: &ScriptLine<'_>,
        message: String,
    ) -> Result<(), VirtualHomeError> {
        self.skip(line, NoteKind::SkippedTarget, nodes_of(line), message)
    }

    /// Notes a line skipped because `thing` is not what its action needs, in the words of
    /// `message` given what the thing is ([`Self::what`]).
    fn skip_thing(
        &mut self,
        line: &ScriptLine<'_>,
        thing: Thing,
        message: impl FnOnce(&str) -> String,
    ) -> Result<(), VirtualHomeError> {
        let what = self.what(thing);
        self.skip_target(line, message(&what))
    }

    /// Notes a line that is completed or approximated, or rejects it in strict mode.
    fn fix(
        &mut self,
        line: &ScriptLine<'_>,
        kind: NoteKind,
        message: String,
    ) -> Result<(), VirtualHomeError> {
        self.skip(line, kind, nodes_of(line), message)
    }

    /// "the surface kitchen_table", "the room kitchen", "door 42 (not imported)".
    fn what(&self, thing: Thing) -> String {
        let world = self.player.world;
        match thing {
            Thing::Room(r) => format!("the room {}", world.rooms[r.index()].name),
            Thing::Furniture(f) => {
                let kind = match world.furniture(f).kind {
                    FurnitureKind::Container => "container",
                    FurnitureKind::Surface => "surface",
                };
                format!("the {kind} {}", world.furniture(f).name)
            }
            Thing::Object(o) => format!("the object {}", world.object(o).name),
            Thing::Other(n) => format!("{} (not imported)", describe(self.player.graph, n)),
        }
    }
}

/// The node ids a line names, in order.
fn nodes_of(line: &ScriptLine<'_>) -> Vec<NodeId> {
    line.args.iter().map(|a| a.1).collect()
}
