//! Keyword arguments into the library's options: which policy, and the hypothesis space.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use bip::engine::{ActionLikelihood, HypothesisConfig, PromptStyle, SearchSets, TokenReduction};
use bip::policy::{PolicyKind, PolicyOptions};

use crate::error;

/// The policy keyword arguments, as `bip infer`'s flags name them (with `_` for `-`).
pub(crate) const POLICY_KEYWORDS: [&str; 18] = [
    "beta",
    "model",
    "adapter",
    "large",
    "expert",
    "expert_adapter",
    "naive",
    "alpha",
    "device",
    "lm_score",
    "lm_likelihood",
    "prompt_style",
    "prompt_observations",
    "planner_weight",
    "lm_weight",
    "prune_to",
    "max_context",
    "lm_weights",
];

/// The policy `policy` with the options of `kwargs` (the defaults of `bip infer` for
/// those not given).
///
/// # Errors
/// `TypeError` for a keyword that is not a policy option or a value of the wrong type;
/// `bip.PolicyError` for a policy name, device, score or prompt style bip does not know.
pub(crate) fn policy_options(
    policy: &str,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<PolicyOptions> {
    let mut options = PolicyOptions {
        kind: policy
            .parse::<PolicyKind>()
            .map_err(|e| error::policy(&e))?,
        ..PolicyOptions::default()
    };
    let Some(kwargs) = kwargs else {
        return Ok(options);
    };
    for (key, value) in kwargs.iter() {
        let key: String = key.extract()?;
        set(&mut options, &key, &value)?;
    }
    Ok(options)
}

/// Sets option `key` to `value`.
fn set(options: &mut PolicyOptions, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let unknown = |what: &str, allowed: &str| {
        let text: String = value.str().map(|s| s.to_string()).unwrap_or_default();
        error::PolicyError::new_err(format!(
            "{key} = \"{text}\": not a {what} bip knows (expected {allowed})"
        ))
    };
    match key {
        "beta" => options.beta = value.extract()?,
        "model" => options.model = value.extract()?,
        "adapter" => options.adapter = value.extract::<Option<PathBuf>>()?,
        "large" => options.large = value.extract()?,
        "expert" => options.expert = value.extract()?,
        "expert_adapter" => options.expert_adapter = value.extract::<Option<PathBuf>>()?,
        "naive" => options.naive = value.extract()?,
        "alpha" => options.alpha = value.extract()?,
        "device" => {
            let text: String = value.extract()?;
            options.device = text.parse().map_err(|e| error::policy(&e))?;
        }
        "lm_score" => {
            options.reduction = match value.extract::<String>()?.as_str() {
                "mean" => TokenReduction::Mean,
                "sum" => TokenReduction::Sum,
                _ => return Err(unknown("score", "mean or sum")),
            }
        }
        "lm_likelihood" => {
            options.likelihood = match value.extract::<String>()?.as_str() {
                "text" => ActionLikelihood::Text,
                "choice" => ActionLikelihood::Choice,
                _ => return Err(unknown("likelihood", "text or choice")),
            }
        }
        "prompt_style" => {
            options.style = match value.extract::<String>()?.as_str() {
                "bip" => PromptStyle::Bip,
                "bip-alm" | "bip_alm" => PromptStyle::BipAlm,
                _ => return Err(unknown("prompt style", "bip or bip-alm")),
            }
        }
        "prompt_observations" => options.prompt_observations = value.extract()?,
        "planner_weight" => options.planner_weight = value.extract()?,
        "lm_weight" => options.lm_weight = value.extract()?,
        "prune_to" => options.prune_to = value.extract()?,
        "max_context" => options.max_context = value.extract()?,
        "lm_weights" => {
            let text: String = value.extract()?;
            options.weights = text.parse().map_err(|e| error::policy(&e))?;
        }
        _ => {
            return Err(PyTypeError::new_err(format!(
                "unexpected keyword argument '{key}' (policy options: {})",
                POLICY_KEYWORDS.join(", ")
            )))
        }
    }
    Ok(())
}

/// `search_sets` by name: `pushed`, `episode` or `none`.
///
/// # Errors
/// `ValueError` for another name.
pub(crate) fn search_sets(name: &str) -> PyResult<SearchSets> {
    match name {
        "pushed" => Ok(SearchSets::Pushed),
        "episode" => Ok(SearchSets::Episode),
        "none" => Ok(SearchSets::None),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "search_sets = \"{name}\": expected \"pushed\", \"episode\" or \"none\""
        ))),
    }
}

/// The hypothesis space's settings, before search sets.
pub(crate) fn hypotheses(belief_leak: f64, uninformed_weight: f64) -> HypothesisConfig {
    HypothesisConfig {
        belief_leak,
        uninformed_weight,
        ..HypothesisConfig::default()
    }
}
