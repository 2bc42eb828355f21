//! Loading language models for the LM policies, on the device the user picked.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;

use bip::cached::TokenScorer;
use bip::models::burn::tensor::backend::Backend;
use bip::models::{
    resolve_model, BackendTask, LanguageModel, LoadOptions, LoraAdapter, WeakToStrong,
};
use bip::scorer::{ModelScorer, W2sScorer};

/// Loads `spec` (a path or an alias), with a LoRA adapter merged in when given, within
/// the limits of `options`. Errors name the file (the library's errors do), once.
pub fn load<B: Backend>(
    spec: &str,
    adapter: Option<&Path>,
    options: &LoadOptions,
    device: &B::Device,
) -> anyhow::Result<LanguageModel<B>> {
    let path = resolve_model(spec)?;
    let adapter = adapter
        .map(|dir| LoraAdapter::load(dir).context("reading the LoRA adapter"))
        .transpose()?;
    LanguageModel::load_with(&path, adapter.as_ref(), options, device).context("loading the model")
}

/// A scorer over one model (and adapter) on `device`.
pub fn scorer(
    device: impl Into<bip::models::Device>,
    spec: &str,
    adapter: Option<&Path>,
    options: LoadOptions,
) -> anyhow::Result<Box<dyn TokenScorer>> {
    device.into().run(Single {
        spec,
        adapter,
        options,
    })?
}

/// The model of [`scorer`].
struct Single<'a> {
    spec: &'a str,
    adapter: Option<&'a Path>,
    options: LoadOptions,
}

impl BackendTask for Single<'_> {
    type Output = anyhow::Result<Box<dyn TokenScorer>>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        let model = load::<B>(self.spec, self.adapter, &self.options, device)?;
        let scorer = ModelScorer::new(model);
        Ok(Box::new(match self.adapter {
            Some(dir) => scorer.with_adapter(dir),
            None => scorer,
        }))
    }
}

/// A weak-to-strong scorer over large, expert (optionally base + adapter) and naive
/// models on `device`.
pub fn w2s_scorer(
    device: impl Into<bip::models::Device>,
    large: &str,
    expert: &str,
    expert_adapter: Option<&Path>,
    naive: &str,
    alpha: f64,
    options: LoadOptions,
) -> anyhow::Result<Box<dyn TokenScorer>> {
    let models = W2s {
        large,
        expert,
        expert_adapter,
        naive,
        alpha,
        options,
    };
    device.into().run(models)?
}

/// The models of [`w2s_scorer`].
struct W2s<'a> {
    large: &'a str,
    expert: &'a str,
    expert_adapter: Option<&'a Path>,
    naive: &'a str,
    alpha: f64,
    options: LoadOptions,
}

impl BackendTask for W2s<'_> {
    type Output = anyhow::Result<Box<dyn TokenScorer>>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        // A model named for two roles (L = N, the usual set-up) is loaded once.
        let load = |spec: &str, adapter: Option<&Path>, role: &str| {
            load::<B>(spec, adapter, &self.options, device)
                .with_context(|| format!("the {role} model (--{role})"))
                .map(Arc::new)
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
        let w2s = WeakToStrong::new(large, expert, naive, self.alpha)
            .context("combining the weak-to-strong models")?;
        Ok(Box::new(W2sScorer::new(w2s)))
    }
}

/// A weak-to-strong scorer over a served large model and local expert (optionally base +
/// adapter) and naive models on `device`, in the top-k mode.
pub fn w2s_remote_scorer(
    device: impl Into<bip::models::Device>,
    large: bip::remote::RemoteScorer,
    (expert, expert_adapter): (&str, Option<&Path>),
    naive: &str,
    alpha: f64,
    options: LoadOptions,
) -> anyhow::Result<Box<dyn TokenScorer>> {
    let models = W2sRemote {
        large,
        expert,
        expert_adapter,
        naive,
        alpha,
        options,
    };
    device.into().run(models)?
}

/// The models of [`w2s_remote_scorer`].
struct W2sRemote<'a> {
    large: bip::remote::RemoteScorer,
    expert: &'a str,
    expert_adapter: Option<&'a Path>,
    naive: &'a str,
    alpha: f64,
    options: LoadOptions,
}

impl BackendTask for W2sRemote<'_> {
    type Output = anyhow::Result<Box<dyn TokenScorer>>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        let load = |spec: &str, adapter: Option<&Path>, role: &str| {
            load::<B>(spec, adapter, &self.options, device)
                .with_context(|| format!("the {role} model (--{role})"))
                .map(Arc::new)
        };
        let naive = load(self.naive, None, "naive")?;
        let expert = if self.expert == self.naive && self.expert_adapter.is_none() {
            Arc::clone(&naive)
        } else {
            load(self.expert, self.expert_adapter, "expert")?
        };
        let w2s = bip::remote_w2s::RemoteW2sScorer::new(self.large, expert, naive, self.alpha)
            .context("combining the weak-to-strong models")?;
        Ok(Box::new(w2s))
    }
}
