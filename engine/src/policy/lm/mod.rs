//! The language-model policy (BIP-ALM's): log P(action | goal, state, belief) is how
//! likely a causal LM finds the action's text after a prompt that renders the rest, or,
//! with [`ActionLikelihood::Choice`], that score normalised over the texts of every
//! action possible at the step.
//!
//! The LM itself sits behind [`TextScorer`] so that the engine does not depend on a
//! tensor library; `bip` implements it for its burn-hosted models. The policy sees a
//! whole step at once ([`Policy::log_probs`]): hypotheses that render to the same prompt
//! are scored once, every (prompt, action) pair scored is remembered, and the prompts are
//! built shared part first ([`PromptTemplate`]) so that the scorer's prefix cache computes
//! the layout once per episode and the agent's whereabouts once per step.

mod choice;
mod prompt;
mod scorer;

pub use choice::ActionLikelihood;
pub use prompt::{PromptStyle, PromptTemplate};
pub use scorer::{TextRequest, TextScore, TextScorer};

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bip_episodes::Action;

use super::{Policy, PolicyFailure, PolicyWork, Situation};
use crate::named::{named_impls, Named};

/// How the per-token log-probabilities of an action's text become its log-likelihood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenReduction {
    /// Their mean (BIP-ALM's choice): long and short action names compete evenly.
    #[default]
    Mean,
    /// Their sum: the probability of the whole text.
    Sum,
}

impl Named for TokenReduction {
    const WHAT: &'static str = "score";
    const VALUES: &'static [(Self, &'static str, &'static str)] = &[
        (Self::Mean, "mean", "Mean per token (BIP-ALM)"),
        (Self::Sum, "sum", "Sum: the whole text's log-probability"),
    ];
}

named_impls!(TokenReduction);

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

/// A (prompt, continuation) pair of texts, as remembered. Shared: with
/// [`ActionLikelihood::Choice`] one prompt goes with every possible action's text.
type Pair = (Arc<str>, Arc<str>);

/// Remembered scores by pair.
type MemoMap = HashMap<Pair, Memo>;

/// A remembered score.
#[derive(Debug, Clone, Copy)]
struct Memo {
    log_prob: f64,
    /// Prompt plus continuation tokens: what scoring it unshared costs.
    tokens: u64,
}

/// The actions one situation's likelihood needs, and the pairs that score them.
struct StepPairs {
    actions: Vec<Action>,
    pairs: Vec<Pair>,
}

/// A policy that scores actions with a causal language model.
pub struct LmPolicy {
    name: String,
    scorer: Box<dyn TextScorer>,
    template: PromptTemplate,
    reduction: TokenReduction,
    likelihood: ActionLikelihood,
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
            likelihood: ActionLikelihood::default(),
            memo: Mutex::new(HashMap::new()),
            announced: Mutex::new(Vec::new()),
            unshared_tokens: AtomicU64::new(0),
        }
    }

    /// The policy with actions' likelihoods taken as `likelihood` says.
    pub fn with_likelihood(mut self, likelihood: ActionLikelihood) -> Self {
        self.likelihood = likelihood;
        self
    }

    /// The template prompts are rendered with.
    pub fn template(&self) -> &PromptTemplate {
        &self.template
    }

    /// What an action's likelihood is a probability of.
    pub fn likelihood(&self) -> ActionLikelihood {
        self.likelihood
    }

    /// Per situation, the actions its likelihood of `action` needs scores of and the
    /// (prompt, continuation) pairs that score them.
    fn step_pairs(&self, situations: &[Situation<'_>], action: &Action) -> Vec<StepPairs> {
        let mut texts: HashMap<Action, Arc<str>> = HashMap::new();
        situations
            .iter()
            .map(|s| {
                let prompt: Arc<str> = self.template.prompt(s).into();
                let actions = choice::alternatives(self.likelihood, s, action);
                let pairs = actions
                    .iter()
                    .map(|a| {
                        let text = texts
                            .entry(*a)
                            .or_insert_with(|| self.template.action(s.world, a).into());
                        (Arc::clone(&prompt), Arc::clone(text))
                    })
                    .collect();
                StepPairs { actions, pairs }
            })
            .collect()
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
        let steps = self.step_pairs(situations, action);
        let all: Vec<Pair> = steps.iter().flat_map(|s| s.pairs.clone()).collect();
        let mut memo = self.memo()?;
        self.score_missing(&mut memo, &all)?;
        let mut unshared = 0;
        let mut out = Vec::with_capacity(steps.len());
        for (situation, step) in situations.iter().zip(&steps) {
            let mut scores = Vec::with_capacity(step.pairs.len());
            for pair in &step.pairs {
                let entry = memo
                    .get(pair)
                    .ok_or("a scored prompt went missing from the memo")?;
                unshared += entry.tokens;
                scores.push(entry.log_prob);
            }
            out.push(choice::log_likelihood(
                self.likelihood,
                situation,
                &step.actions,
                &scores,
            ));
        }
        self.unshared_tokens.fetch_add(unshared, Ordering::Relaxed);
        Ok(out)
    }

    fn scores_ahead(&self) -> bool {
        true
    }

    fn announce(&self, situations: &[Situation<'_>], action: &Action) {
        let steps = self.step_pairs(situations, action);
        if let Ok(mut announced) = self.announced.lock() {
            announced.extend(steps.into_iter().flat_map(|s| s.pairs));
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
        Some(Box::new(
            Self::with_options(scorer, self.template, self.reduction)
                .with_likelihood(self.likelihood),
        ))
    }
}

#[cfg(test)]
mod tests;
