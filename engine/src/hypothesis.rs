//! The hypothesis space: what the agent may want and what it may have thought at the start.

use bip_episodes::{Action, ClassId, FurnitureId, Place, World};

use crate::belief::Belief;

/// What the agent thought at the start about where an object of a class is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InitialBelief {
    /// No idea: every place equally likely.
    Uninformed,
    /// Thinks it is at this place (rightly or wrongly).
    ThinksAt(FurnitureId),
    /// Thinks it is in one of these places (two or more, id order), equally likely.
    ThinksAmong(Vec<FurnitureId>),
}

/// Settings of the hypothesis space.
#[derive(Debug, Clone, PartialEq)]
pub struct HypothesisConfig {
    /// Probability a "thinks it is at X" belief leaves for the other places, so that finding
    /// X empty leaves the agent searching rather than certain of nothing. In (0, 1).
    pub belief_leak: f64,
    /// Prior weight of the uninformed belief relative to each "thinks it is at X" belief.
    pub uninformed_weight: f64,
    /// Prior weight of a goal class no object of which is in the house, against 1 for a
    /// class the house holds. In (0, ∞);
    /// 1 treats both alike.
    pub absent_goal_weight: f64,
    /// Extra prior weight of "thinks it is at X" for a class an object of which lies on
    /// surface X in plain view: that belief weighs `1 + open_view_weight` against 1.
    /// At least 0; 0 gives every
    /// class the same starting beliefs.
    pub open_view_weight: f64,
    /// Whether a belief grows by the place the agent walks to once it has ruled out every
    /// place it considered ([`Belief::walked_to`](crate::Belief::walked_to)): on by
    /// default; off, such an agent thinks the object is nowhere in particular, as
    /// before beliefs grew. It changes what the agent is taken to think, not how likely
    /// its actions are.
    pub beliefs_grow: bool,
    /// Sets of places to add as "thinks it is in one of these" beliefs, each with the
    /// prior weight of a single place (see [`search_sets`]).
    pub search_sets: Vec<Vec<FurnitureId>>,
    /// The most hypotheses a session may hold: goals × starting beliefs, and object
    /// classes × starting beliefs (a belief is tracked per class), whichever is larger.
    /// Each costs memory and time at every step in proportion to the places (see also
    /// [`max_belief_values`](Self::max_belief_values)), so a session over more is refused
    /// ([`EngineError::TooManyHypotheses`](crate::EngineError::TooManyHypotheses)).
    pub max_hypotheses: usize,
    /// The most values the starting beliefs may hold: object classes × starting beliefs
    /// × places. Each value costs memory (about 18 bytes with what goes with it) and
    /// time at every step, so a session over more is refused
    /// ([`EngineError::TooManyBeliefValues`](crate::EngineError::TooManyBeliefValues)):
    /// a room of 20,000 containers would hold 800 million.
    pub max_belief_values: usize,
}

/// The default [`HypothesisConfig::max_hypotheses`]: an MMToM-QA question has hundreds.
pub const DEFAULT_MAX_HYPOTHESES: usize = 100_000;

/// The default [`HypothesisConfig::max_belief_values`], 2²⁶ (about 1.2 GB): an MMToM-QA
/// question holds a few tens of thousands, a room of 1,000 containers 2 million, one of
/// 5,000 containers 50 million.
pub const DEFAULT_MAX_BELIEF_VALUES: usize = 1 << 26;

/// The default [`HypothesisConfig::absent_goal_weight`]: fitted at the planner's
/// defaults on generated goal questions half of whose agents, where the house lacks a
/// class the question names, want that class and search for it in vain (`bip generate
/// --absent-goals`; results/agent-model). MMToM-QA's agents do that too: a goal question
/// conditioned on "she thinks there is no dish bowl in the dishwasher" can be answered by
/// a class the house lacks. On agents that only ever want what the house holds the fit
/// runs to 0.005, which answers such questions wrong.
pub(crate) const DEFAULT_ABSENT_GOAL_WEIGHT: f64 = 0.25;

/// The default [`HypothesisConfig::open_view_weight`]: fitted the same way
/// (results/agent-model), on agents half of whom know what lies in the open.
pub(crate) const DEFAULT_OPEN_VIEW_WEIGHT: f64 = 2.0;

impl Default for HypothesisConfig {
    fn default() -> Self {
        Self {
            belief_leak: 0.05,
            uninformed_weight: 1.0,
            absent_goal_weight: DEFAULT_ABSENT_GOAL_WEIGHT,
            open_view_weight: DEFAULT_OPEN_VIEW_WEIGHT,
            beliefs_grow: true,
            search_sets: Vec::new(),
            max_hypotheses: DEFAULT_MAX_HYPOTHESES,
            max_belief_values: DEFAULT_MAX_BELIEF_VALUES,
        }
    }
}

/// One starting belief with its prior.
#[derive(Debug, Clone, PartialEq)]
pub struct BeliefHypothesis {
    /// What it is.
    pub initial: InitialBelief,
    /// Its log prior probability before the world is read (the hypotheses sum to 1); a
    /// session weighs it for each class by what lies in the open
    /// ([`HypothesisConfig::open_view_weight`]).
    pub log_prior: f64,
}

impl BeliefHypothesis {
    /// The belief this hypothesis starts from, over `places` places.
    pub fn start(&self, places: usize, config: &HypothesisConfig) -> Belief {
        match &self.initial {
            InitialBelief::Uninformed => Belief::uniform(places),
            InitialBelief::ThinksAt(place) => Belief::thinks_at(*place, places, config.belief_leak),
            InitialBelief::ThinksAmong(among) => {
                Belief::thinks_among(among, places, config.belief_leak)
            }
        }
    }

    /// A few words for traces: "no idea" or "thinks: fridge".
    pub fn describe(&self, world: &World) -> String {
        match &self.initial {
            InitialBelief::Uninformed => "no idea".to_string(),
            InitialBelief::ThinksAt(place) => format!("thought: {}", world.furniture(*place).name),
            InitialBelief::ThinksAmong(among) => {
                let names: Vec<&str> = among
                    .iter()
                    .map(|p| world.furniture(*p).name.as_str())
                    .collect();
                format!("thought: one of {}", names.join(", "))
            }
        }
    }
}

/// The starting beliefs considered for every class: uninformed, "it is at X" for each
/// container and surface X, and "it is in one of S" for each set S of
/// `config.search_sets` (sets of fewer than two places, or repeated, are skipped). The
/// same set serves every class.
pub fn belief_hypotheses(world: &World, config: &HypothesisConfig) -> Vec<BeliefHypothesis> {
    let places = world.furniture.len();
    let mut sets: Vec<Vec<FurnitureId>> = Vec::new();
    for set in &config.search_sets {
        let mut set = set.clone();
        set.sort_unstable();
        set.dedup();
        if set.len() >= 2 && set.len() < places && !sets.contains(&set) {
            sets.push(set);
        }
    }
    let total = config.uninformed_weight + (places + sets.len()) as f64;
    let single = (1.0 / total).ln();
    std::iter::once(BeliefHypothesis {
        initial: InitialBelief::Uninformed,
        log_prior: (config.uninformed_weight / total).ln(),
    })
    .chain(world.furniture_ids().map(|place| BeliefHypothesis {
        initial: InitialBelief::ThinksAt(place),
        log_prior: single,
    }))
    .chain(sets.into_iter().map(|set| BeliefHypothesis {
        initial: InitialBelief::ThinksAmong(set),
        log_prior: single,
    }))
    .filter(|h| h.log_prior.is_finite())
    .collect()
}

/// Search sets read off what the agent did: with V the furniture it walked to in
/// `actions` (the places it evidently considered), V itself, V without each one of its
/// places, and V with each other place added. Comparing "V with C" against "V without C"
/// is what tells whether the agent thought the object might be in C: walking to C is
/// explained only with it, and passing C by to search elsewhere only without it.
pub fn search_sets(world: &World, actions: &[Action]) -> Vec<Vec<FurnitureId>> {
    let mut visited: Vec<FurnitureId> = Vec::new();
    for action in actions {
        if let Action::WalkTo(Place::Furniture(f)) = *action {
            if !visited.contains(&f) {
                visited.push(f);
            }
        }
    }
    if visited.is_empty() {
        return Vec::new();
    }
    let mut sets = vec![visited.clone()];
    for f in world.furniture_ids() {
        let mut set = visited.clone();
        match set.iter().position(|v| *v == f) {
            Some(i) => {
                set.remove(i);
            }
            None => set.push(f),
        }
        sets.push(set);
    }
    sets
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
