//! VirtualHome scene graphs and programs, read into `bip-episode/1` episodes, and
//! episodes written back as graphs and programs.
//!
//! [`import`] takes an environment graph ([`read_graph`]: `{"nodes", "edges"}` as
//! VirtualHome, Watch-And-Help and MMToM-QA's generator write it) and optionally a program
//! bound to it (`[Walk] <kitchen> (198)` lines whose numbers are node ids), and returns the
//! episode with an [`ImportReport`] of every choice the graph or program did not dictate.
//! In short (each module documents its rules in full):
//!
//! - **Scene** (`scene`): rooms are the `Rooms` nodes; containers are `CAN_OPEN` +
//!   `CONTAINERS` (open or closed from `states`); surfaces are `SURFACES`, `CONTAINERS`
//!   without `CAN_OPEN` (a sink), and things objects lie only on or in (a bookshelf);
//!   objects are `GRABBABLE`, placed by their INSIDE/ON edges (INSIDE a container, ON a
//!   surface, INSIDE a surface, ON a container; the most specific of equals); furniture is
//!   INSIDE its room. Walls, floors, ceilings, lamps, doors, windows and characters are
//!   scenery ([`SCENERY`]). A circle of INSIDE edges among imported nodes is an error.
//! - **Names** (`names`): a node's id in the episode is its class, or `class_1`,
//!   `class_2`, ... in node-id order when several nodes share the class; [`Imported::names`]
//!   maps node ids to episode ids.
//! - **Doors** (`doors`): rooms are joined when a node is BETWEEN them or their bounding
//!   boxes share a wall (within 0.5 m); a door's distance is the rooms' centre-to-centre
//!   distance in metres / [`METRES_PER_UNIT`] (2.5). Walking to furniture within a room
//!   stays 1, as the episode format has no per-furniture distances.
//! - **Program** (`play`): walks, `[Find]`, `[TurnTo]` and `[LookAt]` walk to the thing's
//!   place; `[Open]`, `[Close]`, `[Grab]`, `[PutBack]`/`[PutIn]` act, after a walk to the
//!   furniture if the agent is elsewhere; other actions are skipped with their line
//!   number, or rejected with [`ImportOptions::strict`].
//! - **Questions** (`questions`): [`ImportOptions::ask_goal`] asks which candidate class
//!   the agent wants (the `goals` given, else every imported class);
//!   [`ImportOptions::ask_beliefs`] asks whether, wanting OBJECT, it thinks one is inside
//!   CONTAINER.
//!
//! [`export`] goes the other way for what bip models: rooms, containers, surfaces,
//! objects, doors, the agent's start and its actions.

mod convert;
mod doors;
mod error;
mod export;
mod furniture;
mod graph;
mod names;
mod node;
mod place;
mod play;
mod questions;
mod report;
mod scene;
mod script;

pub use convert::{import, ImportOptions, Imported};
pub use doors::{METRES_PER_UNIT, MIN_SHARED_WALL, TOUCH_TOLERANCE};
pub use error::{ScriptProblem, VirtualHomeError};
pub use export::{export, Exported};
pub use graph::{read_graph, BoundingBox, EdgeFile, GraphFile, NodeFile};
pub use node::NodeId;
pub use play::{LinePlayer, PlayedLines};
pub use report::{ImportReport, Note, NoteKind};
pub use scene::SCENERY;
