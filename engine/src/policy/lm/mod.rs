//! The language-model policy (BIP-ALM's): log P(action | goal, state, belief) is how
//! likely a causal LM finds the action's text after a prompt that renders the rest.
//!
//! The LM itself sits behind [`TextScorer`] so that the engine does not depend on a
//! tensor library; `bip` implements it for its burn-hosted models. The policy sees a
//! whole step at once ([`Policy::log_probs`]): hypotheses that render to the same prompt
//! are scored once, every (prompt, action) pair scored is remembered, and the prompts are
//! built shared part first ([`PromptTemplate`]) so that the scorer's prefix cache computes
//! the layout once per episode and the agent's whereabouts once per step.

mod prompt;
mod scorer;

pub use prompt::{PromptStyle, PromptTemplate};
pub use scorer::{TextRequest, TextScore, TextScorer};

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use bip_episodes::Action;

use super::{Policy, PolicyFailure, PolicyWork, Situation};

/// How the per-token log-probabilities of an action's text become its log-likelihood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenReduction {
    /// Their mean (BIP-ALM's choice): long and short action names compete evenly.
    #[default]
    Mean,
    /// Their sum: the probability of the whole text.
    Sum,
}

impl TokenReduction {
    fn apply(self, logprobs: &[f64]) -> f64 {
        let total: f64 = logprobs.iter().sum();
        match self {
            TokenReduction::Sum => total,
            TokenReduction::Mean if logprobs.is_empty() => 0.0,
            TokenReduction::Mean => total / logprobs.len() as f64,
        }
    }
}

/// Remembered (prompt, action) scores are dropped once there are this many, so that a
/// long run's memory stays bounded (entries of finished episodes are of no further use).
const MEMO_LIMIT: usize = 200_000;

/// A (prompt, continuation) pair of texts, as remembered.
type Pair = (String, String);

/// Remembered scores by pair.
type MemoMap = HashMap<Pair, Memo>;

/// A remembered score.
#[derive(Debug, Clone, Copy)]
struct Memo {
    log_prob: f64,
    /// Prompt plus continuation tokens: what scoring it unshared costs.
    tokens: u64,
}

/// A policy that scores actions with a causal language model.
pub struct LmPolicy {
    name: String,
    scorer: Box<dyn TextScorer>,
    template: PromptTemplate,
    reduction: TokenReduction,
    memo: Mutex<MemoMap>,
    /// (prompt, continuation) pairs announced and not scored yet.
    announced: Mutex<Vec<Pair>>,
    unshared_tokens: AtomicU64,
}

impl LmPolicy {
    /// A policy over `scorer` with the default template and mean reduction.
    pub fn new(scorer: Box<dyn TextScorer>) -> Self {
        Self::with_options(scorer, PromptTemplate::default(), TokenReduction::default())
    }

    /// A policy over `scorer` with the given template and reduction.
    pub fn with_options(
        scorer: Box<dyn TextScorer>,
        template: PromptTemplate,
        reduction: TokenReduction,
    ) -> Self {
        Self {
            name: format!("lm ({})", scorer.name()),
            scorer,
            template,
            reduction,
            memo: Mutex::new(HashMap::new()),
            announced: Mutex::new(Vec::new()),
            unshared_tokens: AtomicU64::new(0),
        }
    }

    /// The template prompts are rendered with.
    pub fn template(&self) -> &PromptTemplate {
        &self.template
    }

    /// The memo, emptied first when it has grown past [`MEMO_LIMIT`].
    fn memo(&self) -> Result<MutexGuard<'_, MemoMap>, PolicyFailure> {
        let mut memo = self
            .memo
            .lock()
            .map_err(|_| "the LM policy's memo was poisoned by a panic")?;
        if memo.len() > MEMO_LIMIT {
            memo.clear();
        }
        Ok(memo)
    }

    /// Scores, in one call to the scorer, every distinct (prompt, continuation) pair of
    /// `pairs` not in the memo, and remembers the scores.
    fn score_missing(&self, memo: &mut MemoMap, pairs: &[Pair]) -> Result<(), PolicyFailure> {
        // Distinct pairs not scored before, in first-seen order (deterministic batches).
        let mut seen = HashSet::new();
        let missing: Vec<&Pair> = pairs
            .iter()
            .filter(|&pair| !memo.contains_key(pair) && seen.insert(pair))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let requests: Vec<TextRequest<'_>> = missing
            .iter()
            .map(|(prompt, continuation)| TextRequest {
                prompt,
                continuation,
            })
            .collect();
        let scores = self.scorer.score(&requests)?;
        if scores.len() != requests.len() {
            return Err(format!(
                "the scorer returned {} scores for {} requests",
                scores.len(),
                requests.len()
            )
            .into());
        }
        for (&pair, score) in missing.iter().zip(scores) {
            let log_prob = self.reduction.apply(&score.logprobs);
            if log_prob.is_nan() {
                let continuation = &pair.1;
                return Err(format!("the scorer returned NaN for {continuation:?}").into());
            }
            let tokens = (score.prompt_tokens + score.logprobs.len()) as u64;
            memo.insert(pair.clone(), Memo { log_prob, tokens });
        }
        Ok(())
    }
}

impl Policy for LmPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64 {
        self.log_probs(std::slice::from_ref(situation), action)
            .ok()
            .and_then(|v| v.first().copied())
            .unwrap_or(f64::NEG_INFINITY)
    }

    fn log_probs(
        &self,
        situations: &[Situation<'_>],
        action: &Action,
    ) -> Result<Vec<f64>, PolicyFailure> {
        let Some(first) = situations.first() else {
            return Ok(Vec::new());
        };
        let continuation = self.template.action(first.world, action);
        let pairs: Vec<Pair> = situations
            .iter()
            .map(|s| (self.template.prompt(s), continuation.clone()))
            .collect();
        let mut memo = self.memo()?;
        self.score_missing(&mut memo, &pairs)?;
        let mut unshared = 0;
        let mut out = Vec::with_capacity(pairs.len());
        for pair in &pairs {
            let entry = memo
                .get(pair)
                .ok_or("a scored prompt went missing from the memo")?;
            unshared += entry.tokens;
            out.push(entry.log_prob);
        }
        self.unshared_tokens.fetch_add(unshared, Ordering::Relaxed);
        Ok(out)
    }

    fn scores_ahead(&self) -> bool {
        true
    }

    fn announce(&self, situations: &[Situation<'_>], action: &Action) {
        let Some(first) = situations.first() else {
            return;
        };
        let continuation = self.template.action(first.world, action);
        if let Ok(mut announced) = self.announced.lock() {
            announced.extend(
                situations
                    .iter()
                    .map(|s| (self.template.prompt(s), continuation.clone())),
            );
        }
    }

    fn score_announced(&self) -> Result<(), PolicyFailure> {
        let pairs = std::mem::take(
            &mut *self
                .announced
                .lock()
                .map_err(|_| "the LM policy's announcements were poisoned by a panic")?,
        );
        let mut memo = self.memo()?;
        self.score_missing(&mut memo, &pairs)
    }

    fn work(&self) -> PolicyWork {
        PolicyWork {
            lm_tokens: self.scorer.tokens_computed(),
            lm_tokens_unshared: self.unshared_tokens.load(Ordering::Relaxed),
        }
    }

    fn serial(&self) -> bool {
        true
    }

    fn fork(&self) -> Option<Box<dyn Policy>> {
        let scorer = self.scorer.fork()?;
        Some(Box::new(Self::with_options(
            scorer,
            self.template,
            self.reduction,
        )))
    }
}

#[cfg(test)]
mod tests;
