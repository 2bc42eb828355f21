//! Scoring through the persistent score cache: [`TokenScorer`] is what every scorer
//! (hosted or served) offers at the level of token ids, and [`CachedScorer`] turns one into
//! the engine's [`TextScorer`], answering from a [`ScoreCache`] what was scored before and
//! recording what it scores as each score arrives.

use std::sync::Arc;

use bip_engine::{PolicyFailure, TextRequest, TextScore, TextScorer};
use bip_models::{EncodedRequest, ScoreCache};

/// A scorer at the level of token ids.
pub trait TokenScorer: Send + Sync {
    /// A short description for reports.
    fn name(&self) -> &str;

    /// What makes its scores what they are (file, adapter, endpoint, α), as the score
    /// cache's key: two scorers with one identity must score alike.
    fn identity(&self) -> String;

    /// Encodes requests as the model reads them (prompt with BOS, continuation alone).
    ///
    /// # Errors
    ///
    /// A text the tokenizer cannot encode.
    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure>;

    /// Scores `encoded` (the tokens of `texts`), handing each continuation's
    /// log-probabilities to `done` with its index as they are known.
    ///
    /// # Errors
    ///
    /// Whatever stopped the model, or what `done` returned.
    fn score_encoded(
        &self,
        texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure>;

    /// Tokens run through the model(s) so far.
    fn tokens_computed(&self) -> u64;

    /// A scorer over the same model(s) with caches of its own, starting empty (see
    /// [`TextScorer::fork`]); `None` (the default) when there is none.
    fn fork(&self) -> Option<Box<dyn TokenScorer>> {
        None
    }
}

impl<T: TokenScorer + ?Sized> TokenScorer for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn identity(&self) -> String {
        (**self).identity()
    }
    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        (**self).encode(requests)
    }
    fn score_encoded(
        &self,
        texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure> {
        (**self).score_encoded(texts, encoded, done)
    }
    fn tokens_computed(&self) -> u64 {
        (**self).tokens_computed()
    }
    fn fork(&self) -> Option<Box<dyn TokenScorer>> {
        (**self).fork()
    }
}

/// A [`TokenScorer`] behind an optional persistent cache, as the engine's [`TextScorer`].
pub struct CachedScorer<T> {
    inner: T,
    cache: Option<Arc<ScoreCache>>,
}

impl<T: TokenScorer> CachedScorer<T> {
    /// `inner`, consulting and filling `cache` when given (opened for `inner`'s
    /// [`TokenScorer::identity`]).
    pub fn new(inner: T, cache: Option<Arc<ScoreCache>>) -> Self {
        Self { inner, cache }
    }

    /// The cache, when there is one.
    pub fn cache(&self) -> Option<&Arc<ScoreCache>> {
        self.cache.as_ref()
    }
}

impl<T: TokenScorer> TextScorer for CachedScorer<T> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn score(&self, requests: &[TextRequest<'_>]) -> Result<Vec<TextScore>, PolicyFailure> {
        let encoded = self.inner.encode(requests)?;
        let joined: Vec<Vec<u32>> = encoded
            .iter()
            .map(|e| [e.prompt.as_slice(), &e.continuation].concat())
            .collect();
        let mut scores: Vec<Option<Vec<f32>>> = match &self.cache {
            Some(cache) => joined
                .iter()
                .zip(&encoded)
                .map(|(all, e)| cache.get(all, e.continuation.len()))
                .collect(),
            None => vec![None; requests.len()],
        };
        let missing: Vec<usize> = (0..requests.len())
            .filter(|&i| scores[i].is_none())
            .collect();
        if !missing.is_empty() {
            let texts: Vec<TextRequest<'_>> = missing.iter().map(|&i| requests[i]).collect();
            let todo: Vec<EncodedRequest> = missing.iter().map(|&i| encoded[i].clone()).collect();
            let cache = self.cache.as_deref();
            self.inner
                .score_encoded(&texts, &todo, &mut |j, logprobs| {
                    let i = missing[j];
                    if let Some(cache) = cache {
                        cache.insert(&joined[i], encoded[i].continuation.len(), &logprobs)?;
                    }
                    scores[i] = Some(logprobs);
                    Ok(())
                })?;
        }
        encoded
            .iter()
            .zip(scores)
            .map(|(e, s)| {
                let logprobs = s.ok_or("the scorer returned fewer scores than requests")?;
                Ok(TextScore {
                    logprobs: logprobs.iter().map(|&l| f64::from(l)).collect(),
                    prompt_tokens: e.prompt.len(),
                })
            })
            .collect()
    }

    fn tokens_computed(&self) -> u64 {
        self.inner.tokens_computed()
    }

    /// The fork shares the persistent score cache: what either scores, both find.
    fn fork(&self) -> Option<Box<dyn TextScorer>> {
        let inner = self.inner.fork()?;
        Some(Box::new(CachedScorer::new(inner, self.cache.clone())))
    }
}
