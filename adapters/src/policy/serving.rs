//! Served models (an OpenAI-compatible endpoint in place of a model file) and the
//! persistent score cache, for every policy that scores with a language model.

use std::path::PathBuf;
use std::sync::Arc;

use bip_engine::TextScorer;
use bip_models::{RemoteOptions, ScoreCache};

use super::PolicyError;
use crate::cached::{CachedScorer, TokenScorer};
use crate::remote::RemoteScorer;

/// Most requests in flight at once to a served model.
pub const MAX_CONCURRENCY: usize = 256;

/// How served models are reached and where scores are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServingOptions {
    /// Keep every score in this folder (one file per model identity) across runs: an
    /// interrupted run resumes where it stopped, a repeated one recomputes nothing.
    pub cache: Option<PathBuf>,
    /// The model's name at the endpoint (the same as writing `URL#NAME`).
    pub served_model: Option<String>,
    /// bip's tokenizer for a served model (a GGUF file, a Hugging Face folder or its
    /// `tokenizer.json`, or an alias); the engine's tokens are checked against it.
    pub tokenizer: Option<String>,
    /// Requests in flight at once (the engine batches them), 1 to [`MAX_CONCURRENCY`].
    pub concurrency: usize,
    /// A bearer token for the endpoint.
    pub api_key: Option<String>,
}

impl Default for ServingOptions {
    fn default() -> Self {
        Self {
            cache: None,
            served_model: None,
            tokenizer: None,
            concurrency: 4,
            api_key: None,
        }
    }
}

impl ServingOptions {
    /// Checks the numbers before anything connects.
    pub(super) fn check(&self) -> Result<(), PolicyError> {
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return Err(PolicyError::OutOfRange {
                option: "concurrency",
                value: self.concurrency.to_string(),
                range: format!("1..={MAX_CONCURRENCY}"),
            });
        }
        Ok(())
    }

    /// Connects to the served model `spec` (`http://HOST:PORT/v1` or `URL#NAME`).
    ///
    /// # Errors
    /// [`PolicyError::NoTokenizer`] without [`ServingOptions::tokenizer`];
    /// [`PolicyError::Served`] when the endpoint cannot be reached or its tokenization
    /// differs from bip's.
    pub fn connect(&self, spec: &str) -> Result<RemoteScorer, PolicyError> {
        let Some(tokenizer) = &self.tokenizer else {
            return Err(PolicyError::NoTokenizer {
                spec: spec.to_string(),
            });
        };
        let options = RemoteOptions {
            concurrency: self.concurrency,
            api_key: self.api_key.clone(),
            ..RemoteOptions::default()
        };
        crate::remote::connect(spec, self.served_model.as_deref(), tokenizer, options).map_err(
            |source| PolicyError::Served {
                spec: spec.to_string(),
                source,
            },
        )
    }

    /// `scorer` behind the score cache, when one is asked for (noted in `caches`).
    pub(super) fn cached(
        &self,
        scorer: Box<dyn TokenScorer>,
        caches: &mut Vec<Arc<ScoreCache>>,
    ) -> Result<Box<dyn TextScorer>, PolicyError> {
        let cache = match &self.cache {
            Some(dir) => {
                let cache =
                    ScoreCache::open(dir, &scorer.identity()).map_err(PolicyError::Cache)?;
                let cache = Arc::new(cache);
                caches.push(Arc::clone(&cache));
                Some(cache)
            }
            None => None,
        };
        Ok(Box::new(CachedScorer::new(scorer, cache)))
    }
}
