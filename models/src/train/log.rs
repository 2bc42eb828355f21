//! The training log, `training_log.jsonl`: a [`ConfigRecord`] line, a [`TrainEvent`] line
//! per step and per epoch (what training reports as it goes), a [`DoneRecord`] line.
//!
//! The config and done records declare their fields in alphabetical order, `event` among
//! them: their lines were first written through a sorted JSON map, and keeping that order
//! keeps every log byte for byte what earlier versions wrote.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::options::TrainOptions;
use super::trainer::TrainOutcome;
use crate::error::{ModelError, Result};
use crate::io::json_line_problem;
use crate::lora::LoraModule;

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

/// The `event` value of a [`ConfigRecord`] line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ConfigEvent {
    #[default]
    Config,
}

/// The `event` value of a [`DoneRecord`] line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DoneEvent {
    #[default]
    Done,
}

/// The first line of a training log: what was trained on what, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigRecord {
    /// `lora_alpha`.
    pub alpha: f64,
    /// The base model's file or folder.
    pub base: String,
    /// Examples per optimiser step.
    pub batch: usize,
    /// The training pairs' file.
    pub data: String,
    /// Passes over the training pairs.
    pub epochs: usize,
    event: ConfigEvent,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// LoRA rank.
    pub rank: usize,
    /// Seed of the initialisation, the validation split and the example order.
    pub seed: u64,
    /// The modules adapted, PEFT's names (`q_proj`, ...), in the order asked for.
    pub targets: Vec<String>,
    /// Training pairs used.
    pub train_pairs: usize,
    /// Validation pairs used.
    pub validation_pairs: usize,
    /// Share of the steps spent warming up.
    pub warmup: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f64,
}

impl ConfigRecord {
    /// The record of a run of `options` on `base` with pairs from `data`.
    pub fn new(
        base: &Path,
        data: &Path,
        options: &TrainOptions,
        train_pairs: usize,
        validation_pairs: usize,
    ) -> Self {
        Self {
            alpha: options.alpha,
            base: base.display().to_string(),
            batch: options.batch_size,
            data: data.display().to_string(),
            epochs: options.epochs,
            event: ConfigEvent::Config,
            learning_rate: options.learning_rate,
            rank: options.rank,
            seed: options.seed,
            targets: options
                .targets
                .iter()
                .map(|m| LoraModule::peft_name(*m).to_string())
                .collect(),
            train_pairs,
            validation_pairs,
            warmup: options.warmup,
            weight_decay: options.weight_decay,
        }
    }
}

/// The last line of a training log: what the run achieved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoneRecord {
    /// The base model's validation loss, when there is a validation set.
    pub base_validation_loss: Option<f64>,
    /// The epoch kept (0: none beat the base model).
    pub best_epoch: usize,
    /// The kept epoch's validation loss, when there is a validation set.
    pub best_validation_loss: Option<f64>,
    event: DoneEvent,
    /// Seconds the whole run took, adapter written.
    pub seconds: f64,
    /// Optimiser steps taken.
    pub steps: usize,
}

impl DoneRecord {
    /// The record of `outcome`, reached in `seconds`.
    pub fn new(outcome: &TrainOutcome, seconds: f64) -> Self {
        Self {
            base_validation_loss: outcome.base_validation_loss,
            best_epoch: outcome.best_epoch,
            best_validation_loss: outcome.best_validation_loss,
            event: DoneEvent::Done,
            seconds,
            steps: outcome.steps,
        }
    }
}

/// One line of a training log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LogRecord {
    /// The first line.
    Config(ConfigRecord),
    /// A step or an epoch.
    Event(TrainEvent),
    /// The last line.
    Done(DoneRecord),
}

impl LogRecord {
    /// The record as one JSON line, without its newline.
    pub fn to_line(&self) -> String {
        // Plain structs of numbers and strings always serialize.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The lines of a training log, each ending in a newline.
pub(crate) fn log_text(records: &[LogRecord]) -> String {
    records.iter().map(|r| r.to_line() + "\n").collect()
}

/// Reads a training log written by [`super::TrainRun::run`]; blank lines are skipped.
///
/// # Errors
///
/// [`ModelError::Io`] when unreadable, and [`ModelError::Format`] naming the file and line
/// for a line that is not a log record.
pub fn read_log(path: &Path) -> Result<Vec<LogRecord>> {
    let text = crate::io::read_text(path)?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| {
                ModelError::format(
                    path,
                    format!(
                        "line {}: not a training log record ({})",
                        i + 1,
                        json_line_problem(&e)
                    ),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lora::{LoraAdapter, LoraConfig};

    fn outcome() -> TrainOutcome {
        TrainOutcome {
            adapter: LoraAdapter::new(LoraConfig::new(2, 4.0)),
            best_epoch: 2,
            base_validation_loss: Some(2.118225336074829),
            best_validation_loss: Some(0.3231773376464844),
            steps: 2,
        }
    }

    #[test]
    fn lines_keep_the_historical_byte_layout() {
        let options = TrainOptions {
            rank: 2,
            alpha: 4.0,
            targets: vec![LoraModule::Q, LoraModule::Down],
            learning_rate: 0.01,
            epochs: 2,
            batch_size: 2,
            seed: 7,
            ..TrainOptions::default()
        };
        let config = ConfigRecord::new(Path::new("m.gguf"), Path::new("p.jsonl"), &options, 2, 1);
        assert_eq!(
            LogRecord::Config(config).to_line(),
            "{\"alpha\":4.0,\"base\":\"m.gguf\",\"batch\":2,\"data\":\"p.jsonl\",\"epochs\":2,\
             \"event\":\"config\",\"learning_rate\":0.01,\"rank\":2,\"seed\":7,\
             \"targets\":[\"q_proj\",\"down_proj\"],\"train_pairs\":2,\"validation_pairs\":1,\
             \"warmup\":0.1,\"weight_decay\":0.01}"
        );
        let done = DoneRecord::new(&outcome(), 18.5);
        assert_eq!(
            LogRecord::Done(done).to_line(),
            "{\"base_validation_loss\":2.118225336074829,\"best_epoch\":2,\
             \"best_validation_loss\":0.3231773376464844,\"event\":\"done\",\"seconds\":18.5,\
             \"steps\":2}"
        );
        let epoch = TrainEvent::Epoch {
            epoch: 0,
            train_loss: None,
            validation_loss: Some(2.0),
            best: true,
            seconds: 1.0,
        };
        assert_eq!(
            LogRecord::Event(epoch).to_line(),
            "{\"event\":\"epoch\",\"epoch\":0,\"train_loss\":null,\"validation_loss\":2.0,\
             \"best\":true,\"seconds\":1.0}"
        );
    }

    #[test]
    fn a_written_log_reads_back() {
        let dir = crate::testutil::temp_dir("train-log");
        let path = dir.join("training_log.jsonl");
        let records = vec![
            LogRecord::Config(ConfigRecord::new(
                Path::new("m.gguf"),
                Path::new("p.jsonl"),
                &TrainOptions::default(),
                8,
                0,
            )),
            LogRecord::Event(TrainEvent::Step {
                epoch: 1,
                step: 1,
                total_steps: 1,
                loss: 1.5424558520317078,
                learning_rate: 2e-4,
                grad_norm: 0.952798545237943,
                tokens: 14,
                seconds: 8.291438149,
            }),
            LogRecord::Done(DoneRecord::new(&outcome(), 0.25)),
        ];
        std::fs::write(&path, log_text(&records)).unwrap();
        assert_eq!(read_log(&path).unwrap(), records);
        std::fs::write(&path, "{\"event\":\"step\"}\n").unwrap();
        let err = read_log(&path).unwrap_err().to_string();
        assert!(err.contains("line 1: not a training log record"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
