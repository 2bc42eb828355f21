//! Why a VirtualHome graph, script or question could not be imported.

use thiserror::Error;

use crate::limits::quoted;

use crate::error::EpisodeError;

use super::node::NodeId;

/// Why a VirtualHome scene graph or program could not be read into an episode. Every
/// variant names the node id, edge, script line or flag at fault.
#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum VirtualHomeError {
    /// The graph text is not JSON of the environment-graph shape.
    #[error("graph: line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What serde found wrong.
        message: String,
    },
    /// Two nodes share one id.
    #[error("nodes[{index}]: node id {id} is already used by nodes[{first}]")]
    DuplicateNode {
        /// The repeated id.
        id: NodeId,
        /// Position of the second node in `nodes`.
        index: usize,
        /// Position of the first.
        first: usize,
    },
    /// A node has no `class_name`, or an empty one.
    #[error("nodes[{index}]: node {id} has no class_name")]
    NodeWithoutClass {
        /// The node.
        id: NodeId,
        /// Its position in `nodes`.
        index: usize,
    },
    /// An edge names a node id that is not in `nodes`.
    #[error("edges[{index}] ({from} {relation} {to}): no node has id {missing}")]
    DanglingEdge {
        /// Position of the edge in `edges`.
        index: usize,
        /// Its `from_id`.
        from: NodeId,
        /// Its `relation_type`.
        relation: String,
        /// Its `to_id`.
        to: NodeId,
        /// The id that is missing.
        missing: NodeId,
    },
    /// Imported nodes are INSIDE each other in a circle, so none has a place.
    #[error("INSIDE edges form a cycle: {}", cycle_text(cycle))]
    InsideCycle {
        /// The node ids of the cycle, each INSIDE the next, the last INSIDE the first.
        cycle: Vec<NodeId>,
    },
    /// No node has the category `Rooms`.
    #[error("the graph has no node of category \"Rooms\"; an episode needs at least one room")]
    NoRooms,
    /// A script line cannot be read or cannot happen.
    #[error("script line {line} ({}): {problem}", quoted(text))]
    Script {
        /// 1-based line number.
        line: usize,
        /// The line as written, trimmed.
        text: String,
        /// What is wrong.
        problem: ScriptProblem,
    },
    /// In strict mode: a script line bip would have skipped or completed.
    #[error(
        "script line {line} ({}): {reason} (rejected by --strict)",
        quoted(text)
    )]
    Strict {
        /// 1-based line number.
        line: usize,
        /// The line as written, trimmed.
        text: String,
        /// What bip would have done without `--strict`.
        reason: String,
    },
    /// A question asked on the command line names something the episode lacks.
    #[error("{flag} {}: {reason}", quoted(value))]
    Question {
        /// The flag (`--ask-belief`, `--goals`).
        flag: &'static str,
        /// Its value.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// The episode built from the graph is not valid (a bug, or an unreachable room).
    #[error("the imported episode is invalid")]
    Episode {
        /// What is invalid.
        #[from]
        source: EpisodeError,
    },
}

/// What is wrong with a script line ([`VirtualHomeError::Script`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ScriptProblem {
    /// A leading `<character>` without its `>`.
    #[error("a line starts with [Action] or <character> [Action]")]
    BadCharacter,
    /// No `[Action]` where one must be.
    #[error("expected [Action], e.g. [Walk]")]
    ExpectedAction,
    /// An action that is not one word.
    #[error("the action in [...] must be one word, e.g. [Walk]")]
    ActionNotOneWord,
    /// Something other than `<class> (id)` after the action.
    #[error("expected an argument <class> (node id)")]
    ExpectedArgument,
    /// An argument `<class>` without its `(id)`.
    #[error(
        "<{}> needs a node id in parentheses: <{}> (123)",
        quoted(class),
        quoted(class)
    )]
    MissingNodeId {
        /// The class as written.
        class: String,
    },
    /// An argument's `(id)` that is not a whole number.
    #[error("({}) is not a node id; scripts must be bound to the scene graph (node ids, not instance numbers)", quoted(text))]
    NotANodeId {
        /// What the parentheses hold.
        text: String,
    },
    /// An action with the wrong number of arguments.
    #[error("[{}] takes {expected} argument{}, found {found}", quoted(action), if *expected == 1 { "" } else { "s" })]
    Arity {
        /// The action as written.
        action: String,
        /// Arguments it takes.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// An argument names a node id the graph does not have.
    #[error("no node has id {id} in the graph")]
    UnknownNode {
        /// The id.
        id: NodeId,
    },
    /// An argument's class is not the class of the node it names.
    #[error("node {id} is a {}, not a {}", quoted(actual), quoted(written))]
    WrongClass {
        /// The node.
        id: NodeId,
        /// Its class in the graph.
        actual: String,
        /// The class the line gives it.
        written: String,
    },
    /// The action cannot happen where the earlier lines left the agent.
    #[error("impossible: {reason}")]
    Impossible {
        /// Why, in the world's names.
        reason: String,
        /// Why, to branch on.
        why: crate::state::Impossible,
    },
}

fn cycle_text(cycle: &[NodeId]) -> String {
    let mut text: Vec<String> = cycle.iter().map(ToString::to_string).collect();
    if let Some(first) = cycle.first() {
        text.push(first.to_string());
    }
    text.join(" INSIDE ")
}
