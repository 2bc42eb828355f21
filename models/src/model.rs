//! A loaded language model: decoder, tokenizer and description, with text-level scoring
//! and generation.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use burn::tensor::backend::Backend;

use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::generate::{generate_greedy, Generation};
use crate::info::{prepare, ModelInfo, Opened, Prepared};
use crate::load::gguf::GgufWeights;
use crate::load::{LoadOptions, WeightStorage};
use crate::lora::{AdaptedWeights, LoraAdapter};
use crate::prefix::PrefixCache;
use crate::score::{
    encode_requests, score_tokens, EncodedRequest, ScoreOptions, ScoreRequest, Scored, TokenRequest,
};
use crate::tokenizer::Tokenizer;
use crate::transformer::Transformer;
use crate::weights::WeightSource;

/// Distinguishes loaded models, so that a prefix cache is never reused across models.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A causal language model ready to score and generate text.
///
/// Load one with [`LanguageModel::load`] (a GGUF file or a Hugging Face folder), then
/// score continuations with [`LanguageModel::score`], keeping a [`PrefixCache`] across
/// calls so that shared prompt prefixes are computed once.
#[derive(Debug)]
pub struct LanguageModel<B: Backend> {
    transformer: Transformer<B>,
    tokenizer: Tokenizer,
    config: LlamaConfig,
    info: ModelInfo,
    /// The weights file of the LoRA adapter merged in or attached, if any.
    adapter: Option<PathBuf>,
    id: u64,
}

impl<B: Backend> LanguageModel<B> {
    /// Loads the model at `path`: a GGUF file, or a Hugging Face folder (`config.json`,
    /// `*.safetensors`, `tokenizer.json`). Weights are dequantized to `f32`.
    ///
    /// # Errors
    ///
    /// Any [`crate::ModelError`] naming the file, key or tensor at fault: unreadable or
    /// truncated files, unsupported architectures or tensor types, missing or misshapen
    /// tensors, a tokenizer that cannot be built.
    pub fn load(path: &Path, device: &B::Device) -> Result<Self> {
        Self::load_with(path, None, &LoadOptions::default(), device)
    }

    /// Like [`LanguageModel::load`], with a LoRA adapter merged into the weights
    /// (`W + scale · B · A` for every targeted module), in the same row order whether the
    /// model is a GGUF file or a Hugging Face folder. Read the adapter with
    /// [`LoraAdapter::load`].
    ///
    /// # Errors
    ///
    /// As [`LanguageModel::load`], and [`crate::ModelError::BadTensor`] naming the
    /// adapter's tensor when it does not fit the model (a layer out of range, a shape that
    /// differs; both shapes given), before any weight is read.
    pub fn load_with_adapter(
        path: &Path,
        adapter: &LoraAdapter,
        device: &B::Device,
    ) -> Result<Self> {
        Self::load_with(path, Some(adapter), &LoadOptions::default(), device)
    }

    /// Like [`LanguageModel::load`], with `adapter` merged when given and the limits of
    /// `options`: the model runs on `options.max_context` positions at most, whatever
    /// context the file declares.
    ///
    /// Before any weight is read, the file's tensors are checked against what its
    /// metadata declares: exactly the tensors of that many layers, in those shapes, a
    /// tokenizer whose ids (BOS and EOS included) fit the vocabulary, every tensor's data
    /// within the file. Weights must be finite, and stay finite once an adapter is merged.
    ///
    /// # Errors
    ///
    /// As [`LanguageModel::load_with_adapter`], and [`crate::ModelError::Config`] for
    /// options out of range ([`LoadOptions::check`]).
    pub fn load_with(
        path: &Path,
        adapter: Option<&LoraAdapter>,
        options: &LoadOptions,
        device: &B::Device,
    ) -> Result<Self> {
        let Prepared {
            opened,
            config,
            tokenizer,
            info,
        } = prepare(path, options)?;
        let transformer = match opened {
            Opened::Gguf(file) => build(
                &config,
                &mut GgufWeights::new(&file, &config)?,
                adapter,
                options.weights,
                device,
            )?,
            Opened::Hf(mut weights) => {
                build(&config, &mut weights, adapter, options.weights, device)?
            }
        };
        let mut model = Self::from_parts(transformer, tokenizer, config, info);
        model.adapter = adapter.map(|a| a.origin().to_path_buf());
        Ok(model)
    }

    /// A model from its parts (for models built in memory).
    pub fn from_parts(
        transformer: Transformer<B>,
        tokenizer: Tokenizer,
        config: LlamaConfig,
        info: ModelInfo,
    ) -> Self {
        Self {
            transformer,
            tokenizer,
            config,
            info,
            adapter: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// This model with `adapter` attached as LoRA branches beside its weights, unmerged.
    /// The copy shares this model's weights (burn tensors are reference-counted), so a
    /// weak-to-strong expert made from its naive base costs the adapter's factors, not a
    /// second model. It scores what [`LanguageModel::load_with_adapter`] scores, up to
    /// rounding (the update is added to the layer's output rather than to its weight).
    ///
    /// # Errors
    ///
    /// What [`LoraAdapter::check`] returns for an update that does not fit this model.
    pub fn with_adapter(&self, adapter: &LoraAdapter) -> Result<Self> {
        adapter.check(&self.config)?;
        let (transformer, _) = self.transformer.with_branches(adapter, false)?;
        let mut model = Self::from_parts(
            transformer,
            self.tokenizer.clone(),
            self.config.clone(),
            self.info.clone(),
        );
        model.adapter = Some(adapter.origin().to_path_buf());
        Ok(model)
    }

    /// The weights file of the LoRA adapter merged into or attached to this model, if any
    /// (what, beside the model's own file, decides its scores).
    pub fn adapter_origin(&self) -> Option<&Path> {
        self.adapter.as_deref()
    }

    /// How the weights are held: [`WeightStorage::F16`] only where it was asked for and
    /// the backend is the CPU.
    pub fn weight_storage(&self) -> WeightStorage {
        self.transformer.weight_storage()
    }

    /// The decoder.
    pub fn transformer(&self) -> &Transformer<B> {
        &self.transformer
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The decoder's sizes.
    pub fn config(&self) -> &LlamaConfig {
        &self.config
    }

    /// The model's description.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Scores each continuation after its prompt: per-token log-probabilities (and logits
    /// when asked), reusing and extending `cache`. Prompt and continuation are tokenized
    /// separately and their tokens concatenated.
    ///
    /// # Errors
    ///
    /// [`crate::ModelError::Tokenizer`] when a text cannot be encoded (a text the
    /// tokenizer turns into no tokens included), [`crate::ModelError::BadRequest`] naming
    /// the request (an empty prompt, one longer than the context), and
    /// [`crate::ModelError::NotANumber`] when the model computes NaN.
    pub fn score(
        &self,
        cache: &mut PrefixCache<B>,
        requests: &[ScoreRequest<'_>],
        options: &ScoreOptions,
    ) -> Result<Vec<Scored>> {
        let encoded = encode_requests(&self.tokenizer, requests)?;
        let token_requests: Vec<TokenRequest<'_>> =
            encoded.iter().map(EncodedRequest::as_tokens).collect();
        self.score_tokens(cache, &token_requests, options)
    }

    /// Like [`LanguageModel::score`], on token ids.
    ///
    /// # Errors
    ///
    /// [`crate::ModelError::BadRequest`] naming the request.
    pub fn score_tokens(
        &self,
        cache: &mut PrefixCache<B>,
        requests: &[TokenRequest<'_>],
        options: &ScoreOptions,
    ) -> Result<Vec<Scored>> {
        cache.bind(self.id);
        score_tokens(&self.transformer, cache, requests, options)
    }

    /// Greedy continuation of `prompt` (encoded as a prompt), stopping at the end-of-
    /// sequence token or after `max_tokens`; returns the tokens and their text.
    ///
    /// # Errors
    ///
    /// [`crate::ModelError::Tokenizer`] (a prompt the tokenizer turns into no tokens
    /// included), [`crate::ModelError::BadRequest`] (an empty prompt, or one that with
    /// `max_tokens` exceeds the context) and [`crate::ModelError::NotANumber`] when the
    /// model computes NaN.
    pub fn generate(&self, prompt: &str, max_tokens: usize) -> Result<(Generation, String)> {
        if prompt.is_empty() {
            return Err(ModelError::BadRequest {
                index: 0,
                problem: "empty prompt: generation needs a token to continue".into(),
            });
        }
        let ids = self.tokenizer.encode_prompt(prompt)?;
        let stop: Vec<u32> = self.tokenizer.eos_token().into_iter().collect();
        let generation = generate_greedy(&self.transformer, &ids, max_tokens, &stop)?;
        let text = self.tokenizer.decode(&generation.tokens)?;
        Ok((generation, text))
    }

    /// The chat prompt for a single user message, when the model has a known template.
    pub fn chat_prompt(&self, message: &str) -> Option<String> {
        self.tokenizer.chat_template().render_user(message)
    }
}

/// The decoder of `config` from `source`, with `adapter` merged when given, its weights
/// held as `storage` says.
fn build<B: Backend>(
    config: &LlamaConfig,
    source: &mut dyn WeightSource,
    adapter: Option<&LoraAdapter>,
    storage: WeightStorage,
    device: &B::Device,
) -> Result<Transformer<B>> {
    match adapter {
        None => Transformer::from_weights_stored(config, source, storage, device),
        Some(adapter) => {
            let mut adapted = AdaptedWeights::new(source, adapter, config)?;
            Transformer::from_weights_stored(config, &mut adapted, storage, device)
        }
    }
}
