//! Scorers over bip's burn-hosted language models: one model ([`ModelScorer`]) or three
//! steered weak-to-strong ([`W2sScorer`]), also at several steering strengths at once
//! ([`AlphaSweep`]). Each is a [`TokenScorer`](crate::cached::TokenScorer), as the
//! served models' scorers are; the engine reaches every one of them the same way, through
//! [`CachedScorer`](crate::cached::CachedScorer) (with a persistent score cache or none).

use std::sync::{Arc, Mutex, OnceLock};

use bip_engine::TextRequest;

mod sweep;
mod tokens;

use bip_models::burn::tensor::backend::Backend;
use bip_models::{
    EncodedRequest, LanguageModel, PrefixCache, ScoreRequest, TokenRequest, WeakToStrong,
};
pub use sweep::AlphaSweep;
use tokens::local_identity;
pub use tokens::{file_identity, model_identity};

/// One language model with its prefix cache, scoring for the LM policy.
///
/// Calls are serialised (the model already uses every core); the cache persists across
/// calls, so an episode's layout is computed once and each step's shared part once.
/// [`TokenScorer::fork`](crate::cached::TokenScorer::fork) gives a scorer over the same
/// weights with a cache of its own, for scoring beside this one.
pub struct ModelScorer<B: Backend> {
    name: String,
    /// Made when a score cache first asks: it hashes the weight files.
    identity: Arc<OnceLock<String>>,
    model: Arc<LanguageModel<B>>,
    cache: Mutex<PrefixCache<B>>,
}

impl<B: Backend> ModelScorer<B> {
    /// Wraps `model` with an empty prefix cache.
    pub fn new(model: LanguageModel<B>) -> Self {
        Self {
            name: model_name(&model),
            identity: Arc::default(),
            model: Arc::new(model),
            cache: Mutex::new(PrefixCache::default()),
        }
    }

    /// A scorer over the same weights with an empty prefix cache of its own.
    fn fork(&self) -> Self {
        Self {
            name: self.name.clone(),
            identity: Arc::clone(&self.identity),
            model: Arc::clone(&self.model),
            cache: Mutex::new(PrefixCache::default()),
        }
    }
}

/// Weak-to-strong scoring: a large model steered by a small expert against its naive
/// twin, `log_softmax(s_L + α (s_E − s_N))` per token.
pub struct W2sScorer<B: Backend> {
    name: String,
    /// Made when a score cache first asks: it hashes the weight files.
    identity: OnceLock<String>,
    w2s: Mutex<WeakToStrong<B>>,
}

impl<B: Backend> W2sScorer<B> {
    /// Wraps three models already checked to share one tokenizer.
    pub fn new(w2s: WeakToStrong<B>) -> Self {
        Self {
            name: w2s_name(&w2s, w2s.alpha()),
            identity: OnceLock::new(),
            w2s: Mutex::new(w2s),
        }
    }
}

/// A short description of `w2s` steered at `alpha`, for reports.
fn w2s_name<B: Backend>(w2s: &WeakToStrong<B>, alpha: f64) -> String {
    format!(
        "w2s L={} E={} N={} α={alpha}",
        model_name(w2s.large()),
        model_name(w2s.expert()),
        model_name(w2s.naive()),
    )
}

/// The score cache's identity of `w2s` steered at `alpha`. At α = 0 its scores are the
/// large model's own, bit for bit ([`WeakToStrong`] scores L alone there), so it takes
/// L's identity: w2s at α = 0 and `--policy lm` on L share one cache.
fn w2s_identity<B: Backend>(w2s: &WeakToStrong<B>, alpha: f64) -> String {
    if alpha == 0.0 {
        return local_identity(w2s.large());
    }
    format!(
        "w2s α={alpha} L={} E={} N={}",
        model_identity(w2s.large()),
        model_identity(w2s.expert()),
        model_identity(w2s.naive())
    )
}

pub(crate) const POISONED: &str = "the model's cache was poisoned by a panic";

fn model_name<B: Backend>(model: &LanguageModel<B>) -> String {
    let info = model.info();
    info.name.clone().unwrap_or_else(|| {
        let path = &info.path;
        let file = path.file_name().unwrap_or(path.as_os_str());
        file.to_string_lossy().into_owned()
    })
}

pub(crate) fn score_requests<'a>(requests: &[TextRequest<'a>]) -> Vec<ScoreRequest<'a>> {
    requests
        .iter()
        .map(|r| ScoreRequest {
            prompt: r.prompt,
            continuation: r.continuation,
        })
        .collect()
}

pub(crate) fn token_requests(encoded: &[EncodedRequest]) -> Vec<TokenRequest<'_>> {
    encoded.iter().map(EncodedRequest::as_tokens).collect()
}
