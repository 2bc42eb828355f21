//! Policies built from options — the planner, a language model (with a LoRA adapter),
//! weak-to-strong steering, or the planner and a language model together — as
//! `bip infer --policy ...` and the Python bindings build them.
//!
//! ```
//! use bip_adapters::policy::{PolicyKind, PolicyOptions};
//!
//! let options = PolicyOptions { beta: 2.0, ..PolicyOptions::default() };
//! let policy = options.build()?;
//! assert_eq!(policy.name(), "planner");
//! assert_eq!(options.pruning(), None, "the planner scores every hypothesis");
//! assert_eq!("w2s".parse::<PolicyKind>()?, PolicyKind::W2s);
//! # Ok::<(), bip_adapters::policy::PolicyError>(())
//! ```

mod error;
mod load;
mod serving;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use bip_engine::{
    ActionLikelihood, HybridPolicy, LmPolicy, Named, PlannerPolicy, Policy, PromptStyle,
    PromptTemplate, Pruning, TextScorer, TokenReduction, DEFAULT_BETA,
};
use bip_episodes::limits::number;
use bip_lab::calibrate::{LmSettings, Steering};
use bip_models::{
    Device, Endpoint, LoadOptions, ScoreCache, WeightStorage, DEFAULT_MAX_CONTEXT,
    MAX_CONTEXT_LIMIT, MAX_W2S_ALPHA,
};

pub use error::PolicyError;
pub use load::load_model;
pub use serving::{ServingOptions, MAX_CONCURRENCY};

use crate::cached::TokenScorer;
use crate::remote_w2s::WidestBound;
use load::{Large, Single, W2s};

/// The largest hybrid weight: a log-likelihood scaled by more only overflows.
pub const MAX_HYBRID_WEIGHT: f64 = 1000.0;

/// Which model of the agent scores its actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PolicyKind {
    /// The symbolic Boltzmann-rational belief-space planner (no weights).
    #[default]
    Planner,
    /// A causal language model scores each action's text (BIP-ALM's way).
    Lm,
    /// Weak-to-strong: a large LM steered by a small expert against its naive twin.
    W2s,
    /// The product of the planner and a language model.
    Hybrid,
}

impl Named for PolicyKind {
    const WHAT: &'static str = "policy";
    const VALUES: &'static [(Self, &'static str, &'static str)] = &[
        (
            Self::Planner,
            "planner",
            "Symbolic Boltzmann-rational belief-space planner (no weights)",
        ),
        (
            Self::Lm,
            "lm",
            "A causal language model scores each action's text (BIP-ALM's way)",
        ),
        (
            Self::W2s,
            "w2s",
            "Weak-to-strong: a large LM steered by a small expert against its naive twin",
        ),
        (
            Self::Hybrid,
            "hybrid",
            "Product of the planner and a language model (weights --planner-weight, --lm-weight)",
        ),
    ];
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PolicyKind {
    type Err = PolicyError;

    fn from_str(s: &str) -> Result<Self, PolicyError> {
        Self::from_name(s).map_err(PolicyError::UnknownKind)
    }
}

/// Everything that says which policy to build: the flags of `bip infer` and `bip eval`.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyOptions {
    /// Which policy.
    pub kind: PolicyKind,
    /// Rationality β of the planner (also the planner that proposes hypotheses when
    /// pruning): 0 acts at random, larger is closer to optimal.
    pub beta: f64,
    /// The planner's search spread ([`PlannerPolicy::with_search_spread`]), in [0, 1].
    pub search_spread: f64,
    /// The language model of `lm` and `hybrid` (unless the hybrid's is steered: `large`
    /// given): a GGUF file, a Hugging Face folder, or an alias (`smollm2-135m`).
    pub model: String,
    /// A PEFT LoRA adapter folder merged into `model`.
    pub adapter: Option<PathBuf>,
    /// Weak-to-strong: the large model L. Given with `hybrid`, the hybrid's language
    /// model is L steered by the expert and the naive model.
    pub large: Option<String>,
    /// Weak-to-strong: the small expert E (post-trained).
    pub expert: Option<String>,
    /// Weak-to-strong: a PEFT LoRA adapter that makes the expert from its base model.
    pub expert_adapter: Option<PathBuf>,
    /// Weak-to-strong: the small naive model N (the expert before post-training).
    pub naive: Option<String>,
    /// Weak-to-strong steering strength α in s_L + α (s_E − s_N).
    pub alpha: f64,
    /// Where language models run.
    pub device: Device,
    /// How token log-probabilities become an action's score.
    pub reduction: TokenReduction,
    /// What an action's LM score is a probability of: its text, or the action as one
    /// choice among the state's possible actions.
    pub likelihood: ActionLikelihood,
    /// Wording of the LM prompts.
    pub style: PromptStyle,
    /// Whether LM prompts say what the agent has seen so far
    /// ([`PromptTemplate::observations`]).
    pub prompt_observations: bool,
    /// Hybrid: weight of the planner's log-likelihood.
    pub planner_weight: f64,
    /// Hybrid: weight of the LM's log-likelihood.
    pub lm_weight: f64,
    /// LM policies: score only this many hypotheses per answer option, the ones the
    /// planner finds most probable (0: every hypothesis).
    pub prune_to: usize,
    /// LM policies: the longest sequence a model runs on (its own context when shorter),
    /// 1 to [`MAX_CONTEXT_LIMIT`].
    pub max_context: usize,
    /// LM policies: how loaded models hold their weights (f16 halves the memory on the
    /// CPU).
    pub weights: WeightStorage,
    /// Served models (an endpoint as `model` or `large`) and the score cache.
    pub serving: ServingOptions,
}

impl Default for PolicyOptions {
    fn default() -> Self {
        Self {
            kind: PolicyKind::Planner,
            beta: DEFAULT_BETA,
            search_spread: PlannerPolicy::default().search_spread(),
            model: "smollm2-135m".to_string(),
            adapter: None,
            large: None,
            expert: None,
            expert_adapter: None,
            naive: None,
            alpha: 1.0,
            device: Device::Cpu,
            reduction: TokenReduction::Mean,
            likelihood: ActionLikelihood::Text,
            style: PromptStyle::Bip,
            prompt_observations: false,
            planner_weight: 1.0,
            lm_weight: 1.0,
            prune_to: 2,
            max_context: DEFAULT_MAX_CONTEXT,
            weights: WeightStorage::F32,
            serving: ServingOptions::default(),
        }
    }
}

impl PolicyOptions {
    /// Builds the policy, loading its language models.
    ///
    /// # Errors
    /// [`PolicyError`] for an option out of its range (see [`PolicyOptions::check`]),
    /// missing weak-to-strong models, or a model or adapter that cannot be loaded (naming
    /// its path).
    pub fn build(&self) -> Result<Box<dyn Policy>, PolicyError> {
        self.build_with_caches().map(|built| built.policy)
    }

    /// Builds the policy as [`PolicyOptions::build`] does, with the score caches it
    /// opened (for their hit rates at the end of a run).
    ///
    /// # Errors
    /// As [`PolicyOptions::build`]; also a served model that cannot be reached or whose
    /// tokenizer differs from bip's, and a score cache that cannot be opened.
    pub fn build_with_caches(&self) -> Result<BuiltPolicy, PolicyError> {
        self.check()?;
        let mut caches = Vec::new();
        let mut top_k_bound = None;
        let policy = self.build_policy(&mut caches, &mut top_k_bound)?;
        Ok(BuiltPolicy {
            policy,
            caches,
            top_k_bound,
        })
    }

    fn build_policy(
        &self,
        caches: &mut Vec<Arc<ScoreCache>>,
        top_k_bound: &mut Option<Arc<WidestBound>>,
    ) -> Result<Box<dyn Policy>, PolicyError> {
        match self.kind {
            PolicyKind::Planner => Ok(Box::new(self.planner()?)),
            PolicyKind::Lm => Ok(Box::new(self.lm_policy(self.single_scorer(caches)?))),
            PolicyKind::W2s => {
                let scorer = self.w2s_scorer(caches, top_k_bound)?;
                Ok(Box::new(self.lm_policy(scorer)))
            }
            PolicyKind::Hybrid => Ok(Box::new(self.hybrid_policy(caches, top_k_bound)?)),
        }
    }

    /// The hybrid policy of these options (for fitting its weights, `bip calibrate`), with
    /// the score caches it opened.
    ///
    /// # Errors
    /// As [`PolicyOptions::build_with_caches`].
    pub fn build_hybrid(&self) -> Result<(HybridPolicy, Vec<Arc<ScoreCache>>), PolicyError> {
        self.check()?;
        let mut caches = Vec::new();
        let hybrid = self.hybrid_policy(&mut caches, &mut None)?;
        Ok((hybrid, caches))
    }

    fn hybrid_policy(
        &self,
        caches: &mut Vec<Arc<ScoreCache>>,
        top_k_bound: &mut Option<Arc<WidestBound>>,
    ) -> Result<HybridPolicy, PolicyError> {
        let planner = Box::new(self.planner()?);
        let scorer = if self.steered() {
            self.w2s_scorer(caches, top_k_bound)?
        } else {
            self.single_scorer(caches)?
        };
        let lm = Box::new(self.lm_policy(scorer));
        HybridPolicy::new(planner, lm, self.planner_weight, self.lm_weight)
            .map_err(PolicyError::HybridWeights)
    }

    /// The weak-to-strong policy at each α of `alphas` (fitting α, `bip calibrate`), over
    /// one load and one run of the three models, each with the score cache it opened.
    /// L must be a model bip loads.
    ///
    /// # Errors
    /// As [`PolicyOptions::build_with_caches`]; also an α out of range and a served L.
    pub fn build_alpha_sweep(&self, alphas: &[f64]) -> Result<Vec<BuiltPolicy>, PolicyError> {
        self.check()?;
        for &alpha in alphas {
            Self {
                alpha,
                ..self.clone()
            }
            .check()?;
        }
        let scorers = self.w2s_scorers(Some(alphas.to_vec()), &mut None)?;
        scorers
            .into_iter()
            .map(|scorer| {
                let mut caches = Vec::new();
                let scorer = self.serving.cached(scorer, &mut caches)?;
                Ok(BuiltPolicy {
                    policy: Box::new(self.lm_policy(scorer)),
                    caches,
                    top_k_bound: None,
                })
            })
            .collect()
    }

    /// Whether the language model is weak-to-strong steered: the w2s policy, or a hybrid
    /// given a large model.
    pub fn steered(&self) -> bool {
        self.kind == PolicyKind::W2s || (self.kind == PolicyKind::Hybrid && self.large.is_some())
    }

    /// The hypothesis pruning asked for: none for the planner, whose every hypothesis
    /// costs microseconds, or when `prune_to` is 0.
    pub fn pruning(&self) -> Option<Pruning> {
        (self.kind != PolicyKind::Planner && self.prune_to > 0).then_some(Pruning {
            per_option: self.prune_to,
            proposal_beta: self.beta,
        })
    }

    /// The language-model settings a hybrid's LM weight or weak-to-strong's α is fitted
    /// under and must be read under ([`LmSettings`]): the models' and adapters' names (an
    /// alias as its file's), how actions are scored, and the pruning.
    pub fn lm_settings(&self) -> LmSettings {
        let name = |path: &Path| {
            path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        let model_name = |spec: &str| match bip_models::alias_path(spec) {
            Some(path) => name(&path),
            None if spec.contains("://") => spec.to_string(),
            None => name(Path::new(spec)),
        };
        let unnamed = || "none".to_string();
        let steered = |role: &Option<String>| role.as_deref().map_or_else(unnamed, model_name);
        let (model, adapter, steering) = if self.steered() {
            let steering = Steering {
                expert: steered(&self.expert),
                expert_adapter: self.expert_adapter.as_deref().map(name),
                naive: steered(&self.naive),
            };
            (steered(&self.large), None, Some(steering))
        } else {
            (
                model_name(&self.model),
                self.adapter.as_deref().map(name),
                None,
            )
        };
        LmSettings {
            model,
            adapter,
            steering,
            score: self.reduction,
            likelihood: self.likelihood,
            prompt_style: self.style,
            prompt_observations: self.prompt_observations,
            prune_to: self.prune_to,
        }
    }

    /// Checks the numeric options before any model is loaded: each finite and in its
    /// range (β is checked by the planner).
    ///
    /// # Errors
    /// [`PolicyError::OutOfRange`] naming the option.
    pub fn check(&self) -> Result<(), PolicyError> {
        let out_of_range = |option, value: f64, range: String| PolicyError::OutOfRange {
            option,
            value: number(value),
            range,
        };
        if !(self.alpha.is_finite() && self.alpha.abs() <= MAX_W2S_ALPHA) {
            let range = format!("[-{MAX_W2S_ALPHA}, {MAX_W2S_ALPHA}]");
            return Err(out_of_range("alpha", self.alpha, range));
        }
        for (option, weight) in [
            ("planner_weight", self.planner_weight),
            ("lm_weight", self.lm_weight),
        ] {
            if !(weight.is_finite() && (0.0..=MAX_HYBRID_WEIGHT).contains(&weight)) {
                return Err(out_of_range(
                    option,
                    weight,
                    format!("[0, {MAX_HYBRID_WEIGHT}]"),
                ));
            }
        }
        self.serving.check()?;
        if !(1..=MAX_CONTEXT_LIMIT).contains(&self.max_context) {
            return Err(PolicyError::OutOfRange {
                option: "max_context",
                value: self.max_context.to_string(),
                range: format!("1..={MAX_CONTEXT_LIMIT}"),
            });
        }
        Ok(())
    }

    /// The planner of these options: β and the search spread.
    fn planner(&self) -> Result<PlannerPolicy, PolicyError> {
        PlannerPolicy::new(self.beta)
            .map_err(PolicyError::Beta)?
            .with_search_spread(self.search_spread)
            .map_err(|_| PolicyError::OutOfRange {
                option: "search_spread",
                value: number(self.search_spread),
                range: "[0, 1]".to_string(),
            })
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions::default()
            .with_max_context(self.max_context)
            .with_weights(self.weights)
    }

    fn lm_policy(&self, scorer: Box<dyn TextScorer>) -> LmPolicy {
        let template = PromptTemplate {
            style: self.style,
            observations: self.prompt_observations,
        };
        LmPolicy::with_options(scorer, template, self.reduction).with_likelihood(self.likelihood)
    }

    fn single_scorer(
        &self,
        caches: &mut Vec<Arc<ScoreCache>>,
    ) -> Result<Box<dyn TextScorer>, PolicyError> {
        if Endpoint::is_endpoint(&self.model) {
            if self.adapter.is_some() {
                return Err(PolicyError::NotServable {
                    what: "a LoRA adapter applies to a model bip loads, not to a served one",
                });
            }
            let served = self.serving.connect(&self.model)?;
            return self.serving.cached(Box::new(served), caches);
        }
        let task = Single {
            spec: &self.model,
            adapter: self.adapter.as_deref(),
            options: self.load_options(),
        };
        let scorer = self.device.run(task).map_err(PolicyError::Device)??;
        self.serving.cached(scorer, caches)
    }

    /// The weak-to-strong scorer, behind the score cache; with a served L, `top_k_bound`
    /// receives where it keeps its widest bound.
    fn w2s_scorer(
        &self,
        caches: &mut Vec<Arc<ScoreCache>>,
        top_k_bound: &mut Option<Arc<WidestBound>>,
    ) -> Result<Box<dyn TextScorer>, PolicyError> {
        let scorer = self
            .w2s_scorers(None, top_k_bound)?
            .pop()
            .ok_or(PolicyError::MissingW2sModels)?;
        self.serving.cached(scorer, caches)
    }

    /// The weak-to-strong scorer at `alpha`, or one per α of `sweep`.
    fn w2s_scorers(
        &self,
        sweep: Option<Vec<f64>>,
        top_k_bound: &mut Option<Arc<WidestBound>>,
    ) -> Result<Vec<Box<dyn TokenScorer>>, PolicyError> {
        let (Some(large), Some(expert), Some(naive)) = (&self.large, &self.expert, &self.naive)
        else {
            return Err(PolicyError::MissingW2sModels);
        };
        if [expert, naive].iter().any(|m| Endpoint::is_endpoint(m)) {
            return Err(PolicyError::NotServable {
                what: "weak-to-strong: the expert and the naive model must be models bip loads (a served model only as the large one)",
            });
        }
        let large = if Endpoint::is_endpoint(large) {
            Large::Served(Box::new(self.serving.connect(large)?))
        } else {
            Large::Local(large)
        };
        let widest = Arc::new(WidestBound::default());
        if matches!(large, Large::Served(_)) {
            *top_k_bound = Some(Arc::clone(&widest));
        }
        let task = W2s {
            large,
            expert,
            expert_adapter: self.expert_adapter.as_deref(),
            naive,
            alpha: self.alpha,
            options: self.load_options(),
            widest,
            sweep,
        };
        self.device.run(task).map_err(PolicyError::Device)?
    }
}

/// A policy with the score caches it reads and writes.
pub struct BuiltPolicy {
    /// The policy.
    pub policy: Box<dyn Policy>,
    /// The score caches its scorers use (none without [`ServingOptions::cache`]).
    pub caches: Vec<Arc<ScoreCache>>,
    /// With a served L steering weak-to-strong (top-k mode): the widest interval a steered
    /// log-probability was sure to lie in, as the run goes.
    pub top_k_bound: Option<Arc<WidestBound>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Named::entry` falls back to the first row for a value without one, so a policy
    /// added without its row would print as "planner": each value must have its own.
    #[test]
    fn every_policy_kind_has_its_own_row_and_name() {
        let all = [
            PolicyKind::Planner,
            PolicyKind::Lm,
            PolicyKind::W2s,
            PolicyKind::Hybrid,
        ];
        assert_eq!(PolicyKind::VALUES.len(), all.len());
        for kind in all {
            let rows = PolicyKind::VALUES
                .iter()
                .filter(|(v, _, _)| *v == kind)
                .count();
            assert_eq!(rows, 1, "{kind:?}");
            assert_eq!(kind.name().parse::<PolicyKind>().ok(), Some(kind));
            assert_eq!(kind.to_string(), kind.name());
        }
        let names: Vec<&str> = all.iter().map(|k| k.name()).collect();
        assert_eq!(names, ["planner", "lm", "w2s", "hybrid"]);
    }
}
