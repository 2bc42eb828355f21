//! The training loop: LoRA branches on a frozen base, cross-entropy on the action tokens,
//! AdamW with a cosine schedule, validation each epoch, the best epoch kept.

use std::borrow::Cow;
use std::path::Path;
use std::time::Instant;

use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::ElementConversion;

use super::adamw::{clip_global_norm, cosine_lr, AdamW};
use super::data::{shuffle, TextPair, TokenPair};
use super::log::TrainEvent;
use super::options::TrainOptions;
use super::sequence::sequence_logprobs;
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::load::LoadOptions;
use crate::lora::{LoraAdapter, LoraConfig};
use crate::model::LanguageModel;
use crate::tokenizer::Tokenizer;
use crate::transformer::Transformer;

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
/// load it with [`crate::LanguageModel::load_with_adapter`]. Training runs the model
/// scoring runs ([`crate::Transformer`]), with the adapter attached as LoRA branches.
#[derive(Debug)]
pub struct LoraTrainer<B: AutodiffBackend> {
    model: LanguageModel<B>,
    base: String,
}

impl<B: AutodiffBackend> LoraTrainer<B> {
    /// Loads the base model at `path` (a GGUF file or a Hugging Face folder). Its weights
    /// are in the canonical layout (GGUF query/key rows un-permuted), so that the adapter
    /// trained applies to either format.
    ///
    /// # Errors
    ///
    /// As [`crate::LanguageModel::load`].
    pub fn load(path: &Path, device: &B::Device) -> Result<Self> {
        Self::load_with(path, &LoadOptions::default(), device)
    }

    /// Like [`LoraTrainer::load`], with the limits of `options` (the context trained on).
    ///
    /// # Errors
    ///
    /// As [`crate::LanguageModel::load_with`].
    pub fn load_with(path: &Path, options: &LoadOptions, device: &B::Device) -> Result<Self> {
        let model = LanguageModel::load_with(path, None, options, device)?;
        let base = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(Self { model, base })
    }

    /// The base model's sizes.
    pub fn config(&self) -> &LlamaConfig {
        self.model.config()
    }

    /// The base model's tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        self.model.tokenizer()
    }

    /// Tokenizes `pairs` as scoring does.
    ///
    /// # Errors
    ///
    /// What [`TokenPair::encode`] returns, naming the pair's index.
    pub fn encode(&self, pairs: &[TextPair]) -> Result<Vec<TokenPair>> {
        let max_len = self.config().max_seq_len;
        pairs
            .iter()
            .enumerate()
            .map(|(i, p)| TokenPair::encode(self.tokenizer(), p, i, max_len))
            .collect()
    }

    /// Per-token log-probabilities of `example`'s action after its prompt, under the base
    /// model with `adapter` (if any) attached.
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
        let model = self.adapted(adapter)?;
        let lp = sequence_logprobs(&model, &example.tokens, example.prompt_len)?;
        ModelError::read_back(lp.into_data())
    }

    /// Mean cross-entropy per action token (nats) over `examples` under the base model
    /// with `adapter` (if any) attached; `None` for no examples.
    ///
    /// # Errors
    ///
    /// As [`LoraTrainer::action_logprobs`].
    pub fn mean_loss(
        &self,
        examples: &[TokenPair],
        adapter: Option<&LoraAdapter>,
    ) -> Result<Option<f64>> {
        mean_loss(&*self.adapted(adapter)?, examples)
    }

    /// The base model, with `adapter` attached when given.
    fn adapted(&self, adapter: Option<&LoraAdapter>) -> Result<Cow<'_, Transformer<B>>> {
        let base = self.model.transformer();
        match adapter {
            None => Ok(Cow::Borrowed(base)),
            Some(a) => {
                a.check(self.config())?;
                Ok(Cow::Owned(base.with_branches(a, false)?.0))
            }
        }
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
        options.check_for(self.config())?;
        if train.is_empty() {
            return Err(ModelError::Config("no training examples".into()));
        }
        let mut session = Session::new(self, train.len(), options);
        let base_loss = session.validation_loss(validation)?;
        let mut best = (0, base_loss, session.adapter.clone());
        if base_loss.is_some() {
            observe(&TrainEvent::Epoch {
                epoch: 0,
                train_loss: None,
                validation_loss: base_loss,
                best: true,
                seconds: session.seconds(),
            });
        }
        for epoch in 1..=options.epochs {
            let train_loss = session.epoch(epoch, train, observe)?;
            let validation_loss = session.validation_loss(validation)?;
            let better = match (validation_loss, best.1) {
                (Some(v), Some(b)) => v < b,
                _ => true,
            };
            if better {
                best = (epoch, validation_loss, session.adapter.clone());
            }
            observe(&TrainEvent::Epoch {
                epoch,
                train_loss: Some(train_loss),
                validation_loss,
                best: better,
                seconds: session.seconds(),
            });
        }
        Ok(TrainOutcome {
            adapter: best.2,
            best_epoch: best.0,
            best_validation_loss: best.1,
            base_validation_loss: base_loss,
            steps: session.step,
        })
    }
}

/// Mean cross-entropy per action token over `examples` under `model`.
fn mean_loss<B: Backend>(model: &Transformer<B>, examples: &[TokenPair]) -> Result<Option<f64>> {
    if examples.is_empty() {
        return Ok(None);
    }
    let (mut total, mut tokens) = (0.0, 0usize);
    for e in examples {
        let lp = sequence_logprobs(model, &e.tokens, e.prompt_len)?;
        total -= f64::from(lp.sum().into_scalar().elem::<f32>());
        tokens += e.action_len();
    }
    Ok(Some(total / tokens as f64))
}

/// A run under way: the adapter being trained, the optimiser and the schedule.
struct Session<'a, B: AutodiffBackend> {
    model: &'a Transformer<B>,
    options: &'a TrainOptions,
    adapter: LoraAdapter,
    optimiser: AdamW,
    started: Instant,
    /// Steps taken.
    step: usize,
    total_steps: usize,
    warmup: usize,
}

impl<'a, B: AutodiffBackend> Session<'a, B> {
    /// A run of `options` over `examples` training examples from `trainer`'s base.
    fn new(trainer: &'a LoraTrainer<B>, examples: usize, options: &'a TrainOptions) -> Self {
        let mut lora = LoraConfig::new(options.rank, options.alpha).with_targets(&options.targets);
        lora.base_model = Some(trainer.base.clone());
        let adapter = LoraAdapter::init(trainer.config(), lora, options.seed);
        let total_steps = examples
            .div_ceil(options.batch_size)
            .saturating_mul(options.epochs);
        Self {
            model: trainer.model.transformer(),
            options,
            optimiser: AdamW::new(&factor_lengths(&adapter), options.weight_decay),
            adapter,
            started: Instant::now(),
            step: 0,
            total_steps,
            warmup: (options.warmup * total_steps as f64).round() as usize,
        }
    }

    /// Seconds since the run began.
    fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The mean loss on `validation` with the adapter as it is; `None` without examples.
    fn validation_loss(&self, validation: &[TokenPair]) -> Result<Option<f64>> {
        if validation.is_empty() {
            return Ok(None);
        }
        mean_loss(
            &self.model.with_branches(&self.adapter, false)?.0,
            validation,
        )
    }

    /// One pass over `train` in the epoch's order; returns the mean loss per action token.
    fn epoch(
        &mut self,
        epoch: usize,
        train: &[TokenPair],
        observe: &mut dyn FnMut(&TrainEvent),
    ) -> Result<f64> {
        let mut order: Vec<usize> = (0..train.len()).collect();
        let seed = self.options.seed ^ (epoch as u64).wrapping_mul(0x9e37_79b9);
        shuffle(&mut order, seed);
        let (mut loss_sum, mut token_sum) = (0.0, 0usize);
        for batch in order.chunks(self.options.batch_size) {
            let batch: Vec<&TokenPair> = batch.iter().map(|&i| &train[i]).collect();
            let event = self.step(epoch, &batch)?;
            if let TrainEvent::Step { loss, tokens, .. } = event {
                loss_sum += loss * tokens as f64;
                token_sum += tokens;
            }
            observe(&event);
        }
        Ok(loss_sum / token_sum.max(1) as f64)
    }

    /// One optimiser step on `batch`.
    fn step(&mut self, epoch: usize, batch: &[&TokenPair]) -> Result<TrainEvent> {
        let tokens: usize = batch.iter().map(|e| e.action_len()).sum();
        let (loss, mut grads) = self.gradients(batch, tokens)?;
        self.step += 1;
        if !loss.is_finite() {
            return Err(ModelError::Backend(format!(
                "training diverged at step {}: the loss is {loss}; lower the learning rate",
                self.step
            )));
        }
        let grad_norm = clip_global_norm(&mut grads, self.options.max_grad_norm);
        let o = self.options;
        let lr = cosine_lr(
            o.learning_rate,
            self.step - 1,
            self.total_steps,
            self.warmup,
        );
        let mut params: Vec<&mut [f32]> = self
            .adapter
            .pairs_mut()
            .flat_map(|(_, _, pair)| {
                let (a, b) = pair.factors_mut();
                [a, b]
            })
            .collect();
        self.optimiser.step(lr, &mut params, &grads);
        Ok(TrainEvent::Step {
            epoch,
            step: self.step,
            total_steps: self.total_steps,
            loss,
            learning_rate: lr,
            grad_norm,
            tokens,
            seconds: self.seconds(),
        })
    }

    /// The batch's loss (summed over its `tokens` action tokens, divided by their number)
    /// and its gradient for each factor, `A` then `B` of every update; one example's graph
    /// at a time, so that memory holds one sequence's activations.
    fn gradients(&self, batch: &[&TokenPair], tokens: usize) -> Result<(f64, Vec<Vec<f32>>)> {
        let mut grads: Vec<Vec<f32>> = factor_lengths(&self.adapter)
            .into_iter()
            .map(|n| vec![0.0; n])
            .collect();
        let mut loss_sum = 0.0;
        for e in batch {
            let (model, leaves) = self.model.with_branches(&self.adapter, true)?;
            let lp = sequence_logprobs(&model, &e.tokens, e.prompt_len)?;
            let loss = lp.sum().neg().div_scalar(tokens as f32);
            loss_sum += f64::from(loss.clone().into_scalar().elem::<f32>());
            let g = loss.backward();
            for (acc, leaf) in grads.iter_mut().zip(&leaves) {
                // A factor the loss does not reach (none, in practice) has no gradient.
                if let Some(gt) = leaf.grad(&g) {
                    let gv = ModelError::read_back(gt.into_data())?;
                    acc.iter_mut().zip(gv).for_each(|(a, v)| *a += v);
                }
            }
        }
        Ok((loss_sum, grads))
    }
}

/// The lengths of `adapter`'s factors, `A` then `B` of every update.
fn factor_lengths(adapter: &LoraAdapter) -> Vec<usize> {
    adapter
        .pairs()
        .flat_map(|(_, _, p)| [p.a().len(), p.b().len()])
        .collect()
}
