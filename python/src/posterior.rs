//! `bip.Posterior`: a session's posterior at one moment, as plain data and numpy arrays.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use bip::engine::Posterior as Inner;
use bip::lab::report::HypothesisReport;

use crate::convert::to_python;

/// The posterior of a `Session` after some step: over goals, over what the agent
/// thinks of where its goal is, and the most probable joint hypotheses. A snapshot: it
/// does not change when the session goes on.
///
/// `goals` and `beliefs` come as plain data (`goals`, `to_dict()`) or numpy arrays
/// (`goal_probabilities`, `beliefs`), rows in the order of `goal_names` and columns in
/// the order of `places`.
#[pyclass(module = "bip", frozen)]
pub struct Posterior {
    step: usize,
    goal_names: Vec<String>,
    goal_probabilities: Vec<f64>,
    places: Vec<String>,
    beliefs: Vec<Option<Vec<f64>>>,
    top: Vec<HypothesisReport>,
    log_evidence: f64,
}

impl Posterior {
    /// The snapshot of `posterior` after `step` actions, with its `top` joint hypotheses.
    pub(crate) fn new(posterior: &Inner<'_>, step: usize, top: usize) -> Self {
        let world = posterior.world();
        let goals = posterior.goals();
        Self {
            step,
            goal_names: goals
                .iter()
                .map(|(c, _)| world.class_name(*c).to_string())
                .collect(),
            goal_probabilities: goals.iter().map(|(_, p)| *p).collect(),
            places: world.furniture.iter().map(|f| f.name.clone()).collect(),
            beliefs: posterior
                .beliefs_given_goals()
                .into_iter()
                .map(|(_, row)| row)
                .collect(),
            top: posterior
                .top(top)
                .iter()
                .map(|h| HypothesisReport::new(world, h))
                .collect(),
            log_evidence: posterior.log_evidence(),
        }
    }

    fn goal_index(&self, goal: &str) -> PyResult<usize> {
        self.goal_names
            .iter()
            .position(|g| g == goal)
            .ok_or_else(|| {
                pyo3::exceptions::PyKeyError::new_err(format!("\"{goal}\" is not a goal candidate"))
            })
    }
}

#[pymethods]
impl Posterior {
    /// How many actions had been pushed.
    #[getter]
    fn step(&self) -> usize {
        self.step
    }

    /// P(goal) for each candidate goal, in the session's order: `{class: probability}`.
    #[getter]
    fn goals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let goals = PyDict::new(py);
        for (name, p) in self.goal_names.iter().zip(&self.goal_probabilities) {
            goals.set_item(name, p)?;
        }
        Ok(goals)
    }

    /// The candidate goals, in order: the rows of `beliefs`.
    #[getter]
    fn goal_names(&self) -> Vec<String> {
        self.goal_names.clone()
    }

    /// P(goal) as a numpy array, in the order of `goal_names`.
    #[getter]
    fn goal_probabilities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.goal_probabilities.clone().into_pyarray(py)
    }

    /// The containers and surfaces, in order: the columns of `beliefs`.
    #[getter]
    fn places(&self) -> Vec<String> {
        self.places.clone()
    }

    /// P(the agent thinks an object of class g is inside place p | it wants g), as a
    /// numpy array of goals × places (rows `goal_names`, columns `places`) — the claim of
    /// a belief question under its usual condition. A goal with no posterior mass has a
    /// row of NaN (the condition is impossible).
    #[getter]
    fn beliefs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (rows, columns) = (self.beliefs.len(), self.places.len());
        let mut flat = Vec::with_capacity(rows * columns);
        for row in &self.beliefs {
            match row {
                Some(row) => flat.extend_from_slice(row),
                None => flat.extend(std::iter::repeat_n(f64::NAN, columns)),
            }
        }
        let array = Array2::from_shape_vec((rows, columns), flat)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// P(`goal`).
    ///
    /// Raises `KeyError` for a class that is not a goal candidate.
    fn goal(&self, goal: &str) -> PyResult<f64> {
        Ok(self.goal_probabilities[self.goal_index(goal)?])
    }

    /// P(the agent thinks an object of class `goal` is inside `place` | it wants `goal`);
    /// `None` when `goal` has no posterior mass.
    ///
    /// Raises `KeyError` for a class that is not a goal candidate or an unknown place.
    fn belief(&self, goal: &str, place: &str) -> PyResult<Option<f64>> {
        let row = self.goal_index(goal)?;
        let column = self.places.iter().position(|p| p == place).ok_or_else(|| {
            pyo3::exceptions::PyKeyError::new_err(format!("\"{place}\" is no container or surface"))
        })?;
        Ok(self.beliefs[row].as_ref().map(|r| r[column]))
    }

    /// The most probable joint hypotheses, most probable first, as `bip infer --trace
    /// --json` lists them: `{"goal", "initially_thought", "now_thinks", "probability"}`.
    #[getter]
    fn top<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.top)
    }

    /// The log of the total unnormalised posterior mass: the log evidence of the actions.
    #[getter]
    fn log_evidence(&self) -> f64 {
        self.log_evidence
    }

    /// Everything as plain Python data: `{"step", "goals", "beliefs": {goal: {place: p}
    /// or None}, "top", "log_evidence"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let beliefs = PyDict::new(py);
        for (goal, row) in self.goal_names.iter().zip(&self.beliefs) {
            match row {
                Some(row) => {
                    let places = PyDict::new(py);
                    for (place, p) in self.places.iter().zip(row) {
                        places.set_item(place, p)?;
                    }
                    beliefs.set_item(goal, places)?;
                }
                None => beliefs.set_item(goal, py.None())?,
            }
        }
        let all = PyDict::new(py);
        all.set_item("step", self.step)?;
        all.set_item("goals", self.goals(py)?)?;
        all.set_item("beliefs", beliefs)?;
        all.set_item("top", self.top(py)?)?;
        all.set_item("log_evidence", self.log_evidence)?;
        Ok(all)
    }

    fn __repr__(&self) -> String {
        let mut ranked: Vec<(&String, f64)> = self
            .goal_names
            .iter()
            .zip(self.goal_probabilities.iter().copied())
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let best: Vec<String> = ranked
            .iter()
            .take(3)
            .map(|(g, p)| format!("{g} {p:.3}"))
            .collect();
        format!("<bip.Posterior step {}: {}>", self.step, best.join(", "))
    }
}
