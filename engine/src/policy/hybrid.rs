//! A product of experts: the planner and a language model, each raised to a weight.

use std::sync::Arc;

use bip_episodes::Action;

use super::{Policy, PolicyFailure, PolicyWork, Situation};
use crate::error::EngineError;

/// log P(a | g, s, b) = w_planner · log P_planner + w_lm · log P_lm.
///
/// Neither BIP-ALM nor the weak-to-strong planner combines a symbolic planner with an LM;
/// the product keeps an action likely only where both find it likely, so the planner's
/// sharp reading of routes and the LM's reading of the text can correct each other.
/// The result is unnormalised over actions, like the LM policy's scores.
pub struct HybridPolicy {
    name: String,
    // Shared, so that a reweighted copy keeps the language model's remembered scores.
    planner: Arc<dyn Policy>,
    lm: Arc<dyn Policy>,
    planner_weight: f64,
    lm_weight: f64,
}

impl HybridPolicy {
    /// Combines `planner` and `lm` with the given weights.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] for a weight that is negative or not finite.
    pub fn new(
        planner: Box<dyn Policy>,
        lm: Box<dyn Policy>,
        planner_weight: f64,
        lm_weight: f64,
    ) -> Result<Self, EngineError> {
        Self::shared(Arc::from(planner), Arc::from(lm), planner_weight, lm_weight)
    }

    /// The same two models with other weights; scores either has remembered are kept
    /// (so fitting the weights scores each action with the language model once).
    ///
    /// # Errors
    /// As [`HybridPolicy::new`].
    pub fn reweighted(&self, planner_weight: f64, lm_weight: f64) -> Result<Self, EngineError> {
        Self::shared(
            Arc::clone(&self.planner),
            Arc::clone(&self.lm),
            planner_weight,
            lm_weight,
        )
    }

    /// The weights of the planner's and the language model's log-likelihoods.
    pub fn weights(&self) -> (f64, f64) {
        (self.planner_weight, self.lm_weight)
    }

    fn shared(
        planner: Arc<dyn Policy>,
        lm: Arc<dyn Policy>,
        planner_weight: f64,
        lm_weight: f64,
    ) -> Result<Self, EngineError> {
        for (name, value) in [("planner weight", planner_weight), ("LM weight", lm_weight)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(EngineError::InvalidParameter {
                    name,
                    value,
                    reason: "must be a finite number ≥ 0",
                });
            }
        }
        Ok(Self {
            name: format!("hybrid ({} × {})", planner.name(), lm.name()),
            planner,
            lm,
            planner_weight,
            lm_weight,
        })
    }

    /// `w · log p`, with a zero weight switching a model off even where `log p = −∞`.
    fn weighted(weight: f64, log_p: f64) -> f64 {
        if weight == 0.0 {
            0.0
        } else {
            weight * log_p
        }
    }
}

impl Policy for HybridPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn log_prob(&self, situation: &Situation<'_>, action: &Action) -> f64 {
        Self::weighted(
            self.planner_weight,
            self.planner.log_prob(situation, action),
        ) + Self::weighted(self.lm_weight, self.lm.log_prob(situation, action))
    }

    fn log_probs(
        &self,
        situations: &[Situation<'_>],
        action: &Action,
    ) -> Result<Vec<f64>, PolicyFailure> {
        let planner = self.planner.log_probs(situations, action)?;
        let lm = self.lm.log_probs(situations, action)?;
        Ok(planner
            .into_iter()
            .zip(lm)
            .map(|(p, l)| {
                Self::weighted(self.planner_weight, p) + Self::weighted(self.lm_weight, l)
            })
            .collect())
    }

    fn scores_ahead(&self) -> bool {
        self.planner.scores_ahead() || self.lm.scores_ahead()
    }

    fn announce(&self, situations: &[Situation<'_>], action: &Action) {
        self.planner.announce(situations, action);
        self.lm.announce(situations, action);
    }

    fn score_announced(&self) -> Result<(), PolicyFailure> {
        self.planner.score_announced()?;
        self.lm.score_announced()
    }

    fn work(&self) -> PolicyWork {
        let (p, l) = (self.planner.work(), self.lm.work());
        PolicyWork {
            lm_tokens: p.lm_tokens + l.lm_tokens,
            lm_tokens_unshared: p.lm_tokens_unshared + l.lm_tokens_unshared,
        }
    }

    fn serial(&self) -> bool {
        self.planner.serial() || self.lm.serial()
    }

    fn fork(&self) -> Option<Box<dyn Policy>> {
        // The planner remembers nothing between calls: the copies share it.
        let planner = if self.planner.serial() {
            Arc::from(self.planner.fork()?)
        } else {
            Arc::clone(&self.planner)
        };
        let lm = if self.lm.serial() {
            Arc::from(self.lm.fork()?)
        } else {
            Arc::clone(&self.lm)
        };
        let copy = Self::shared(planner, lm, self.planner_weight, self.lm_weight).ok()?;
        Some(Box::new(copy))
    }
}
