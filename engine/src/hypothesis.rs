//! The hypothesis space: what the agent may want and what it may have thought at the start.

use bip_episodes::{ClassId, FurnitureId, World};

use crate::belief::Belief;

/// What the agent thought at the start about where an object of a class is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InitialBelief {
    /// No idea: every place equally likely.
    Uninformed,
    /// Thinks it is at this place (rightly or wrongly).
    ThinksAt(FurnitureId),
}

/// Settings of the hypothesis space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HypothesisConfig {
    /// Probability a "thinks it is at X" belief leaves for the other places, so that finding
    /// X empty leaves the agent searching rather than certain of nothing. In (0, 1).
    pub belief_leak: f64,
    /// Prior weight of the uninformed belief relative to each "thinks it is at X" belief.
    pub uninformed_weight: f64,
}

impl Default for HypothesisConfig {
    fn default() -> Self {
        Self {
            belief_leak: 0.05,
            uninformed_weight: 1.0,
        }
    }
}

/// One starting belief with its prior.
#[derive(Debug, Clone, PartialEq)]
pub struct BeliefHypothesis {
    /// What it is.
    pub initial: InitialBelief,
    /// Its log prior probability (the hypotheses of a class sum to 1).
    pub log_prior: f64,
}

impl BeliefHypothesis {
    /// The belief this hypothesis starts from, over `places` places.
    pub fn start(&self, places: usize, config: &HypothesisConfig) -> Belief {
        match self.initial {
            InitialBelief::Uninformed => Belief::uniform(places),
            InitialBelief::ThinksAt(place) => Belief::thinks_at(place, places, config.belief_leak),
        }
    }

    /// A few words for traces: "no idea" or "thinks: fridge".
    pub fn describe(&self, world: &World) -> String {
        match self.initial {
            InitialBelief::Uninformed => "no idea".to_string(),
            InitialBelief::ThinksAt(place) => format!("thought: {}", world.furniture(place).name),
        }
    }
}

/// The starting beliefs considered for every class: uninformed, or "it is at X" for each
/// container and surface X. The same set serves every class.
pub fn belief_hypotheses(world: &World, config: &HypothesisConfig) -> Vec<BeliefHypothesis> {
    let places = world.furniture.len();
    let total = config.uninformed_weight + places as f64;
    std::iter::once(BeliefHypothesis {
        initial: InitialBelief::Uninformed,
        log_prior: (config.uninformed_weight / total).ln(),
    })
    .chain(world.furniture_ids().map(|place| BeliefHypothesis {
        initial: InitialBelief::ThinksAt(place),
        log_prior: (1.0 / total).ln(),
    }))
    .filter(|h| h.log_prior.is_finite())
    .collect()
}

/// A joint hypothesis: the agent wants `goal` and started with belief hypothesis `belief`
/// (an index into [`belief_hypotheses`]) about where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hypothesis {
    /// The wanted class.
    pub goal: ClassId,
    /// Index of the starting belief about the goal class.
    pub belief: usize,
}
