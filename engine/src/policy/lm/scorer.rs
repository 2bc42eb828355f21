//! The one thing the LM policy needs from a language model: log-probabilities of texts.

use super::super::PolicyFailure;

/// A (prompt, continuation) pair of texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRequest<'a> {
    /// Text before the continuation.
    pub prompt: &'a str,
    /// Text scored.
    pub continuation: &'a str,
}

/// The score of one continuation.
#[derive(Debug, Clone, PartialEq)]
pub struct TextScore {
    /// Natural-log probability of each continuation token given everything before it.
    pub logprobs: Vec<f64>,
    /// Tokens of the prompt (to count the work of scoring with no sharing).
    pub prompt_tokens: usize,
}

/// Scores continuations after prompts with a causal language model.
///
/// Implemented by the `bip` crate for the burn-hosted models of `bip-models` (one model,
/// or three steered weak-to-strong); the engine needs nothing else from them. Calls may
/// come from several threads; an implementation serialises them as it needs to.
pub trait TextScorer: Send + Sync {
    /// A short description for reports ("SmolLM2-135M-Instruct").
    fn name(&self) -> &str;

    /// Scores every request, in order. Requests sharing a prompt beginning should share
    /// its computation.
    ///
    /// # Errors
    /// Whatever stopped the model (a prompt longer than its context, say).
    fn score(&self, requests: &[TextRequest<'_>]) -> Result<Vec<TextScore>, PolicyFailure>;

    /// Tokens run through the model(s) so far, cache hits excluded.
    fn tokens_computed(&self) -> u64;

    /// A scorer over the same model(s) with caches of its own, starting empty, for work
    /// that runs beside this scorer's; `None` (the default) when the scorer cannot have
    /// one, and its callers then share it one call at a time. Its scores depend only on
    /// what it is asked, never on what this scorer or another fork has cached.
    fn fork(&self) -> Option<Box<dyn TextScorer>> {
        None
    }
}
