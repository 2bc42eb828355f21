//! Graph (and program) to episode: the one entry point, [`import`].

use std::collections::{BTreeMap, HashMap};

use crate::episode::Episode;
use crate::json::{
    default_class, AgentFile, DoorFile, EpisodeFile, FurnitureFile, KindFile, ObjectFile,
    WorldFile, FORMAT,
};

use super::doors::join_rooms;
use super::error::VirtualHomeError;
use super::graph::{Graph, GraphFile};
use super::names::name_nodes;
use super::node::NodeId;
use super::play::{LinePlayer, Player};
use super::questions::{Asked, Lookup};
use super::report::{ImportReport, Notes};
use super::scene::Scene;
use super::script::parse_script;

/// How to import: the episode's id, the agent's name, strictness, and questions to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// The episode's id.
    pub id: String,
    /// The agent's name, used in questions; script lines led by `<char0>` or `<NAME>` are
    /// its own.
    pub agent: String,
    /// Reject script lines that would be skipped or completed instead of noting them.
    pub strict: bool,
    /// The classes the agent may be after (`--goals`); `None`: every imported class.
    pub goals: Option<Vec<String>>,
    /// Add a goal question over the candidate classes (`--ask-goal`).
    pub ask_goal: bool,
    /// Add a belief question per `(object, container)` (`--ask-belief OBJECT:CONTAINER`).
    pub ask_beliefs: Vec<(String, String)>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            id: "virtualhome".into(),
            agent: "char0".into(),
            strict: false,
            goals: None,
            ask_goal: false,
            ask_beliefs: Vec::new(),
        }
    }
}

/// An imported episode, as written and validated, with the report of every choice made.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The episode as a `bip-episode/1` file.
    pub file: EpisodeFile,
    /// The same episode, validated and replayed.
    pub episode: Episode,
    /// Every choice the importer made.
    pub report: ImportReport,
    /// The episode id given to each imported node.
    pub names: BTreeMap<NodeId, String>,
    /// Plays further program lines in the imported world, one at a time.
    pub player: LinePlayer,
}

/// Reads a VirtualHome scene graph, and optionally a program bound to it, into an
/// episode, reporting every choice (see the [module docs](super) for the rules).
///
/// # Errors
/// [`VirtualHomeError`] naming the node, edge, script line or flag at fault: a duplicate
/// node id, a node without a class, an edge to a missing node, a circle of INSIDE edges, a
/// graph without rooms, an unreadable or impossible script line (or, with `strict`, one
/// that would be skipped), a question about something not imported.
///
/// # Example
/// ```
/// use bip_episodes::import::virtualhome::{import, read_graph, ImportOptions, NoteKind};
///
/// let graph = read_graph(r#"{"nodes": [
///     {"id": 1, "class_name": "kitchen", "category": "Rooms"},
///     {"id": 2, "class_name": "fridge", "category": "Appliances",
///      "properties": ["CAN_OPEN", "CONTAINERS"], "states": ["CLOSED"]},
///     {"id": 3, "class_name": "apple", "category": "Food", "properties": ["GRABBABLE"]},
///     {"id": 4, "class_name": "character", "category": "Characters"}],
///   "edges": [{"from_id": 2, "relation_type": "INSIDE", "to_id": 1},
///             {"from_id": 3, "relation_type": "INSIDE", "to_id": 2},
///             {"from_id": 4, "relation_type": "INSIDE", "to_id": 1}]}"#)?;
/// let script = "[Walk] <fridge> (2)\n[Open] <fridge> (2)\n[Grab] <apple> (3)\n[SwitchOn] <fridge> (2)";
/// let imported = import(&graph, Some(script), &ImportOptions::default())?;
/// let world = imported.episode.world();
/// assert_eq!(world.furniture[0].name, "fridge");
/// assert_eq!(world.objects[0].name, "apple");
/// assert_eq!(imported.episode.actions().len(), 3);
/// let skipped: Vec<_> = imported.report.of(NoteKind::SkippedAction).collect();
/// assert_eq!(skipped[0].line, Some(4));
/// # Ok::<(), bip_episodes::import::virtualhome::VirtualHomeError>(())
/// ```
pub fn import(
    graph: &GraphFile,
    script: Option<&str>,
    options: &ImportOptions,
) -> Result<Imported, VirtualHomeError> {
    let lines = script.map(parse_script).transpose()?;
    let graph = Graph::new(graph)?;
    let mut notes = Notes::default();
    let scene = Scene::new(&graph, &mut notes)?;
    let names = name_nodes(&graph, &scene.nodes(), &mut notes);
    let doors = join_rooms(&graph, &scene.rooms, &mut notes);
    let name = |n: usize| names.get(&n).cloned().unwrap_or_default();
    let world = world_file(&graph, &scene, &doors, &names);
    let mut file = EpisodeFile {
        format: FORMAT.to_string(),
        id: Some(options.id.clone()),
        description: Some(format!(
            "Imported from a VirtualHome scene graph ({} nodes, {} edges){}.",
            graph.nodes.len(),
            graph.edges.len(),
            if script.is_some() { " and program" } else { "" }
        )),
        world,
        agent: AgentFile {
            name: options.agent.clone(),
            start: name(scene.start),
            goals: None,
        },
        actions: Vec::new(),
        questions: Vec::new(),
    };
    let bare = Episode::from_file(file.clone(), &options.id)?;
    if let Some(lines) = &lines {
        let player = Player {
            world: bare.world(),
            graph: &graph,
            names: &names,
            agent: &options.agent,
            strict: options.strict,
            start: bare.agent().start,
        };
        file.actions = player.play(lines, &mut notes)?;
    }
    let lookup = Lookup {
        world: bare.world(),
        graph: &graph,
        names: &names,
    };
    let (goals, questions) = lookup.ask(&Asked {
        agent: &options.agent,
        goals: options.goals.as_deref(),
        ask_goal: options.ask_goal,
        ask_beliefs: &options.ask_beliefs,
    })?;
    file.agent.goals = goals;
    file.questions = questions;
    let episode = Episode::from_file(file.clone(), &options.id)?;
    let names_by_node = node_names(&graph, &names);
    Ok(Imported {
        file,
        episode,
        report: notes.into_report(),
        names: names_by_node,
        player: LinePlayer::new(graph, names, options.agent.clone(), options.strict),
    })
}

/// The `world` of the episode: the scene's rooms, doors, furniture and objects, each under
/// its node's name, with a class only where the name does not imply it.
fn world_file(
    graph: &Graph,
    scene: &Scene,
    doors: &[(usize, usize, f64)],
    names: &HashMap<usize, String>,
) -> WorldFile {
    let name = |n: usize| names.get(&n).cloned().unwrap_or_default();
    let class_field = |n: usize| {
        let class = &graph.nodes[n].class;
        (default_class(&name(n)) != class).then(|| class.clone())
    };
    WorldFile {
        rooms: scene.rooms.iter().map(|&r| name(r)).collect(),
        doors: Some(
            doors
                .iter()
                .map(|&(a, b, distance)| {
                    let between = [name(scene.rooms[a]), name(scene.rooms[b])];
                    if distance == 1.0 {
                        DoorFile::Pair(between)
                    } else {
                        DoorFile::Weighted { between, distance }
                    }
                })
                .collect(),
        ),
        furniture: scene
            .furniture
            .iter()
            .map(|f| FurnitureFile {
                id: name(f.node),
                class: class_field(f.node),
                room: name(f.room),
                kind: if f.container {
                    KindFile::Container
                } else {
                    KindFile::Surface
                },
                open: f.open,
            })
            .collect(),
        objects: scene
            .objects
            .iter()
            .map(|o| ObjectFile {
                id: name(o.node),
                class: class_field(o.node),
                at: name(o.at),
            })
            .collect(),
        alternatives: Vec::new(),
    }
}

fn node_names(graph: &Graph, names: &HashMap<usize, String>) -> BTreeMap<NodeId, String> {
    names
        .iter()
        .map(|(&n, name)| (graph.nodes[n].id, name.clone()))
        .collect()
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
