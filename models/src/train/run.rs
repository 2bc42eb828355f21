//! A whole training run: pairs read and split, the base model loaded, the adapter trained
//! and written, and the training log kept beside it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::tensor::backend::AutodiffBackend;

use super::data::{split_indices, TextPair, TokenPair};
use super::log::{log_text, ConfigRecord, DoneRecord, LogRecord, TrainEvent};
use super::options::TrainOptions;
use super::trainer::{LoraTrainer, TrainOutcome};
use crate::alias::resolve_model;
use crate::error::{ModelError, Result};
use crate::io::write_replacing;
use crate::load::LoadOptions;

/// The training log's name inside the output folder.
pub const TRAINING_LOG: &str = "training_log.jsonl";

/// What a training run reads and writes.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainRun {
    /// Base model: a GGUF file, a Hugging Face folder, or an alias ([`resolve_model`]).
    pub base: String,
    /// Training pairs, JSON lines ([`TextPair::read_jsonl`]).
    pub data: PathBuf,
    /// Validation pairs; without them, `validation_fraction` of `data` is held out.
    pub validation: Option<PathBuf>,
    /// Share of `data` held out for validation when `validation` is `None`.
    pub validation_fraction: f64,
    /// Train on at most this many pairs (after the validation split; at least one).
    pub limit: Option<usize>,
    /// Hyper-parameters.
    pub options: TrainOptions,
    /// Limits on what the base model's file declares (its context).
    pub load: LoadOptions,
    /// Output folder: the PEFT adapter and [`TRAINING_LOG`].
    pub out: PathBuf,
}

/// What a run reports as it goes.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum RunProgress<'a> {
    /// Everything is loaded and training begins.
    Started {
        /// The log's first line.
        config: &'a ConfigRecord,
        /// Tokens in the training pairs, prompts included.
        train_tokens: usize,
    },
    /// A step or an epoch ended.
    Event(&'a TrainEvent),
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The trained adapter and what training reached.
    pub outcome: TrainOutcome,
    /// The log's lines, as written.
    pub log: Vec<LogRecord>,
    /// The base model's file or folder.
    pub base: PathBuf,
    /// Where the log is.
    pub log_path: PathBuf,
    /// Seconds the whole run took.
    pub seconds: f64,
}

impl TrainRun {
    /// Reads the pairs, loads the base model on `device`, trains, and writes the adapter
    /// (a PEFT folder) and the training log into `out`. The log is rewritten whole after
    /// each epoch, so that it is never half a line; `observe` sees the progress.
    ///
    /// # Errors
    ///
    /// Whatever reading the pairs, loading the model, tokenizing or training returns,
    /// within a [`ModelError::Context`] saying which of them failed, and
    /// [`ModelError::Io`] when the output cannot be written.
    pub fn run<B: AutodiffBackend>(
        &self,
        device: &B::Device,
        observe: &mut dyn FnMut(RunProgress<'_>),
    ) -> Result<RunSummary> {
        let started = Instant::now();
        let (train_pairs, validation_pairs) = self.pairs()?;
        let base = resolve_model(&self.base)?;
        let trainer = LoraTrainer::<B>::load_with(&base, &self.load, device)
            .map_err(|e| e.within("loading the base model"))?;
        let train = train_pairs.encode(&trainer, "training")?;
        let validation = validation_pairs.encode(&trainer, "validation")?;
        let config = ConfigRecord::new(
            &base,
            &self.data,
            &self.options,
            train.len(),
            validation.len(),
        );
        observe(RunProgress::Started {
            config: &config,
            train_tokens: train.iter().map(|e| e.tokens.len()).sum(),
        });
        std::fs::create_dir_all(&self.out).map_err(|e| ModelError::io(&self.out, e))?;
        let log_path = self.out.join(TRAINING_LOG);
        let mut log = vec![LogRecord::Config(config)];
        let outcome = train_logged(&trainer, (&train, &validation), &self.options, |event| {
            observe(RunProgress::Event(event));
            log.push(LogRecord::Event(event.clone()));
            // Rewritten after each epoch only: a step is too small to be worth a write.
            matches!(event, TrainEvent::Epoch { .. })
                .then(|| write_replacing(&log_path, log_text(&log).as_bytes()))
        })?;
        outcome
            .adapter
            .save(&self.out)
            .map_err(|e| e.within(format!("writing the adapter to {}", self.out.display())))?;
        let seconds = started.elapsed().as_secs_f64();
        log.push(LogRecord::Done(DoneRecord::new(&outcome, seconds)));
        write_replacing(&log_path, log_text(&log).as_bytes())?;
        Ok(RunSummary {
            outcome,
            log,
            base,
            log_path,
            seconds,
        })
    }

    /// The training and validation pairs: `validation` read, or `validation_fraction` of
    /// `data` held out; then at most `limit` training pairs.
    fn pairs(&self) -> Result<(Sourced, Sourced)> {
        let data = Sourced::read(&self.data)?;
        let (mut train, validation) = match &self.validation {
            Some(path) => (data, Sourced::read(path)?),
            None => {
                let seed = self.options.seed;
                let n = data.pairs.len();
                let (train, held) = split_indices(n, self.validation_fraction, seed);
                (data.pick(&train), data.pick(&held))
            }
        };
        if let Some(limit) = self.limit {
            train.pairs.truncate(limit.max(1));
        }
        Ok((train, validation))
    }
}

/// Pairs read from one file, each with its line there.
struct Sourced {
    path: PathBuf,
    pairs: Vec<(usize, TextPair)>,
}

impl Sourced {
    fn read(path: &Path) -> Result<Self> {
        Ok(Self {
            path: path.to_path_buf(),
            pairs: TextPair::read_jsonl_numbered(path)?,
        })
    }

    /// The pairs at `indices`, in that order.
    fn pick(&self, indices: &[usize]) -> Self {
        Self {
            path: self.path.clone(),
            pairs: indices.iter().map(|&i| self.pairs[i].clone()).collect(),
        }
    }

    /// The pairs tokenized by `trainer`; an error in one names its file and line, and
    /// what the pairs are for (`role`).
    fn encode<B: AutodiffBackend>(
        &self,
        trainer: &LoraTrainer<B>,
        role: &str,
    ) -> Result<Vec<TokenPair>> {
        let texts: Vec<TextPair> = self.pairs.iter().map(|(_, p)| p.clone()).collect();
        trainer.encode(&texts).map_err(|e| {
            match e {
                ModelError::BadRequest { index, problem } => ModelError::format(
                    &self.path,
                    format!("line {}: {problem}", self.pairs[index].0),
                ),
                other => other,
            }
            .within(format!("tokenizing the {role} pairs"))
        })
    }
}

/// Trains, calling `after` on each event; the first error `after` returns is returned once
/// training has finished (a log that cannot be written does not waste the run).
fn train_logged<B: AutodiffBackend>(
    trainer: &LoraTrainer<B>,
    (train, validation): (&[TokenPair], &[TokenPair]),
    options: &TrainOptions,
    mut after: impl FnMut(&TrainEvent) -> Option<Result<()>>,
) -> Result<TrainOutcome> {
    let mut failed = None;
    let outcome = trainer.train(train, validation, options, &mut |event| {
        if let Some(Err(e)) = after(event) {
            failed.get_or_insert(e);
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{temp_dir, tiny_config, write_tiny_gguf};
    use crate::train::read_log;
    use crate::Autodiff;

    #[test]
    fn a_run_writes_an_adapter_and_a_log_that_reads_back() {
        let dir = temp_dir("train-run-log");
        let gguf = dir.join("tiny.gguf");
        write_tiny_gguf(&gguf, &tiny_config(), 34);
        let data = dir.join("pairs.jsonl");
        let lines: String = ["cat", "dog", "hen", "owl"]
            .iter()
            .map(|a| format!("{{\"prompt\": \"the {a} is\", \"action\": \" {a}s\"}}\n"))
            .collect();
        std::fs::write(&data, lines).unwrap();
        let run = TrainRun {
            base: gguf.display().to_string(),
            data,
            validation: None,
            validation_fraction: 0.25,
            limit: None,
            options: TrainOptions {
                rank: 2,
                batch_size: 2,
                ..TrainOptions::default()
            },
            out: dir.join("out"),
            load: LoadOptions::default(),
        };
        let mut started = 0;
        let mut events = 0;
        let summary = run
            .run::<Autodiff<burn_flex::Flex>>(&Default::default(), &mut |p| match p {
                RunProgress::Started { config, .. } => {
                    assert_eq!((config.train_pairs, config.validation_pairs), (3, 1));
                    started += 1;
                }
                RunProgress::Event(_) => events += 1,
            })
            .unwrap();
        assert_eq!((started, events), (1, 1 + 2 + 1));
        assert_eq!(read_log(&summary.log_path).unwrap(), summary.log);
        assert_eq!(summary.log.len(), 1 + events + 1);
        assert!(crate::LoraAdapter::load(&run.out).is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
