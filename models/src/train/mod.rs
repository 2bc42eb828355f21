//! LoRA post-training on a frozen base model: the decoder with a trainable low-rank
//! branch (burn autodiff), cross-entropy on the action tokens, AdamW with a cosine
//! schedule, validation each epoch, and the best epoch exported as a PEFT adapter.
//!
//! [`LoraTrainer`] trains on tokenized pairs in memory; [`TrainRun`] is a whole run from
//! files to files (what `bip train` does), keeping a training log of [`LogRecord`]s that
//! [`read_log`] reads back.

mod adamw;
mod data;
mod log;
mod options;
mod run;
mod sequence;
mod trainer;

#[cfg(test)]
mod tests;

pub use data::{split_indices, TextPair, TokenPair};
pub use log::{read_log, ConfigRecord, DoneRecord, LogRecord, TrainEvent};
pub use options::{TrainOptions, MAX_EPOCHS};
pub use run::{RunProgress, RunSummary, TrainRun, TRAINING_LOG};
pub use trainer::{LoraTrainer, TrainOutcome};
