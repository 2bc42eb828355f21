//! Loading the models of a policy on the device asked for.

use std::path::Path;
use std::sync::Arc;

use bip_models::burn::tensor::backend::Backend;
use bip_models::{
    resolve_model, BackendTask, LanguageModel, LoadOptions, LoraAdapter, WeakToStrong,
};

use super::PolicyError;
use crate::cached::TokenScorer;
use crate::remote::RemoteScorer;
use crate::remote_w2s::{RemoteW2sScorer, WidestBound};
use crate::scorer::{AlphaSweep, ModelScorer, W2sScorer};

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
    let adapter = adapter.map(read_adapter).transpose()?;
    LanguageModel::load_with(&path, adapter.as_ref(), options, device).map_err(|source| {
        PolicyError::Model {
            path: path.display().to_string(),
            source,
        }
    })
}

/// The PEFT LoRA adapter in folder `dir`.
fn read_adapter(dir: &Path) -> Result<LoraAdapter, PolicyError> {
    LoraAdapter::load(dir).map_err(|source| PolicyError::Adapter {
        path: dir.to_path_buf(),
        source,
    })
}

/// The model of a single-model scorer.
pub(super) struct Single<'a> {
    pub spec: &'a str,
    pub adapter: Option<&'a Path>,
    pub options: LoadOptions,
}

impl BackendTask for Single<'_> {
    type Output = Result<Box<dyn TokenScorer>, PolicyError>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        let model = load_model::<B>(self.spec, self.adapter, &self.options, device)?;
        // The score cache's key names the adapter merged in (`model_identity`).
        Ok(Box::new(ModelScorer::new(model)))
    }
}

/// The large model of a weak-to-strong scorer: loaded by bip, or served (then steered
/// from its top log-probabilities).
pub(super) enum Large<'a> {
    Local(&'a str),
    Served(Box<RemoteScorer>),
}

/// The models of a weak-to-strong scorer.
pub(super) struct W2s<'a> {
    pub large: Large<'a>,
    pub expert: &'a str,
    pub expert_adapter: Option<&'a Path>,
    pub naive: &'a str,
    pub alpha: f64,
    pub options: LoadOptions,
    /// Where a served L's scorer keeps its widest top-k bound.
    pub widest: Arc<WidestBound>,
    /// Instead of one scorer at `alpha`, one per α of this sweep over one run of the
    /// models (fitting α); L must then be a model bip loads.
    pub sweep: Option<Vec<f64>>,
}

impl BackendTask for W2s<'_> {
    /// The scorer at `alpha`, or the sweep's scorers.
    type Output = Result<Vec<Box<dyn TokenScorer>>, PolicyError>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        let W2s {
            large,
            expert,
            expert_adapter,
            naive,
            alpha,
            options,
            widest,
            sweep,
        } = self;
        let load = |spec: &str, adapter: Option<&Path>, role: &'static str| {
            load_model::<B>(spec, adapter, &options, device)
                .map(Arc::new)
                .map_err(|e| PolicyError::W2sRole {
                    role,
                    source: Box::new(e),
                })
        };
        // The expert is usually the naive model plus an adapter: then it is the naive
        // model's weights with LoRA branches attached, not a second copy of them.
        let expert_of = |naive_model: &Arc<LanguageModel<B>>| {
            if expert != naive {
                return load(expert, expert_adapter, "expert");
            }
            let Some(dir) = expert_adapter else {
                return Ok(Arc::clone(naive_model));
            };
            read_adapter(dir)
                .and_then(|adapter| {
                    naive_model
                        .with_adapter(&adapter)
                        .map_err(|source| PolicyError::Adapter {
                            path: dir.to_path_buf(),
                            source,
                        })
                })
                .map(Arc::new)
                .map_err(|e| PolicyError::W2sRole {
                    role: "expert",
                    source: Box::new(e),
                })
        };
        let large = match large {
            Large::Served(_) if sweep.is_some() => return Err(PolicyError::NotServable {
                what:
                    "fitting α needs the large model's every logit: one bip loads, not a served one",
            }),
            Large::Served(served) => {
                let naive_model = load(naive, None, "naive")?;
                let expert_model = expert_of(&naive_model)?;
                let w2s = RemoteW2sScorer::new(*served, expert_model, naive_model, alpha, widest)
                    .map_err(PolicyError::W2s)?;
                return Ok(vec![Box::new(w2s)]);
            }
            Large::Local(spec) => (spec, load(spec, None, "large")?),
        };
        // A model named for two roles (L = N, the usual set-up) is loaded once.
        let naive_model = if naive == large.0 {
            Arc::clone(&large.1)
        } else {
            load(naive, None, "naive")?
        };
        let expert_model = expert_of(&naive_model)?;
        let w2s = WeakToStrong::new(large.1, expert_model, naive_model, alpha)
            .map_err(PolicyError::W2s)?;
        Ok(match sweep {
            None => vec![Box::new(W2sScorer::new(w2s))],
            Some(alphas) => AlphaSweep::new(w2s, alphas).scorers(),
        })
    }
}
