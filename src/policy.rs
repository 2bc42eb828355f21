//! Policies built from options — the planner, a language model (with a LoRA adapter),
//! weak-to-strong steering, or the planner and a language model together — as
//! `bip infer --policy ...` and the Python bindings build them.
//!
//! ```
//! use bip::policy::{PolicyKind, PolicyOptions};
//!
//! let options = PolicyOptions { beta: 2.0, ..PolicyOptions::default() };
//! let policy = options.build()?;
//! assert_eq!(policy.name(), "planner");
//! assert_eq!(options.pruning(), None, "the planner scores every hypothesis");
//! assert_eq!("w2s".parse::<PolicyKind>()?, PolicyKind::W2s);
//! # Ok::<(), bip::policy::PolicyError>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use bip_engine::{
    EngineError, HybridPolicy, LmPolicy, PlannerPolicy, Policy, PromptStyle, PromptTemplate,
    Pruning, TextScorer, TokenReduction, DEFAULT_BETA,
};
use bip_models::burn::tensor::backend::Backend;
use bip_models::{
    resolve_model, BackendTask, Device, LanguageModel, LoadOptions, LoraAdapter, ModelError,
    WeakToStrong, DEFAULT_MAX_CONTEXT, MAX_CONTEXT_LIMIT, MAX_W2S_ALPHA,
};

use bip_episodes::limits::number;

use crate::scorer::{ModelScorer, W2sScorer};

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

impl PolicyKind {
    /// Every kind, in the order of [`PolicyKind::name`]'s names.
    pub const ALL: [PolicyKind; 4] = [Self::Planner, Self::Lm, Self::W2s, Self::Hybrid];

    /// The kind's name: `planner`, `lm`, `w2s` or `hybrid`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Planner => "planner",
            Self::Lm => "lm",
            Self::W2s => "w2s",
            Self::Hybrid => "hybrid",
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PolicyKind {
    type Err = PolicyError;

    fn from_str(s: &str) -> Result<Self, PolicyError> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| PolicyError::UnknownKind {
                name: s.to_string(),
            })
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
    /// The language model of `lm` and `hybrid`: a GGUF file, a Hugging Face folder, or an
    /// alias (`smollm2-135m`).
    pub model: String,
    /// A PEFT LoRA adapter folder merged into `model`.
    pub adapter: Option<PathBuf>,
    /// Weak-to-strong: the large model L.
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
    /// Wording of the LM prompts.
    pub style: PromptStyle,
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
}

impl Default for PolicyOptions {
    fn default() -> Self {
        Self {
            kind: PolicyKind::Planner,
            beta: DEFAULT_BETA,
            model: "smollm2-135m".to_string(),
            adapter: None,
            large: None,
            expert: None,
            expert_adapter: None,
            naive: None,
            alpha: 1.0,
            device: Device::Cpu,
            reduction: TokenReduction::Mean,
            style: PromptStyle::Bip,
            planner_weight: 1.0,
            lm_weight: 1.0,
            prune_to: 2,
            max_context: DEFAULT_MAX_CONTEXT,
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
        self.check()?;
        let planner = || -> Result<Box<dyn Policy>, PolicyError> {
            Ok(Box::new(
                PlannerPolicy::new(self.beta).map_err(PolicyError::Beta)?,
            ))
        };
        match self.kind {
            PolicyKind::Planner => planner(),
            PolicyKind::Lm => Ok(Box::new(self.lm_policy(self.single_scorer()?))),
            PolicyKind::W2s => Ok(Box::new(self.lm_policy(self.w2s_scorer()?))),
            PolicyKind::Hybrid => {
                let lm = Box::new(self.lm_policy(self.single_scorer()?));
                Ok(Box::new(
                    HybridPolicy::new(planner()?, lm, self.planner_weight, self.lm_weight)
                        .map_err(PolicyError::HybridWeights)?,
                ))
            }
        }
    }

    /// The hypothesis pruning asked for: none for the planner, whose every hypothesis
    /// costs microseconds, or when `prune_to` is 0.
    pub fn pruning(&self) -> Option<Pruning> {
        (self.kind != PolicyKind::Planner && self.prune_to > 0).then_some(Pruning {
            per_option: self.prune_to,
            proposal_beta: self.beta,
        })
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
        if !(1..=MAX_CONTEXT_LIMIT).contains(&self.max_context) {
            return Err(PolicyError::OutOfRange {
                option: "max_context",
                value: self.max_context.to_string(),
                range: format!("1..={MAX_CONTEXT_LIMIT}"),
            });
        }
        Ok(())
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions::default().with_max_context(self.max_context)
    }

    fn lm_policy(&self, scorer: Box<dyn TextScorer>) -> LmPolicy {
        let template = PromptTemplate { style: self.style };
        LmPolicy::with_options(scorer, template, self.reduction)
    }

    fn single_scorer(&self) -> Result<Box<dyn TextScorer>, PolicyError> {
        let task = Single {
            spec: &self.model,
            adapter: self.adapter.as_deref(),
            options: self.load_options(),
        };
        self.device.run(task).map_err(PolicyError::Device)?
    }

    fn w2s_scorer(&self) -> Result<Box<dyn TextScorer>, PolicyError> {
        let (Some(large), Some(expert), Some(naive)) = (&self.large, &self.expert, &self.naive)
        else {
            return Err(PolicyError::MissingW2sModels);
        };
        let task = W2s {
            large,
            expert,
            expert_adapter: self.expert_adapter.as_deref(),
            naive,
            alpha: self.alpha,
            options: self.load_options(),
        };
        self.device.run(task).map_err(PolicyError::Device)?
    }
}

/// Why a policy could not be built.
///
/// A variant that wraps a cause keeps it as its [`source`](std::error::Error::source)
/// and does not repeat it in its own message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A policy name that is none of `planner`, `lm`, `w2s`, `hybrid`.
    #[error("unknown policy \"{name}\": expected planner, lm, w2s or hybrid")]
    UnknownKind {
        /// The name given.
        name: String,
    },
    /// β is out of range.
    #[error("invalid beta")]
    Beta(#[source] EngineError),
    /// A hybrid weight is out of range.
    #[error("invalid hybrid weights")]
    HybridWeights(#[source] EngineError),
    /// A numeric option is outside its range.
    #[error("{option}: {value} is not a number in {range}")]
    OutOfRange {
        /// The option's name in [`PolicyOptions`] (`alpha`, `lm_weight`, ...).
        option: &'static str,
        /// Its value, as given.
        value: String,
        /// What it may be.
        range: String,
    },
    /// The weak-to-strong policy was asked for without its three models.
    #[error("the w2s policy needs a large, an expert and a naive model")]
    MissingW2sModels,
    /// The device cannot run models in this build.
    #[error("device")]
    Device(#[source] ModelError),
    /// A model path that does not exist, or an alias whose file is missing (the message
    /// says how to fetch it).
    #[error(transparent)]
    NotFound(ModelError),
    /// A model could not be loaded (its error names the file).
    #[error("loading the model")]
    Model {
        /// The model as given (a path or an alias).
        path: String,
        /// Why.
        #[source]
        source: ModelError,
    },
    /// A LoRA adapter could not be read (its error names the folder).
    #[error("reading the LoRA adapter")]
    Adapter {
        /// The adapter folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: ModelError,
    },
    /// One of the weak-to-strong models could not be loaded.
    #[error("the {role} model")]
    W2sRole {
        /// `large`, `expert` or `naive`.
        role: &'static str,
        /// Why.
        #[source]
        source: Box<PolicyError>,
    },
    /// The three weak-to-strong models do not go together.
    #[error("combining the weak-to-strong models")]
    W2s(#[source] ModelError),
}

/// Loads `spec` (a path or an alias), with a LoRA adapter merged in when given, within
/// the limits of `options`.
///
/// # Errors
/// [`PolicyError::NotFound`], [`PolicyError::Model`] or [`PolicyError::Adapter`], naming
/// the path.
pub fn load_model<B: Backend>(
    spec: &str,
    adapter: Option<&Path>,
    options: &LoadOptions,
    device: &B::Device,
) -> Result<LanguageModel<B>, PolicyError> {
    let path = resolve_model(spec).map_err(PolicyError::NotFound)?;
    let adapter = adapter
        .map(|dir| {
            LoraAdapter::load(dir).map_err(|source| PolicyError::Adapter {
                path: dir.to_path_buf(),
                source,
            })
        })
        .transpose()?;
    LanguageModel::load_with(&path, adapter.as_ref(), options, device).map_err(|source| {
        PolicyError::Model {
            path: path.display().to_string(),
            source,
        }
    })
}

/// The model of a single-model scorer.
struct Single<'a> {
    spec: &'a str,
    adapter: Option<&'a Path>,
    options: LoadOptions,
}

impl BackendTask for Single<'_> {
    type Output = Result<Box<dyn TextScorer>, PolicyError>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        let model = load_model::<B>(self.spec, self.adapter, &self.options, device)?;
        Ok(Box::new(ModelScorer::new(model)))
    }
}

/// The models of a weak-to-strong scorer.
struct W2s<'a> {
    large: &'a str,
    expert: &'a str,
    expert_adapter: Option<&'a Path>,
    naive: &'a str,
    alpha: f64,
    options: LoadOptions,
}

impl BackendTask for W2s<'_> {
    type Output = Result<Box<dyn TextScorer>, PolicyError>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        // A model named for two roles (L = N, the usual set-up) is loaded once.
        let load = |spec: &str, adapter: Option<&Path>, role: &'static str| {
            load_model::<B>(spec, adapter, &self.options, device)
                .map(Arc::new)
                .map_err(|e| PolicyError::W2sRole {
                    role,
                    source: Box::new(e),
                })
        };
        let large = load(self.large, None, "large")?;
        let naive = if self.naive == self.large {
            Arc::clone(&large)
        } else {
            load(self.naive, None, "naive")?
        };
        let expert = if self.expert == self.naive && self.expert_adapter.is_none() {
            Arc::clone(&naive)
        } else {
            load(self.expert, self.expert_adapter, "expert")?
        };
        let w2s = WeakToStrong::new(large, expert, naive, self.alpha).map_err(PolicyError::W2s)?;
        Ok(Box::new(W2sScorer::new(w2s)))
    }
}
