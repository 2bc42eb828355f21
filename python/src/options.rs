//! Keyword arguments into the library's options: which policy, and the hypothesis space.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use bip::engine::{
    ActionLikelihood, HypothesisConfig, Named, PromptStyle, SearchSets, TokenReduction,
};
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
/// `bip.PolicyError` for a policy name, device, score, likelihood, prompt style or weight
/// storage bip does not know.
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
        "lm_score" => options.reduction = named(key, value)?,
        "lm_likelihood" => options.likelihood = named(key, value)?,
        "prompt_style" => options.style = named(key, value)?,
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

/// `search_sets` by name ([`SearchSets`]'s).
///
/// # Errors
/// `ValueError` for another name.
pub(crate) fn search_sets(name: &str) -> PyResult<SearchSets> {
    SearchSets::from_name(&name.replace('_', "-"))
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("search_sets: {e}")))
}

/// The value of keyword `key` that names one of `T`'s values: its name as the command
/// line spells it, or with `_` for `-` (`bip_alm`), as Python spells names.
fn named<T: Named>(key: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let text: String = value.extract()?;
    T::from_name(&text.replace('_', "-"))
        .map_err(|e| error::PolicyError::new_err(format!("{key}: {e}")))
}

/// Every option that takes a name, by keyword (`policy` for the policy argument), with
/// the names it takes: the ones ``bip infer``'s flags take, read from the library's one
/// table of each option's names.
#[pyfunction]
pub fn option_names() -> BTreeMap<&'static str, Vec<&'static str>> {
    fn names<T: Named>() -> Vec<&'static str> {
        T::VALUES.iter().map(|(_, name, _)| *name).collect()
    }
    BTreeMap::from([
        ("policy", names::<PolicyKind>()),
        ("lm_score", names::<TokenReduction>()),
        ("lm_likelihood", names::<ActionLikelihood>()),
        ("prompt_style", names::<PromptStyle>()),
        ("search_sets", names::<SearchSets>()),
    ])
}

/// The hypothesis space's settings, before search sets.
pub(crate) fn hypotheses(belief_leak: f64, uninformed_weight: f64) -> HypothesisConfig {
    HypothesisConfig {
        belief_leak,
        uninformed_weight,
        ..HypothesisConfig::default()
    }
}
