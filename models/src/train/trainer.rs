//! The training loop: LoRA factors on a frozen base, cross-entropy on the action tokens,
//! AdamW with a cosine schedule, validation each epoch, the best epoch kept.

use std::path::Path;
use std::time::Instant;

use burn::tensor::backend::AutodiffBackend;
use burn::tensor::{ElementConversion, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use super::adamw::{clip_global_norm, cosine_lr, AdamW};
use super::data::{shuffle, TokenPair};
use super::decoder::{LoraBranch, TrainDecoder};
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::info::{prepare, Opened, Prepared};
use crate::load::gguf::GgufWeights;
use crate::lora::{LoraAdapter, LoraConfig, LoraModule, LoraPair};
use crate::tokenizer::Tokenizer;

/// Hyper-parameters of a LoRA run.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// Rank of every update.
    pub rank: usize,
    /// `lora_alpha`: the update is scaled by `alpha / rank`.
    pub alpha: f64,
    /// The modules adapted in every layer.
    pub targets: Vec<LoraModule>,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Passes over the training examples.
    pub epochs: usize,
    /// Examples per optimiser step (their action tokens averaged).
    pub batch_size: usize,
    /// Share of the steps spent warming the learning rate up, in [0, 1).
    pub warmup: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f64,
    /// Gradients are scaled down to this global L2 norm (0: no clipping).
    pub max_grad_norm: f64,
    /// Seed of the initial `A` factors and of the example order.
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        Self {
            rank: 8,
            alpha: 16.0,
            targets: LoraModule::ALL.to_vec(),
            learning_rate: 2e-4,
            epochs: 1,
            batch_size: 8,
            warmup: 0.1,
            weight_decay: 0.01,
            max_grad_norm: 1.0,
            seed: 0,
        }
    }
}

impl TrainOptions {
    fn check(&self) -> Result<()> {
        let bad = |what: String| Err(ModelError::Config(what));
        if self.rank == 0 {
            return bad("LoRA rank 0".into());
        }
        if self.epochs == 0 || self.batch_size == 0 {
            return bad("training needs at least one epoch and one example per batch".into());
        }
        if self.targets.is_empty() {
            return bad("no LoRA target modules".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad(format!(
                "learning rate {} is not a positive number",
                self.learning_rate
            ));
        }
        if !self.alpha.is_finite() || !(0.0..1.0).contains(&self.warmup) {
            return bad(format!(
                "alpha {} must be finite and warm-up share {} in [0, 1)",
                self.alpha, self.warmup
            ));
        }
        Ok(())
    }
}

/// What the loop reports as it goes (also the lines of a training log).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TrainEvent {
    /// An optimiser step finished.
    Step {
        /// Epoch, from 1.
        epoch: usize,
        /// Step, from 1, over the whole run.
        step: usize,
        /// Steps in the whole run.
        total_steps: usize,
        /// Mean cross-entropy (nats per action token) of the step's batch, before it.
        loss: f64,
        /// Learning rate applied.
        learning_rate: f64,
        /// Global gradient norm before clipping.
        grad_norm: f64,
        /// Action tokens in the batch.
        tokens: usize,
        /// Seconds since training began.
        seconds: f64,
    },
    /// An epoch finished (epoch 0: the base model, before any step, when there is a
    /// validation set).
    Epoch {
        /// Epoch, from 1 (0: before training).
        epoch: usize,
        /// Mean cross-entropy over the epoch's training batches (`None` for epoch 0).
        train_loss: Option<f64>,
        /// Mean cross-entropy per validation action token, when there is a validation set.
        validation_loss: Option<f64>,
        /// Whether this epoch is the best so far (the one kept).
        best: bool,
        /// Seconds since training began.
        seconds: f64,
    },
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct TrainOutcome {
    /// The adapter of the best epoch (lowest validation loss; the last epoch without a
    /// validation set).
    pub adapter: LoraAdapter,
    /// The epoch kept (0: none beat the base model).
    pub best_epoch: usize,
    /// Its validation loss, when there is a validation set.
    pub best_validation_loss: Option<f64>,
    /// The validation loss of the base model, when there is a validation set.
    pub base_validation_loss: Option<f64>,
    /// Optimiser steps taken.
    pub steps: usize,
}

/// A frozen base model ready for LoRA post-training, on an autodiff backend.
///
/// Load one with [`LoraTrainer::load`], tokenize examples with [`LoraTrainer::encode`],
/// then [`LoraTrainer::train`]; save the returned adapter with [`LoraAdapter::save`] and
/// load it with [`crate::LanguageModel::load_with_adapter`].
#[derive(Debug)]
pub struct LoraTrainer<B: AutodiffBackend> {
    decoder: TrainDecoder<B>,
    tokenizer: Tokenizer,
    base: String,
}

/// Trainable factors on the host, two per adapted (layer, module): `A` then `B`.
struct HostFactors {
    keys: Vec<(usize, LoraModule)>,
    shapes: Vec<[usize; 2]>,
    values: Vec<Vec<f32>>,
    config: LoraConfig,
}

impl HostFactors {
    fn from_adapter(adapter: &LoraAdapter) -> Self {
        let mut out = Self {
            keys: Vec::new(),
            shapes: Vec::new(),
            values: Vec::new(),
            config: adapter.config().clone(),
        };
        for (layer, module, pair) in adapter.pairs() {
            out.keys.push((layer, module));
            out.shapes.push([pair.rank(), pair.d_in()]);
            out.shapes.push([pair.d_out(), pair.rank()]);
            out.values.push(pair.a().to_vec());
            out.values.push(pair.b().to_vec());
        }
        out
    }

    fn to_adapter(&self) -> Result<LoraAdapter> {
        let mut adapter = LoraAdapter::new(self.config.clone());
        for (i, &(layer, module)) in self.keys.iter().enumerate() {
            let pair = LoraPair::new(
                self.values[2 * i].clone(),
                self.shapes[2 * i],
                self.values[2 * i + 1].clone(),
                self.shapes[2 * i + 1],
            )?;
            adapter.insert(layer, module, pair)?;
        }
        Ok(adapter)
    }

    /// The factors as tensors on `device` (tracked for gradients when `track`).
    fn branch<B: AutodiffBackend>(
        &self,
        num_layers: usize,
        track: bool,
        device: &B::Device,
    ) -> (LoraBranch<B>, Vec<Tensor<B, 2>>) {
        let mut branch = LoraBranch::new(num_layers, self.config.scale() as f32);
        let mut leaves = Vec::with_capacity(self.values.len());
        for (i, &(layer, module)) in self.keys.iter().enumerate() {
            let t = |j: usize| {
                let t = Tensor::<B, 2>::from_data(
                    TensorData::new(self.values[j].clone(), self.shapes[j]),
                    device,
                );
                if track {
                    t.require_grad()
                } else {
                    t
                }
            };
            let (a, b) = (t(2 * i), t(2 * i + 1));
            leaves.push(a.clone());
            leaves.push(b.clone());
            branch.set(layer, module, a, b);
        }
        (branch, leaves)
    }
}

impl<B: AutodiffBackend> LoraTrainer<B> {
    /// Loads the base model at `path` (a GGUF file or a Hugging Face folder), its weights
    /// in the canonical layout (GGUF query/key rows un-permuted), so that the adapter
    /// trained applies to either format.
    ///
    /// # Errors
    ///
    /// As [`crate::LanguageModel::load`].
    pub fn load(path: &Path, device: &B::Device) -> Result<Self> {
        let Prepared {
            opened,
            config,
            tokenizer,
            ..
        } = prepare(path)?;
        let decoder = match opened {
            Opened::Gguf(file) => {
                TrainDecoder::from_weights(&config, &mut GgufWeights::new(&file, &config)?, device)?
            }
            Opened::Hf(mut weights) => TrainDecoder::from_weights(&config, &mut weights, device)?,
        };
        let base = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(Self {
            decoder,
            tokenizer,
            base,
        })
    }

    /// The base model's sizes.
    pub fn config(&self) -> &LlamaConfig {
        self.decoder.config()
    }

    /// The base model's tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Tokenizes `pairs` as scoring does.
    ///
    /// # Errors
    ///
    /// What [`TokenPair::encode`] returns, naming the pair's index.
    pub fn encode(&self, pairs: &[super::TextPair]) -> Result<Vec<TokenPair>> {
        let max_len = self.config().max_seq_len;
        pairs
            .iter()
            .enumerate()
            .map(|(i, p)| TokenPair::encode(&self.tokenizer, p, i, max_len))
            .collect()
    }

    /// Per-token log-probabilities of `example`'s action after its prompt, under the base
    /// model with `adapter` (if any) added.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadRequest`] for tokens the model cannot take; what
    /// [`LoraAdapter::check`] returns for an adapter that does not fit.
    pub fn action_logprobs(
        &self,
        example: &TokenPair,
        adapter: Option<&LoraAdapter>,
    ) -> Result<Vec<f32>> {
        let branch = self.frozen_branch(adapter)?;
        let lp = self
            .decoder
            .logprobs(&example.tokens, example.prompt_len, &branch)?;
        ModelError::read_back(lp.into_data())
    }

    /// Mean cross-entropy per action token (nats) over `examples` under the base model
    /// with `adapter` (if any) added; `None` for no examples.
    ///
    /// # Errors
    ///
    /// As [`LoraTrainer::action_logprobs`].
    pub fn mean_loss(
        &self,
        examples: &[TokenPair],
        adapter: Option<&LoraAdapter>,
    ) -> Result<Option<f64>> {
        let branch = self.frozen_branch(adapter)?;
        self.loss_with(examples, &branch)
    }

    fn frozen_branch(&self, adapter: Option<&LoraAdapter>) -> Result<LoraBranch<B>> {
        let layers = self.config().num_layers;
        match adapter {
            None => Ok(LoraBranch::new(layers, 0.0)),
            Some(a) => {
                a.check(self.config())?;
                let host = HostFactors::from_adapter(a);
                Ok(host.branch(layers, false, &self.decoder.device()).0)
            }
        }
    }

    fn loss_with(&self, examples: &[TokenPair], branch: &LoraBranch<B>) -> Result<Option<f64>> {
        if examples.is_empty() {
            return Ok(None);
        }
        let (mut total, mut tokens) = (0.0, 0usize);
        for e in examples {
            let lp = self.decoder.logprobs(&e.tokens, e.prompt_len, branch)?;
            total -= f64::from(lp.sum().into_scalar().elem::<f32>());
            tokens += e.action_len();
        }
        Ok(Some(total / tokens as f64))
    }

    /// Trains a fresh adapter ([`LoraAdapter::init`]: `B = 0`, so training starts at the
    /// base model) on `train`, validating on `validation` after each epoch, and returns
    /// the best epoch's adapter. `observe` sees every [`TrainEvent`] as it happens.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] for bad options or no training examples,
    /// [`ModelError::BadRequest`] for an example the model cannot take, and
    /// [`ModelError::Backend`] when the loss stops being finite (lower the learning rate).
    pub fn train(
        &self,
        train: &[TokenPair],
        validation: &[TokenPair],
        options: &TrainOptions,
        observe: &mut dyn FnMut(&TrainEvent),
    ) -> Result<TrainOutcome> {
        options.check()?;
        if train.is_empty() {
            return Err(ModelError::Config("no training examples".into()));
        }
        let started = Instant::now();
        let device = self.decoder.device();
        let layers = self.config().num_layers;
        let mut lora = LoraConfig::new(options.rank, options.alpha).with_targets(&options.targets);
        lora.base_model = Some(self.base.clone());
        let mut host =
            HostFactors::from_adapter(&LoraAdapter::init(self.config(), lora, options.seed));
        let lengths: Vec<usize> = host.values.iter().map(Vec::len).collect();
        let mut optimiser = AdamW::new(&lengths, options.weight_decay);
        let per_epoch = train.len().div_ceil(options.batch_size);
        let total_steps = per_epoch * options.epochs;
        let warmup = (options.warmup * total_steps as f64).round() as usize;

        let validate = |host: &HostFactors| -> Result<Option<f64>> {
            self.loss_with(validation, &host.branch(layers, false, &device).0)
        };
        let base_loss = validate(&host)?;
        let mut best = (0, base_loss, host.values.clone());
        if base_loss.is_some() {
            observe(&TrainEvent::Epoch {
                epoch: 0,
                train_loss: None,
                validation_loss: base_loss,
                best: true,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        let mut step = 0;
        for epoch in 1..=options.epochs {
            let mut order: Vec<usize> = (0..train.len()).collect();
            shuffle(
                &mut order,
                options.seed ^ (epoch as u64).wrapping_mul(0x9e37_79b9),
            );
            let (mut epoch_loss, mut epoch_tokens) = (0.0, 0usize);
            for batch in order.chunks(options.batch_size) {
                let tokens: usize = batch.iter().map(|&i| train[i].action_len()).sum();
                let mut grads: Vec<Vec<f32>> = lengths.iter().map(|&n| vec![0.0; n]).collect();
                let mut batch_loss = 0.0;
                for &i in batch {
                    let (branch, leaves) = host.branch::<B>(layers, true, &device);
                    let e = &train[i];
                    let lp = self.decoder.logprobs(&e.tokens, e.prompt_len, &branch)?;
                    let loss = lp.sum().neg().div_scalar(tokens as f32);
                    batch_loss += f64::from(loss.clone().into_scalar().elem::<f32>());
                    let g = loss.backward();
                    for (acc, leaf) in grads.iter_mut().zip(&leaves) {
                        // A factor the loss does not reach (none, in practice) has no grad.
                        if let Some(gt) = leaf.grad(&g) {
                            let gv = ModelError::read_back(gt.into_data())?;
                            acc.iter_mut().zip(gv).for_each(|(a, v)| *a += v);
                        }
                    }
                }
                step += 1;
                if !batch_loss.is_finite() {
                    return Err(ModelError::Backend(format!(
                        "training diverged at step {step}: the loss is {batch_loss}; lower the learning rate"
                    )));
                }
                let grad_norm = clip_global_norm(&mut grads, options.max_grad_norm);
                let lr = cosine_lr(options.learning_rate, step - 1, total_steps, warmup);
                let mut params: Vec<&mut [f32]> =
                    host.values.iter_mut().map(Vec::as_mut_slice).collect();
                optimiser.step(lr, &mut params, &grads);
                epoch_loss += batch_loss * tokens as f64;
                epoch_tokens += tokens;
                observe(&TrainEvent::Step {
                    epoch,
                    step,
                    total_steps,
                    loss: batch_loss,
                    learning_rate: lr,
                    grad_norm,
                    tokens,
                    seconds: started.elapsed().as_secs_f64(),
                });
            }
            let validation_loss = validate(&host)?;
            let better = match (validation_loss, best.1) {
                (Some(v), Some(b)) => v < b,
                _ => true,
            };
            if better {
                best = (epoch, validation_loss, host.values.clone());
            }
            observe(&TrainEvent::Epoch {
                epoch,
                train_loss: Some(epoch_loss / epoch_tokens.max(1) as f64),
                validation_loss,
                best: better,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        host.values = best.2;
        Ok(TrainOutcome {
            adapter: host.to_adapter()?,
            best_epoch: best.0,
            best_validation_loss: best.1,
            base_validation_loss: base_loss,
            steps: step,
        })
    }
}
