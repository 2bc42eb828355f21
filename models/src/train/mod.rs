//! LoRA post-training on a frozen base model: the decoder with a trainable low-rank
//! branch (burn autodiff), cross-entropy on the action tokens, AdamW with a cosine
//! schedule, validation each epoch, and the best epoch exported as a PEFT adapter.

mod adamw;
mod data;
mod decoder;
mod trainer;

#[cfg(test)]
mod tests;

pub use data::{split_indices, TextPair, TokenPair};
pub use trainer::{LoraTrainer, TrainEvent, TrainOptions, TrainOutcome};
