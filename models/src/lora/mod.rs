//! PEFT LoRA adapters: read, written, and merged into a model's weights at load.
//!
//! An adapter folder holds `adapter_config.json` (`r`, `lora_alpha`, `use_rslora`,
//! `target_modules`) and `adapter_model.safetensors` (per layer and module, `lora_A`
//! `[r, in]` and `lora_B` `[out, r]`). Loading a model with an adapter adds
//! `ΔW = scale · B · A` to each targeted weight, in the canonical (Hugging Face) row order,
//! so that GGUF files (whose query/key rows the loader un-permutes first) and Hugging Face
//! folders receive the same update.

mod adapter;
mod attach;
mod config;
mod merge;

#[cfg(test)]
mod tests;

pub use adapter::{LoraAdapter, LoraPair, ADAPTER_CONFIG, ADAPTER_WEIGHTS};
pub use config::{LoraConfig, LoraModule, MAX_LORA_SCALE};
pub use merge::AdaptedWeights;
