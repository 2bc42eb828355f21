//! Weak-to-strong steering of a served large model by a local expert and naive pair:
//! the top-k mode ([`bip_models::steered_top_k`]), since engines return L's distribution
//! only as its top k. Each token's score is the estimate; the widest bound met so far is
//! kept for the report.

use std::sync::{Arc, Mutex};

use bip_engine::{PolicyFailure, TextRequest};
use bip_models::burn::tensor::backend::Backend;
use bip_models::remote::TopK;
use bip_models::{
    steered_top_k, EncodedRequest, LanguageModel, ModelError, PrefixCache, ScoreOptions,
    TokenRequest,
};

use crate::cached::TokenScorer;
use crate::remote::{remote_requests, whole_texts, RemoteScorer};
use crate::scorer::model_identity;

/// A served L steered by local E and N: `log_softmax(s_L + α (s_E − s_N))` from L's top k.
pub struct RemoteW2sScorer<B: Backend> {
    name: String,
    identity: String,
    large: RemoteScorer,
    small: Mutex<Small<B>>,
    alpha: f64,
    widest: Arc<WidestBound>,
}

/// The widest interval (nats) a steered log-probability of a top-k scorer was sure to lie
/// in so far: shared, so that whoever built the scorer can report it at the end of a run.
#[derive(Debug, Default)]
pub struct WidestBound(Mutex<f64>);

impl WidestBound {
    /// The width so far (0 before anything is scored).
    pub fn nats(&self) -> f64 {
        self.0.lock().map_or(f64::NAN, |w| *w)
    }

    fn widen(&self, width: f64) {
        if let Ok(mut widest) = self.0.lock() {
            *widest = widest.max(width);
        }
    }
}

/// The local models and their prefix caches.
struct Small<B: Backend> {
    expert: Arc<LanguageModel<B>>,
    naive: Arc<LanguageModel<B>>,
    expert_cache: PrefixCache<B>,
    naive_cache: PrefixCache<B>,
}

impl<B: Backend> RemoteW2sScorer<B> {
    /// Combines a served L with local E and N, which must tokenize as L's tokenizer does.
    ///
    /// # Errors
    ///
    /// [`ModelError::Incompatible`] naming the model whose vocabulary differs.
    pub fn new(
        large: RemoteScorer,
        expert: Arc<LanguageModel<B>>,
        naive: Arc<LanguageModel<B>>,
        alpha: f64,
        widest: Arc<WidestBound>,
    ) -> Result<Self, ModelError> {
        for (role, model) in [("expert", &expert), ("naive", &naive)] {
            if let Some(problem) = large
                .model()
                .tokenizer()
                .vocabulary_difference(model.tokenizer())
            {
                return Err(ModelError::Incompatible {
                    first: format!("the served large model {}", large.model().endpoint()),
                    second: format!("the {role} model {}", model.info().path.display()),
                    problem,
                });
            }
        }
        let k = large.model().options().top_k;
        let identity = format!(
            "w2s top-{k} α={alpha} L={} E={} N={}",
            large.identity(),
            model_identity(expert.as_ref()),
            model_identity(naive.as_ref())
        );
        Ok(Self {
            name: format!("w2s (top {k}) L={} α={alpha}", large.name()),
            identity,
            large,
            small: Mutex::new(Small {
                expert,
                naive,
                expert_cache: PrefixCache::default(),
                naive_cache: PrefixCache::default(),
            }),
            alpha,
            widest,
        })
    }

    /// The widest interval (nats) a steered log-probability was sure to lie in so far.
    pub fn widest_bound(&self) -> f64 {
        self.widest.nats()
    }
}

impl<B: Backend> TokenScorer for RemoteW2sScorer<B>
where
    LanguageModel<B>: Send + Sync,
    PrefixCache<B>: Send,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        self.large.encode(requests)
    }

    fn score_encoded(
        &self,
        texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure> {
        let whole = whole_texts(texts, encoded);
        let requests = remote_requests(&whole);
        let mut large: Vec<Vec<TopK>> = vec![Vec::new(); requests.len()];
        self.large.model().score_top_k(&requests, &mut |i, top| {
            large[i] = top;
            Ok(())
        })?;
        let token_requests: Vec<TokenRequest<'_>> =
            encoded.iter().map(EncodedRequest::as_tokens).collect();
        let options = ScoreOptions {
            full_logits: true,
            ..ScoreOptions::default()
        };
        let mut small = self
            .small
            .lock()
            .map_err(|_| "the models' lock was poisoned")?;
        let small = &mut *small;
        let expert =
            small
                .expert
                .score_tokens(&mut small.expert_cache, &token_requests, &options)?;
        let naive = small
            .naive
            .score_tokens(&mut small.naive_cache, &token_requests, &options)?;
        for (i, ((e, n), top)) in expert.iter().zip(&naive).zip(&large).enumerate() {
            let (Some(el), Some(nl)) = (&e.logits, &n.logits) else {
                return Err("the small models returned no logits".into());
            };
            let vocab = e.vocab_size;
            let mut logprobs = Vec::with_capacity(top.len());
            for (j, (token, l)) in encoded[i].continuation.iter().zip(top).enumerate() {
                let row = j * vocab..(j + 1) * vocab;
                let got = steered_top_k(
                    &l.top,
                    *token,
                    l.logprob,
                    &el[row.clone()],
                    &nl[row],
                    self.alpha,
                )?;
                self.widest.widen(got.upper - got.lower);
                logprobs.push(got.estimate as f32);
            }
            done(i, logprobs)?;
        }
        Ok(())
    }

    fn tokens_computed(&self) -> u64 {
        self.large.tokens_computed()
    }
}
