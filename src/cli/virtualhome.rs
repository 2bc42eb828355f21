//! `bip import virtualhome` and `bip export virtualhome`: VirtualHome scene graphs and
//! programs to episodes and back. The rules live in `bip::episodes::import::virtualhome`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use bip::episodes::import::virtualhome::{export, import, read_graph, ImportOptions};
use bip::episodes::FurnitureKind;
use bip::io::{read_episode, read_input, OutputSet};

use crate::cli::output::Output;

/// Arguments of `bip import virtualhome`.
#[derive(Debug, Args)]
pub struct VirtualhomeArgs {
    /// The scene graph (VirtualHome environment-graph JSON: nodes and edges).
    #[arg(long)]
    graph: PathBuf,
    /// A program bound to the graph: `[Walk] <kitchen> (198)` lines whose numbers are node
    /// ids, optionally led by `<char0>`.
    #[arg(long)]
    script: Option<PathBuf>,
    /// The agent's name, used in questions.
    #[arg(long, default_value = "char0")]
    agent: String,
    /// Reject script lines that would be skipped or completed (actions bip does not model,
    /// things it left out, missing walks) instead of reporting them.
    #[arg(long)]
    strict: bool,
    /// The classes the agent may be after, comma-separated (a class, object id or node
    /// id each); all imported classes by default.
    #[arg(long, value_delimiter = ',', value_name = "CLASS,...")]
    goals: Option<Vec<String>>,
    /// Ask which candidate class the agent is trying to get.
    #[arg(long)]
    ask_goal: bool,
    /// Ask whether the agent, if it wants an OBJECT, thinks one is inside CONTAINER
    /// (classes, episode ids or node ids); may be repeated.
    #[arg(long, value_name = "OBJECT:CONTAINER")]
    ask_belief: Vec<String>,
    /// The episode id [default: the graph file's name without extension].
    #[arg(long)]
    id: Option<String>,
    /// Where to write the episode (`bip-episode/1` JSON).
    #[arg(long, short)]
    out: PathBuf,
    /// Write the import report here (one note a line) instead of to standard error.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// Runs `bip import virtualhome`.
pub fn import_run(args: &VirtualhomeArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let mut outputs = OutputSet::new();
    let episode_slot = outputs.add("--out", &args.out)?;
    let report_slot = args
        .report
        .as_ref()
        .map(|p| outputs.add("--report", p))
        .transpose()?;
    outputs.refuse_inputs(
        [args.graph.as_path()]
            .into_iter()
            .chain(args.script.as_deref()),
    )?;
    let graph_text = read_input(&args.graph)?;
    let script = args.script.as_deref().map(read_input).transpose()?;
    let mut ask_beliefs = Vec::with_capacity(args.ask_belief.len());
    for pair in &args.ask_belief {
        match pair.split_once(':') {
            Some((object, container)) if !object.is_empty() && !container.is_empty() => {
                ask_beliefs.push((object.to_string(), container.to_string()));
            }
            _ => bail!("--ask-belief {pair}: expected OBJECT:CONTAINER, e.g. apple:fridge"),
        }
    }
    let options = ImportOptions {
        id: args.id.clone().unwrap_or_else(|| {
            args.graph.file_stem().map_or_else(
                || "virtualhome".into(),
                |s| s.to_string_lossy().into_owned(),
            )
        }),
        agent: args.agent.clone(),
        strict: args.strict,
        goals: args.goals.clone(),
        ask_goal: args.ask_goal,
        ask_beliefs,
    };
    let graph = read_graph(&graph_text).with_context(|| args.graph.display().to_string())?;
    let imported =
        import(&graph, script.as_deref(), &options).with_context(|| match &args.script {
            Some(s) => format!("{} with {}", args.graph.display(), s.display()),
            None => args.graph.display().to_string(),
        })?;
    let mut text =
        serde_json::to_string_pretty(&imported.file).context("serialising the episode")?;
    text.push('\n');
    outputs.put(episode_slot, text);
    let notes = &imported.report.notes;
    match report_slot {
        Some(slot) => {
            let mut report = String::new();
            for note in notes {
                let _ = writeln!(report, "{note}");
            }
            outputs.put(slot, report);
        }
        None => {
            for note in notes {
                note!("bip: note: {note}");
            }
        }
    }
    out.commit(outputs)?;
    let world = imported.episode.world();
    let containers = world
        .furniture
        .iter()
        .filter(|f| f.kind == FurnitureKind::Container)
        .count();
    note!(
        "bip: imported {} rooms, {containers} containers, {} surfaces, {} objects, {} actions, {} questions ({} notes{}); wrote {}",
        world.rooms.len(),
        world.furniture.len() - containers,
        world.objects.len(),
        imported.episode.actions().len(),
        imported.episode.questions().len(),
        notes.len(),
        args.report
            .as_ref()
            .map(|p| format!(" in {}", p.display()))
            .unwrap_or_default(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `bip export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(subcommand)]
    format: ExportFormat,
}

/// The formats `bip export` writes.
#[derive(Debug, Subcommand)]
enum ExportFormat {
    /// A VirtualHome scene graph and program for the parts bip models (rooms, containers,
    /// surfaces, objects, doors, the agent's start and actions).
    Virtualhome(ExportVirtualhomeArgs),
}

/// Arguments of `bip export virtualhome`.
#[derive(Debug, Args)]
struct ExportVirtualhomeArgs {
    /// The episode (`bip-episode/1` JSON).
    episode: PathBuf,
    /// Where to write the scene graph (JSON).
    #[arg(long)]
    graph_out: PathBuf,
    /// Where to write the program (one `[Action] <class> (id)` line per action).
    #[arg(long)]
    script_out: PathBuf,
}

/// Runs `bip export`.
pub fn export_run(args: &ExportArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    match &args.format {
        ExportFormat::Virtualhome(args) => {
            let mut outputs = OutputSet::new();
            let graph_slot = outputs.add("--graph-out", &args.graph_out)?;
            let script_slot = outputs.add("--script-out", &args.script_out)?;
            outputs.refuse_inputs([args.episode.as_path()])?;
            let episode = read_episode(&args.episode)?;
            let exported = export(&episode);
            let mut graph =
                serde_json::to_string_pretty(&exported.graph).context("serialising the graph")?;
            graph.push('\n');
            outputs.put(graph_slot, graph);
            outputs.put(script_slot, exported.script.clone());
            out.commit(outputs)?;
            note!(
                "bip: wrote {} ({} nodes, {} edges) and {} ({} actions)",
                args.graph_out.display(),
                exported.graph.nodes.len(),
                exported.graph.edges.len(),
                args.script_out.display(),
                episode.actions().len()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
