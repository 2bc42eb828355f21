//! Weak-to-strong scoring at several steering strengths from one run of the three
//! models: what fitting α needs, since every try of α would otherwise rerun them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bip_engine::{PolicyFailure, TextRequest};
use bip_models::burn::tensor::backend::Backend;
use bip_models::{encode_requests, EncodedRequest, WeakToStrong};

use super::{score_requests, token_requests, w2s_identity, w2s_name, POISONED};
use crate::cached::TokenScorer;

/// Log-probabilities of one (prompt, continuation), at each α of the sweep.
type AtEachAlpha = Arc<[Vec<f32>]>;

/// A request's prompt and continuation tokens.
type RequestTokens = (Vec<u32>, Vec<u32>);

/// Three models steered at each of several α: [`AlphaSweep::scorers`] gives one
/// [`TokenScorer`] per α. Whichever is asked first for a (prompt, continuation) runs the
/// models once and keeps every α's log-probabilities, so that the others answer it from
/// memory.
pub struct AlphaSweep<B: Backend> {
    w2s: Mutex<WeakToStrong<B>>,
    alphas: Vec<f64>,
    /// Each α's scorer's name and identity.
    labels: Vec<(String, String)>,
    /// Keyed by the prompt's and the continuation's tokens.
    scored: Mutex<HashMap<RequestTokens, AtEachAlpha>>,
}

impl<B: Backend> AlphaSweep<B>
where
    WeakToStrong<B>: Send,
{
    /// Sweeps `w2s` (its own α unused) over `alphas`, each checked as
    /// [`WeakToStrong::new`] checks α when first scored.
    pub fn new(w2s: WeakToStrong<B>, alphas: Vec<f64>) -> Arc<Self> {
        let labels = alphas
            .iter()
            .map(|&alpha| (w2s_name(&w2s, alpha), w2s_identity(&w2s, alpha)))
            .collect();
        Arc::new(Self {
            w2s: Mutex::new(w2s),
            alphas,
            labels,
            scored: Mutex::new(HashMap::new()),
        })
    }

    /// One scorer per α, in the order of the sweep's α; each has the identity a
    /// [`W2sScorer`](super::W2sScorer) at that α has, so a score cache serves both.
    pub fn scorers(self: &Arc<Self>) -> Vec<Box<dyn TokenScorer>>
    where
        B: 'static,
    {
        (0..self.alphas.len())
            .map(|index| {
                Box::new(AlphaScorer {
                    sweep: Arc::clone(self),
                    index,
                }) as Box<dyn TokenScorer>
            })
            .collect()
    }

    /// The log-probabilities of each of `encoded` at every α, running the models on
    /// those not scored before.
    fn at_each_alpha(&self, encoded: &[EncodedRequest]) -> Result<Vec<AtEachAlpha>, PolicyFailure> {
        let key = |e: &EncodedRequest| (e.prompt.clone(), e.continuation.clone());
        let mut scored = self.scored.lock().map_err(|_| POISONED)?;
        let missing: Vec<&EncodedRequest> = encoded
            .iter()
            .filter(|e| !scored.contains_key(&key(e)))
            .collect();
        if !missing.is_empty() {
            let todo: Vec<EncodedRequest> = missing.iter().map(|&e| e.clone()).collect();
            let mut w2s = self.w2s.lock().map_err(|_| POISONED)?;
            let per_alpha = w2s.score_tokens_at(&token_requests(&todo), &self.alphas)?;
            for (i, e) in todo.iter().enumerate() {
                let each: AtEachAlpha = per_alpha.iter().map(|at| at[i].logprobs.clone()).collect();
                scored.insert(key(e), each);
            }
        }
        encoded
            .iter()
            .map(|e| {
                scored
                    .get(&key(e))
                    .cloned()
                    .ok_or_else(|| PolicyFailure::from("a swept score is missing"))
            })
            .collect()
    }

    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        let w2s = self.w2s.lock().map_err(|_| POISONED)?;
        Ok(encode_requests(
            w2s.large().tokenizer(),
            &score_requests(requests),
        )?)
    }

    fn tokens_computed(&self) -> u64 {
        self.w2s
            .lock()
            .map(|w| w.stats().tokens_computed())
            .unwrap_or(0)
    }
}

/// The sweep at one of its α.
struct AlphaScorer<B: Backend> {
    sweep: Arc<AlphaSweep<B>>,
    index: usize,
}

impl<B: Backend> TokenScorer for AlphaScorer<B>
where
    WeakToStrong<B>: Send,
{
    fn name(&self) -> &str {
        &self.sweep.labels[self.index].0
    }

    fn identity(&self) -> String {
        self.sweep.labels[self.index].1.clone()
    }

    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        self.sweep.encode(requests)
    }

    fn score_encoded(
        &self,
        _texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure> {
        let scored = self.sweep.at_each_alpha(encoded)?;
        scored
            .into_iter()
            .enumerate()
            .try_for_each(|(i, each)| done(i, each[self.index].clone()))
    }

    /// The models' tokens, which every α of the sweep shares.
    fn tokens_computed(&self) -> u64 {
        self.sweep.tokens_computed()
    }
}
