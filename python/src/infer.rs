//! `bip.infer`: batch inference over a whole episode, as `bip infer` runs it.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use bip::engine::{infer_episode, BatchOptions};
use bip::lab::report::EpisodeReport;

use crate::convert::to_python;
use crate::episode::Episode;
use crate::error;
use crate::options::policy_options;

/// Answers every question of `episode` after the actions it names, as `bip infer`
/// does, and returns its report for the episode as `bip infer --json` writes it:
/// `{"id", "policy", "questions": [{"id", "at", "answer", "posterior", "probability",
/// "margin", "expected", "correct", "cost"}], "trace": [...], "readings": [...]}`.
///
/// An episode with several readings of its world is answered by weighing them.
/// `trace_top` adds the posterior after every step with that many joint hypotheses
/// (`bip infer --trace --trace-top N`); `abstain_below` answers `None` when the two best
/// options are closer. The policy options are `Session`'s (`prune_to` is 2 by default
/// for LM policies, as on the command line).
#[pyfunction]
#[pyo3(signature = (episode, policy = "planner", *, trace_top = None, abstain_below = 0.0,
                    **options))]
pub fn infer<'py>(
    py: Python<'py>,
    episode: &Bound<'py, Episode>,
    policy: &str,
    trace_top: Option<usize>,
    abstain_below: f64,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let built = policy_options(policy, options)?;
    let episode = &episode.get().inner;
    let report = py.detach(|| -> PyResult<EpisodeReport> {
        let policy = built.build().map_err(|e| error::policy(&e))?;
        let batch = BatchOptions {
            trace_top,
            pruning: built.pruning(),
            ..BatchOptions::default()
        };
        let inference =
            infer_episode(episode, policy.as_ref(), &batch).map_err(|e| error::engine(&e))?;
        Ok(EpisodeReport::new(
            episode,
            &inference,
            policy.name(),
            None,
            abstain_below,
        ))
    })?;
    to_python(py, &report)
}
