//! `bip.Episode` and the importers: bip-episode/1 JSON, VirtualHome graphs and
//! programs, MMToM-QA text questions.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyString;

use bip::episodes::import::mmtom::read_record;
use bip::episodes::import::virtualhome::{import, read_graph, ImportOptions, LinePlayer};
use bip::episodes::Episode as Inner;

use crate::convert::{from_json, to_json, to_python};
use crate::error;

/// An episode: a world (rooms, containers and surfaces, objects and where they start),
/// an agent with where it starts and the goals it may have, its actions, and questions
/// about it. Always valid: every name is resolved and every action replayed when it is
/// read.
///
/// Made by `Episode.from_json`, `Episode.from_path`, `Episode.from_virtualhome` or
/// `bip.import_mmtom`. An episode without actions is a world to run a live `Session`
/// in.
#[pyclass(module = "bip", frozen)]
pub struct Episode {
    pub(crate) inner: Arc<Inner>,
    /// Plays VirtualHome program lines in this world, for episodes imported from a
    /// VirtualHome graph.
    pub(crate) player: Option<Arc<LinePlayer>>,
    notes: Vec<String>,
    node_names: BTreeMap<u64, String>,
}

impl Episode {
    fn plain(inner: Inner) -> Self {
        Self {
            inner: Arc::new(inner),
            player: None,
            notes: Vec::new(),
            node_names: BTreeMap::new(),
        }
    }
}

#[pymethods]
impl Episode {
    /// Reads an episode from `bip-episode/1` JSON: a `str` of JSON, or the same as
    /// Python values (a `dict`). `id` names it when the document has no `id`.
    ///
    /// Raises `EpisodeError` naming the JSON path of the field at fault.
    #[staticmethod]
    #[pyo3(signature = (document, id = "episode"))]
    fn from_json(py: Python<'_>, document: &Bound<'_, PyAny>, id: &str) -> PyResult<Self> {
        let text = to_json(document)?;
        let inner = py
            .detach(|| Inner::from_json(&text, id))
            .map_err(|e| error::episode(&e))?;
        Ok(Self::plain(inner))
    }

    /// Reads an episode file (`bip-episode/1` JSON); its name without extension names
    /// the episode when it has no `id`.
    ///
    /// Raises `EpisodeError` naming the file and the field at fault.
    #[staticmethod]
    fn from_path(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py
            .detach(|| bip::io::read_episode(&path))
            .map_err(|e| error::episode(&e))?;
        Ok(Self::plain(inner))
    }

    /// Reads a VirtualHome environment graph (`{"nodes": [...], "edges": [...]}`, as a
    /// `dict` — `EnvironmentGraph.to_dict()` — or JSON text) and optionally a program
    /// bound to it (`"[Walk] <kitchen> (198)"` lines, numbers being node ids: one
    /// string, or a list of lines), as `bip import virtualhome` does. Every choice the
    /// importer made is in `notes`.
    ///
    /// `goals` limits the classes the agent may want; `ask_goal` adds a question over
    /// them; `ask_beliefs` adds, per `(object, container)`, a question whether — wanting
    /// the object — the agent thinks one is inside the container. `strict` rejects
    /// program lines that would be skipped or completed.
    ///
    /// Raises `EpisodeError` naming the node, edge or program line at fault.
    #[staticmethod]
    #[pyo3(signature = (graph, script = None, *, id = "virtualhome", agent = "char0",
                        strict = false, goals = None, ask_goal = false,
                        ask_beliefs = Vec::new()))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, each with a default.
    fn from_virtualhome(
        py: Python<'_>,
        graph: &Bound<'_, PyAny>,
        script: Option<&Bound<'_, PyAny>>,
        id: &str,
        agent: &str,
        strict: bool,
        goals: Option<Vec<String>>,
        ask_goal: bool,
        ask_beliefs: Vec<(String, String)>,
    ) -> PyResult<Self> {
        let graph = to_json(graph)?;
        let script = script.map(program_text).transpose()?;
        let options = ImportOptions {
            id: id.to_string(),
            agent: agent.to_string(),
            strict,
            goals,
            ask_goal,
            ask_beliefs,
        };
        let imported = py
            .detach(|| {
                let graph = read_graph(&graph)?;
                import(&graph, script.as_deref(), &options)
            })
            .map_err(|e| error::episode(&e))?;
        Ok(Self {
            inner: Arc::new(imported.episode),
            player: Some(Arc::new(imported.player)),
            notes: imported
                .report
                .notes
                .iter()
                .map(ToString::to_string)
                .collect(),
            node_names: imported
                .names
                .into_iter()
                .map(|(node, name)| (node.0, name))
                .collect(),
        })
    }

    /// The episode as `bip-episode/1` JSON text.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The episode as Python values (the `bip-episode/1` document as a `dict`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        from_json(py, &self.inner.to_json())
    }

    /// Every reading of the episode's world (the first as written), each without
    /// alternatives: a live `Session` follows one.
    fn readings(&self) -> Vec<Episode> {
        self.inner.readings().into_iter().map(Self::plain).collect()
    }

    /// The episode's id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }

    /// Its description, if any.
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description()
    }

    /// The agent's name.
    #[getter]
    fn agent(&self) -> &str {
        &self.inner.agent().name
    }

    /// The room the agent starts in.
    #[getter]
    fn start(&self) -> &str {
        &self.inner.world().room(self.inner.agent().start).name
    }

    /// Room names, in order.
    #[getter]
    fn rooms(&self) -> Vec<String> {
        let world = self.inner.world();
        world.rooms.iter().map(|r| r.name.clone()).collect()
    }

    /// Containers and surfaces, in order: `{"id", "class", "room", "kind", "open"}`.
    #[getter]
    fn furniture<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let file = self.inner.to_file();
        to_python(py, &file.world.furniture)
    }

    /// Objects, in order: `{"id", "class", "at"}` (where they start).
    #[getter]
    fn objects<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let file = self.inner.to_file();
        to_python(py, &file.world.objects)
    }

    /// Object classes, in order (goals and beliefs are about classes).
    #[getter]
    fn classes(&self) -> Vec<String> {
        let world = self.inner.world();
        world
            .class_ids()
            .map(|c| world.class_name(c).to_string())
            .collect()
    }

    /// The classes the agent may want.
    #[getter]
    fn goal_candidates(&self) -> Vec<String> {
        let world = self.inner.world();
        let goals = self.inner.goal_candidates();
        goals
            .iter()
            .map(|c| world.class_name(*c).to_string())
            .collect()
    }

    /// The actions, as the episode format writes them (`{"walk_to": "fridge"}`): each
    /// can be given to `Session.push`.
    #[getter]
    fn actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.to_file().actions)
    }

    /// The questions, as the episode format writes them.
    #[getter]
    fn questions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.to_file().questions)
    }

    /// What the importer chose where its source did not say (VirtualHome imports); empty
    /// otherwise.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    /// VirtualHome imports: the episode id of each imported graph node, by node id.
    #[getter]
    fn node_names(&self) -> BTreeMap<u64, String> {
        self.node_names.clone()
    }

    fn __repr__(&self) -> String {
        let world = self.inner.world();
        format!(
            "<bip.Episode {:?}: {} rooms, {} furniture, {} objects, {} actions, {} questions>",
            self.inner.id(),
            world.rooms.len(),
            world.furniture.len(),
            world.objects.len(),
            self.inner.actions().len(),
            self.inner.questions().len()
        )
    }
}

/// A program: one string, or a list of lines joined into one.
fn program_text(script: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = script.cast::<PyString>() {
        return Ok(text.to_str()?.to_string());
    }
    let lines: Vec<String> = script.extract()?;
    Ok(lines.join("\n"))
}

/// Reads one MMToM-QA text question — a record of the benchmark's JSONL (`{"question",
/// "answer", "question_type", "episode"}`, as a `dict` or a JSON line) — into an
/// episode with its question, deterministically, as `bip import mmtom` does. `index`
/// numbers the episode id (`mmtom-<episode>-<index>`).
///
/// Text that allows several worlds gives an episode with several readings (see
/// `Episode.readings`); `bip.infer` weighs them. Raises `EpisodeError` naming the
/// sentence and phrase that could not be read.
#[pyfunction]
#[pyo3(signature = (record, index = 1))]
pub fn import_mmtom(py: Python<'_>, record: &Bound<'_, PyAny>, index: usize) -> PyResult<Episode> {
    let line = to_json(record)?;
    let record = py
        .detach(|| read_record(&line, index))
        .map_err(|e| error::episode(&e))?;
    Ok(Episode {
        notes: record
            .notes
            .iter()
            .map(|n| format!("{}: \"{}\": {}", n.part, n.sentence, n.reading))
            .collect(),
        ..Episode::plain(record.episode)
    })
}
