//! Language-model hosting for bip's LM policies: a Llama-family decoder in burn, GGUF and
//! Hugging Face weight loading, tokenizers, and a prefix-cached scoring API.
//!
//! # Overview
//!
//! - [`LanguageModel`] is a loaded model: a [`Transformer`] (RMSNorm, rotary embeddings,
//!   grouped-query attention, SwiGLU, tied or separate head; generic over the burn
//!   backend), its [`Tokenizer`] and a [`ModelInfo`]. [`LanguageModel::load`] reads a GGUF
//!   file ([`load::gguf`]: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K,
//!   dequantized to `f32`) or a Hugging Face folder ([`load::hf`], [`load::safetensors`]).
//! - Every format feeds one builder, [`Transformer::from_weights`], through the
//!   [`WeightSource`] trait in one canonical naming; sizes come as a [`LlamaConfig`].
//! - [`LanguageModel::score`] returns per-token log-probabilities of continuations after
//!   prompts ([`Scored`]), optionally with full-vocabulary logits; a [`PrefixCache`] kept
//!   across calls computes each shared prompt prefix once; suffixes run in batches.
//! - [`LanguageModel::generate`] decodes greedily.
//! - [`LoraAdapter`] reads and writes PEFT LoRA adapters; [`LanguageModel::load_with_adapter`]
//!   merges one into the weights at load, identically for GGUF and Hugging Face models.
//! - [`LoraTrainer`] post-trains a LoRA adapter on a frozen base model (the same
//!   [`Transformer`] on burn's autodiff backend, the adapter attached as LoRA branches;
//!   loss on the continuation's tokens only, AdamW, cosine schedule) from [`TextPair`]s
//!   and returns the best epoch's [`LoraAdapter`]. [`TrainRun`] is a whole run from files
//!   to files, with a typed training log ([`train::LogRecord`]).
//! - [`WeakToStrong`] scores with three models sharing a tokenizer (large, small expert,
//!   small naive), per token `log_softmax(s_L + α (s_E − s_N))` over the whole vocabulary.
//! - Hostile files fail cleanly: before any weight is read, the tensors a file holds must
//!   be exactly those its metadata declares (layers, shapes), token ids must fit the
//!   vocabulary and tensor data the file; weights must be finite. The context a model runs
//!   on is capped by [`LoadOptions::max_context`] ([`DEFAULT_MAX_CONTEXT`]), whatever the
//!   file declares.
//! - Models run on [`backend::Cpu`] (burn-flex), or `backend::Cuda` with the `cuda`
//!   feature; a [`Device`] (`cpu`, `cuda`, `cuda:N`) picks one at run time and
//!   [`Device::run`] runs a [`BackendTask`] on it. [`resolve_model`] maps a path or an
//!   alias (`smollm2-135m`, `qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`, fetched by
//!   `scripts/fetch-models.sh`) to a file.
//!
//! # Example
//!
//! A tiny model with random weights (no file involved) scores two continuations that
//! share a prompt; the prompt's prefix is computed once and cached.
//!
//! ```
//! use bip_models::backend::Cpu;
//! use bip_models::{score_tokens, LlamaConfig, PrefixCache, ScoreOptions, TokenRequest};
//!
//! let model = LlamaConfig::new(64, 32, 48, 2, 4, 2)
//!     .with_max_seq_len(128)
//!     .init::<Cpu>(&Default::default());
//! let prompt: Vec<u32> = (1..=60).collect();
//! let requests = [
//!     TokenRequest { prompt: &prompt, continuation: &[6, 7] },
//!     TokenRequest { prompt: &prompt, continuation: &[8] },
//! ];
//! let mut cache = PrefixCache::default();
//! let scored = score_tokens(&model, &mut cache, &requests, &ScoreOptions::default()).unwrap();
//! assert_eq!(scored[0].logprobs.len(), 2);
//! assert!(scored.iter().all(|s| s.total() < 0.0));
//! assert_eq!(cache.stats().computed_tokens, 59);
//! ```
#![deny(missing_docs)]

mod alias;
pub mod backend;
mod cache;
mod config;
mod error;
mod generate;
mod info;
mod io;
pub mod load;
pub mod lora;
mod model;
mod nn;
mod prefix;
pub mod remote;
mod score;
mod score_cache;
mod softmax;
pub mod tokenizer;
pub mod train;
mod transformer;
mod tree;
mod w2s;
mod w2s_topk;
mod weights;

#[cfg(test)]
mod testutil;

/// The burn crate this one is built on (for the `Backend` trait and tensors).
pub use burn;
/// Reverse-mode autodiff over a backend, for training ([`LoraTrainer`]).
pub use burn_autodiff::Autodiff;

pub use alias::{alias_path, models_dir, resolve_model, MODEL_ALIASES};
pub use backend::{BackendTask, Device};
pub use cache::KvCache;
pub use config::LlamaConfig;
pub use error::{ModelError, Result};
pub use generate::{generate_greedy, Generation};
pub use info::{read_tokenizer, ModelInfo, TokenizerInfo};
pub use io::{max_input_bytes, read_bounded, set_max_input_bytes, DEFAULT_MAX_INPUT_BYTES};
pub use load::{LoadOptions, WeightStorage, DEFAULT_MAX_CONTEXT, MAX_CONTEXT_LIMIT};
pub use lora::{LoraAdapter, LoraConfig, LoraModule, LoraPair, MAX_LORA_SCALE};
pub use model::LanguageModel;
pub use prefix::{CacheStats, PrefixCache, DEFAULT_CACHE_TOKENS};
pub use remote::{Endpoint, RemoteModel, RemoteOptions};
pub use score::{
    encode_requests, score_tokens, EncodedRequest, ScoreOptions, ScoreRequest, Scored,
    TokenRequest, DEFAULT_MAX_BATCH_TOKENS, DEFAULT_MIN_PREFIX_PASS,
};
pub use score_cache::{ScoreCache, ScoreCacheStats};
pub use tokenizer::{ChatTemplate, Tokenizer};
pub use train::{
    LoraTrainer, TextPair, TokenPair, TrainEvent, TrainOptions, TrainOutcome, TrainRun,
};
pub use transformer::Transformer;
pub use w2s::{W2sStats, WeakToStrong, MAX_W2S_ALPHA};
pub use w2s_topk::{steered_top_k, TopKSteered};
pub use weights::{canonical_tensors, MemoryWeights, WeightSource};

#[cfg(test)]
pub(crate) mod tests {
    //! Shared helpers of the unit tests.

    use burn::tensor::TensorData;

    /// The backend unit tests run on.
    pub(crate) type TestBackend = burn_flex::Flex;

    /// Asserts equal shapes and elements within `tol` (absolute).
    pub(crate) fn assert_close(actual: TensorData, expected: TensorData, tol: f32) {
        assert_eq!(actual.shape, expected.shape, "shapes differ");
        let a: Vec<f32> = actual.convert::<f32>().to_vec().unwrap();
        let e: Vec<f32> = expected.convert::<f32>().to_vec().unwrap();
        for (i, (x, y)) in a.iter().zip(&e).enumerate() {
            assert!(
                (x - y).abs() <= tol,
                "element {i}: {x} vs {y} (tolerance {tol})"
            );
        }
    }
}
