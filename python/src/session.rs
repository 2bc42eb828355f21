//! `bip.Session`: a live inference session, fed one action at a time.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use bip::engine::{LiveOptions, LiveSession, Policy};
use bip::episodes::json::{ActionFile, QuestionFile};
use bip::episodes::{Action, FurnitureKind, Observation, Question};
use bip::lab::report::QuestionReport;

use crate::convert::{to_json, to_python};
use crate::episode::Episode;
use crate::error;
use crate::options::{hypotheses, policy_options, search_sets};
use crate::posterior::Posterior;

/// A live inference session over one agent in one world: push its actions as they
/// happen and read the posterior over its goals and beliefs at any moment.
///
/// `Session(episode, policy="planner", **options)` starts where `episode` starts (its
/// own actions are not pushed: push them, or others, as they happen). `policy` is
/// `"planner"`, `"lm"`, `"w2s"` or `"hybrid"`, with `bip infer`'s options as keywords:
/// `beta`, `model`, `adapter`, `large`, `expert`, `expert_adapter`, `naive`, `alpha`,
/// `device`, `lm_score`, `lm_likelihood`, `prompt_style`, `prompt_observations`,
/// `planner_weight`, `lm_weight`, `prune_to`.
/// Pruning (LM policies; `prune_to`, 2 by default when the episode has questions)
/// keeps the hypotheses the planner finds most probable for each option of the
/// episode's questions.
///
/// `search_sets` says where the "thinks it is in one of S" beliefs come from:
/// `"pushed"` (the default: read off the actions pushed so far, so that after every
/// push the posterior is what `bip infer` answers a question asked then from),
/// `"episode"` (read off the episode's own actions: the space of `bip infer --trace`)
/// or `"none"`. `belief_leak` and `uninformed_weight` set the starting beliefs.
///
/// Inference runs without the GIL. A session is used from one thread at a time.
#[pyclass(module = "bip")]
pub struct Session {
    inner: LiveSession,
    episode: Py<Episode>,
    lines: usize,
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (episode, policy = "planner", *, search_sets = "pushed",
                        belief_leak = 0.05, uninformed_weight = 1.0, **options))]
    fn new(
        py: Python<'_>,
        episode: Bound<'_, Episode>,
        policy: &str,
        search_sets: &str,
        belief_leak: f64,
        uninformed_weight: f64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let built = policy_options(policy, options)?;
        let inner_episode = Arc::clone(&episode.get().inner);
        let prune_asked = match options {
            Some(o) => o.contains("prune_to")?,
            None => false,
        };
        let pruning = built
            .pruning()
            .filter(|_| prune_asked || !inner_episode.questions().is_empty());
        let live = LiveOptions {
            hypotheses: hypotheses(belief_leak, uninformed_weight),
            search_sets: self::search_sets(search_sets)?,
            pruning,
        };
        let inner = py.detach(|| -> PyResult<LiveSession> {
            let policy: Arc<dyn Policy> = Arc::from(built.build().map_err(|e| error::policy(&e))?);
            LiveSession::new(inner_episode, policy, live).map_err(|e| error::engine(&e))
        })?;
        Ok(Self {
            inner,
            episode: episode.unbind(),
            lines: 0,
        })
    }

    /// Pushes one action: a `dict` as the episode format writes it (`{"walk_to":
    /// "fridge"}`, `{"put": {"object": "apple_1", "onto": "table"}}`) or a string as
    /// bip describes actions (`"walk_to fridge"`, `"open fridge"`, `"grab apple_1"`,
    /// `"put apple_1 table"`). The action is scored under every hypothesis, applied, and
    /// every belief updated with what the agent then sees.
    ///
    /// Raises `ImpossibleAction` (the session is unchanged) when it cannot happen now,
    /// `EpisodeError` for a name the world lacks, `InferenceError` when the policy fails.
    fn push(&mut self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let action = self.resolve(action)?;
        let inner = &mut self.inner;
        py.detach(|| inner.push(&action))
            .map_err(|e| error::engine(&e))
    }

    /// Pushes every action of `actions` in turn (see `push`); the ones before a failure
    /// stay pushed.
    fn push_all(&mut self, py: Python<'_>, actions: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        actions.iter().try_for_each(|a| self.push(py, a))
    }

    /// Pushes what one VirtualHome program line (`"[Open] <fridge> (285)"`, node ids of
    /// the graph the episode was imported from) does, by the rules of `bip import
    /// virtualhome`: a walk added first when the agent is elsewhere, a line bip does not
    /// model skipped. Lines are numbered from 1 in the order given. Returns `{"line",
    /// "actions": [pushed, as bip describes them], "notes": [what was chosen]}`.
    ///
    /// Raises `EpisodeError` for an episode not imported from a VirtualHome graph or a
    /// line that cannot be read or played, and as `push`.
    fn push_line<'py>(&mut self, py: Python<'py>, line: &str) -> PyResult<Bound<'py, PyDict>> {
        let Some(player) = self.episode.get().player.clone() else {
            return Err(error::EpisodeError::new_err(format!(
                "episode {}: not imported from a VirtualHome graph, so it has no program lines to play",
                self.inner.episode().id()
            )));
        };
        let number = self.lines + 1;
        let world = self.inner.episode().world();
        let played = player
            .play(world, self.inner.state(), number, line)
            .map_err(|e| error::episode(&e))?;
        let inner = &mut self.inner;
        py.detach(|| inner.push_all(&played.actions))
            .map_err(|e| error::engine(&e))?;
        self.lines = number;
        let world = self.inner.episode().world();
        let result = PyDict::new(py);
        result.set_item("line", number)?;
        let actions: Vec<String> = played.actions.iter().map(|a| a.describe(world)).collect();
        result.set_item("actions", actions)?;
        let notes: Vec<String> = played.notes.iter().map(ToString::to_string).collect();
        result.set_item("notes", notes)?;
        Ok(result)
    }

    /// Adds an observation beyond what pushes show (a glimpse through a door): the
    /// containers and surfaces whose whole contents the agent saw (`visible`) and the
    /// objects it saw there (`seen`: `{object: place}`), in `room` (by default the room
    /// it is in).
    ///
    /// Raises `EpisodeError` for a name the world lacks or an object seen in a place not
    /// visible.
    #[pyo3(signature = (visible, seen = None, room = None))]
    fn observe(
        &mut self,
        py: Python<'_>,
        visible: Vec<String>,
        seen: Option<Vec<(String, String)>>,
        room: Option<String>,
    ) -> PyResult<()> {
        let observation = self.observation(&visible, seen.unwrap_or_default(), room)?;
        let inner = &mut self.inner;
        py.detach(|| inner.observe(&observation));
        Ok(())
    }

    /// The posterior now, with the `top` most probable joint hypotheses.
    #[pyo3(signature = (top = 5))]
    fn posterior(&self, py: Python<'_>, top: usize) -> Posterior {
        let inner = &self.inner;
        py.detach(|| Posterior::new(&inner.posterior(), inner.steps(), top))
    }

    /// Answers a question from the posterior now: the index of one of the episode's
    /// questions, or a question as the episode format writes it (`{"options": [{"goal":
    /// "apple"}, {"goal": "book"}]}`, a `dict` or JSON text). Returns what `bip infer
    /// --json` reports for a question: `{"id", "at", "answer", "posterior",
    /// "probability", "margin", ...}`.
    ///
    /// Raises `EpisodeError` for a question naming what the world lacks, `IndexError`
    /// for an index past the episode's questions.
    fn answer<'py>(
        &self,
        py: Python<'py>,
        question: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let question = self.question(question)?;
        let inner = &self.inner;
        let answer = py.detach(|| inner.answer(&question));
        to_python(py, &QuestionReport::new(&question, &answer, 0.0))
    }

    /// How many actions have been pushed.
    #[getter]
    fn steps(&self) -> usize {
        self.inner.steps()
    }

    /// The actions pushed, as bip describes them (`"walk_to fridge"`).
    #[getter]
    fn actions(&self) -> Vec<String> {
        let world = self.inner.episode().world();
        self.inner
            .actions()
            .iter()
            .map(|a| a.describe(world))
            .collect()
    }

    /// The true state now: `{"room", "at" (furniture or None), "open": [containers],
    /// "held": [objects], "objects": {object: place or None while held}}`.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let world = self.inner.episode().world();
        let state = self.inner.state();
        let result = PyDict::new(py);
        result.set_item("room", &world.room(state.room).name)?;
        result.set_item("at", state.at.map(|f| &world.furniture(f).name))?;
        let open: Vec<&String> = world
            .furniture_ids()
            .filter(|f| {
                state.open[f.index()] && world.furniture(*f).kind == FurnitureKind::Container
            })
            .map(|f| &world.furniture(f).name)
            .collect();
        result.set_item("open", open)?;
        let held: Vec<&String> = state.held().map(|o| &world.object(o).name).collect();
        result.set_item("held", held)?;
        let objects = PyDict::new(py);
        for (object, at) in world.objects.iter().zip(&state.object_at) {
            objects.set_item(&object.name, at.map(|f| &world.furniture(f).name))?;
        }
        result.set_item("objects", objects)?;
        Ok(result)
    }

    /// How many joint hypotheses the session holds.
    #[getter]
    fn hypothesis_count(&self) -> usize {
        self.inner.hypothesis_count()
    }

    /// The "thinks it is in one of S" starting beliefs of the hypothesis space now, each
    /// a list of furniture (search sets of two places or more).
    #[getter]
    fn search_sets(&self) -> Vec<Vec<String>> {
        let world = self.inner.episode().world();
        self.inner
            .search_sets()
            .iter()
            .map(|set| {
                set.iter()
                    .map(|f| world.furniture(*f).name.clone())
                    .collect()
            })
            .collect()
    }

    /// How many times the hypothesis space changed (its new hypotheses scored over the steps before).
    #[getter]
    fn rebuilds(&self) -> usize {
        self.inner.rebuilds()
    }

    /// The policy's name.
    #[getter]
    fn policy(&self) -> String {
        self.inner.policy().name().to_string()
    }

    /// The episode the session follows.
    #[getter]
    fn episode(&self, py: Python<'_>) -> Py<Episode> {
        self.episode.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<bip.Session over {:?}: {} steps, {} hypotheses, policy {}>",
            self.inner.episode().id(),
            self.inner.steps(),
            self.inner.hypothesis_count(),
            self.inner.policy().name()
        )
    }
}

impl Session {
    /// The action `action` (a dict or a description) in the session's world now.
    fn resolve(&self, action: &Bound<'_, PyAny>) -> PyResult<Action> {
        let file = match action.cast::<PyString>() {
            Ok(text) => described(text.to_str()?)?,
            Err(_) => serde_json::from_str::<ActionFile>(&to_json(action)?)
                .map_err(|e| error::EpisodeError::new_err(format!("action: {e}")))?,
        };
        let episode = self.inner.episode();
        Action::from_file(&file, episode.world(), self.inner.state())
            .map_err(|e| error::episode(&e))
    }

    /// The question `question` (an index or a question document).
    fn question(&self, question: &Bound<'_, PyAny>) -> PyResult<Question> {
        let episode = self.inner.episode();
        if let Ok(index) = question.extract::<usize>() {
            return episode.questions().get(index).cloned().ok_or_else(|| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "question {index}: the episode has {} questions",
                    episode.questions().len()
                ))
            });
        }
        let file: QuestionFile = serde_json::from_str(&to_json(question)?)
            .map_err(|e| error::EpisodeError::new_err(format!("question: {e}")))?;
        Question::from_file(&file, episode.world(), self.inner.steps())
            .map_err(|e| error::episode(&e))
    }

    /// An observation from names.
    fn observation(
        &self,
        visible: &[String],
        seen: Vec<(String, String)>,
        room: Option<String>,
    ) -> PyResult<Observation> {
        let world = self.inner.episode().world();
        let unknown = |field: String, what: &str, name: &str| {
            error::EpisodeError::new_err(format!("observe: {field}: no {what} is named \"{name}\""))
        };
        let room = match room {
            Some(name) => world
                .room_by_name(&name)
                .ok_or_else(|| unknown("room".into(), "room", &name))?,
            None => self.inner.state().room,
        };
        let mut places = Vec::with_capacity(visible.len());
        for (i, name) in visible.iter().enumerate() {
            let place = world
                .furniture_by_name(name)
                .ok_or_else(|| unknown(format!("visible[{i}]"), "container or surface", name))?;
            places.push(place);
        }
        places.sort_unstable();
        places.dedup();
        let mut objects = Vec::with_capacity(seen.len());
        for (object, at) in seen {
            let o = world
                .object_by_name(&object)
                .ok_or_else(|| unknown(format!("seen[{object:?}]"), "object", &object))?;
            let place = world
                .furniture_by_name(&at)
                .filter(|p| places.contains(p))
                .ok_or_else(|| {
                    error::EpisodeError::new_err(format!(
                        "observe: seen[{object:?}]: \"{at}\" is not among the visible places"
                    ))
                })?;
            objects.push((o, place));
        }
        Ok(Observation {
            room,
            visible: places,
            seen: objects,
        })
    }
}

/// An action as bip describes it (`walk_to fridge`, `put apple_1 table`).
fn described(text: &str) -> PyResult<ActionFile> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let name = |s: &str| s.to_string();
    Ok(match words.as_slice() {
        ["walk_to", place] => ActionFile::WalkTo(name(place)),
        ["open", place] => ActionFile::Open(name(place)),
        ["close", place] => ActionFile::Close(name(place)),
        ["grab", object] => ActionFile::Grab(name(object)),
        ["put", object, onto] => ActionFile::Put {
            object: name(object),
            onto: name(onto),
        },
        _ => {
            return Err(error::EpisodeError::new_err(format!(
                "action \"{text}\": expected walk_to PLACE, open CONTAINER, close CONTAINER, \
                 grab OBJECT or put OBJECT PLACE"
            )))
        }
    })
}
