//! Loading language models for the LM policies, on the device the user picked.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use clap::ValueEnum;

use bip::engine::TextScorer;
use bip::models::backend::Cpu;
use bip::models::burn::tensor::backend::Backend;
use bip::models::{resolve_model, LanguageModel, LoraAdapter, WeakToStrong};
use bip::scorer::{ModelScorer, W2sScorer};

/// Where a model runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Device {
    /// The CPU (burn-flex).
    Cpu,
    /// The first CUDA GPU (needs a build with `--features cuda`).
    Cuda,
}

/// Loads `spec` (a path or an alias), with a LoRA adapter merged in when given.
pub fn load<B: Backend>(
    spec: &str,
    adapter: Option<&Path>,
    device: &B::Device,
) -> anyhow::Result<LanguageModel<B>> {
    let path = resolve_model(spec)?;
    let model = match adapter {
        None => LanguageModel::load(&path, device),
        Some(dir) => {
            let adapter = LoraAdapter::load(dir)
                .with_context(|| format!("reading LoRA adapter {}", dir.display()))?;
            LanguageModel::load_with_adapter(&path, &adapter, device)
        }
    };
    model.with_context(|| format!("loading model {}", path.display()))
}

/// A scorer over one model (and adapter) on `device`.
pub fn scorer(
    device: Device,
    spec: &str,
    adapter: Option<&Path>,
) -> anyhow::Result<Box<dyn TextScorer>> {
    match device {
        Device::Cpu => Ok(Box::new(ModelScorer::new(load::<Cpu>(
            spec,
            adapter,
            &Default::default(),
        )?))),
        Device::Cuda => {
            #[cfg(feature = "cuda")]
            return Ok(Box::new(ModelScorer::new(load::<
                bip::models::backend::Cuda,
            >(
                spec,
                adapter,
                &Default::default(),
            )?)));
            #[cfg(not(feature = "cuda"))]
            Err(no_cuda())
        }
    }
}

/// The error for `--device cuda` in a build without CUDA.
#[cfg(not(feature = "cuda"))]
pub fn no_cuda() -> anyhow::Error {
    anyhow::anyhow!("--device cuda: this bip was built without CUDA (build with --features cuda)")
}

/// A weak-to-strong scorer over large, expert (optionally base + adapter) and naive
/// models on `device`.
pub fn w2s_scorer(
    device: Device,
    large: &str,
    expert: &str,
    expert_adapter: Option<&Path>,
    naive: &str,
    alpha: f64,
) -> anyhow::Result<Box<dyn TextScorer>> {
    match device {
        Device::Cpu => w2s::<Cpu>(
            large,
            expert,
            expert_adapter,
            naive,
            alpha,
            &Default::default(),
        ),
        Device::Cuda => {
            #[cfg(feature = "cuda")]
            return w2s::<bip::models::backend::Cuda>(
                large,
                expert,
                expert_adapter,
                naive,
                alpha,
                &Default::default(),
            );
            #[cfg(not(feature = "cuda"))]
            Err(no_cuda())
        }
    }
}

fn w2s<B: Backend>(
    large: &str,
    expert: &str,
    expert_adapter: Option<&Path>,
    naive: &str,
    alpha: f64,
    device: &B::Device,
) -> anyhow::Result<Box<dyn TextScorer>>
where
    W2sScorer<B>: TextScorer + 'static,
{
    // A model named for two roles (L = N, the usual set-up) is loaded once.
    let large_model = Arc::new(load::<B>(large, None, device)?);
    let naive_model = if naive == large {
        Arc::clone(&large_model)
    } else {
        Arc::new(load::<B>(naive, None, device)?)
    };
    let expert_model = if expert == naive && expert_adapter.is_none() {
        Arc::clone(&naive_model)
    } else {
        Arc::new(load::<B>(expert, expert_adapter, device)?)
    };
    let w2s = WeakToStrong::new(large_model, expert_model, naive_model, alpha)
        .context("combining the weak-to-strong models")?;
    Ok(Box::new(W2sScorer::new(w2s)))
}
