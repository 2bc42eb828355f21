//! A session that owns its episode and policy, for embedding bip where it cannot lend
//! them for the session's lifetime (a simulator's loop, another language's bindings),
//! and whose hypothesis space follows the actions as batch inference's does.

use std::collections::HashMap;
use std::sync::Arc;

use bip_episodes::{Action, ClassId, Episode, FurnitureId, Observation, Place, Question, State};

use crate::answer::{answer, Answer};
use crate::batch::{proposal, Pruning};
use crate::error::EngineError;
use crate::hypothesis::{search_sets, HypothesisConfig, InitialBelief};
use crate::inference::Core;
use crate::named::{named_impls, Named};
use crate::policy::{PlannerPolicy, Policy};
use crate::posterior::Posterior;

/// Where the search sets of a [`LiveSession`]'s hypothesis space come from (the
/// "thinks it is in one of S" beliefs, [`search_sets`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchSets {
    /// Read off the actions pushed so far, as batch inference reads them off the actions
    /// before a question ([`hypotheses_at`](crate::hypotheses_at)): after every push, the
    /// posterior is the one [`infer_episode`](crate::infer_episode) answers a question
    /// asked at that moment from. The sets change when a push walks to furniture not
    /// walked to before; the hypotheses the new sets bring are then scored over every
    /// step so far (the others keep their scores), a cost that grows with the steps
    /// taken, paid at most once per piece of furniture. To that end the session keeps
    /// every step's score of every hypothesis: 8 bytes per hypothesis per step.
    #[default]
    Pushed,
    /// Read off the episode's own actions, once: the space of the batch trace (`bip infer
    /// --trace`), which knows the actions to come.
    Episode,
    /// None: the uninformed and "it is at X" beliefs only. The space never changes, and
    /// every step costs the same.
    None,
}

impl Named for SearchSets {
    const WHAT: &'static str = "source of search sets";
    const VALUES: &'static [(Self, &'static str, &'static str)] = &[
        (Self::Pushed, "pushed", "Read off the actions pushed so far"),
        (
            Self::Episode,
            "episode",
            "Read off the episode's own actions, once",
        ),
        (
            Self::None,
            "none",
            "None: the uninformed and \"it is at X\" beliefs only",
        ),
    ];
}

named_impls!(SearchSets);

/// Settings of a [`LiveSession`].
#[derive(Debug, Clone, Default)]
pub struct LiveOptions {
    /// The hypothesis space, before search sets are added.
    pub hypotheses: HypothesisConfig,
    /// Where the search sets come from.
    pub search_sets: SearchSets,
    /// Score only the hypotheses a planner proposes for the options of the episode's
    /// questions ([`Pruning`]): proposed after the actions pushed so far, or with
    /// [`SearchSets::Episode`] after the episode's own actions, as the batch trace does.
    /// When the proposal changes, the hypotheses it brings are scored over every step
    /// so far, as new search sets' are.
    pub pruning: Option<Pruning>,
}

/// What happened to the agent, in order: replayed to score the hypotheses a new space
/// brings.
#[derive(Debug, Clone)]
enum Event {
    Push(Action),
    Observe(Observation),
}

/// The hypothesis space a session is over: its settings and, when pruned, which of the
/// full space's hypotheses it keeps.
#[derive(Debug, Clone, PartialEq)]
struct Space {
    config: HypothesisConfig,
    keep: Option<Vec<bool>>,
}

/// An online inference session that owns its episode and policy: push actions one at a
/// time, observe, and read the posterior or answer questions at any moment.
///
/// It starts where the episode starts, over the episode's goal candidates; the
/// episode's own actions are not pushed (push them, or other ones, as they happen).
/// With [`SearchSets::Pushed`] (the default) and no observations beyond what each push
/// shows, the posterior after `k` pushes of an episode's actions is the one batch
/// inference ([`infer_episode`](crate::infer_episode)) answers a question asked after
/// `k` actions from, to the last bit; with [`SearchSets::Episode`], the one its trace
/// shows after `k` actions.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use bip_engine::{LiveOptions, LiveSession, PlannerPolicy};
/// use bip_episodes::{Action, Episode, Place, Proposition};
///
/// let episode = Arc::new(Episode::from_json(r#"{"format": "bip-episode/1",
///   "world": {"rooms": ["kitchen", "hall"],
///     "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
///                   {"id": "shelf", "room": "hall", "kind": "surface"}],
///     "objects": [{"id": "milk_1", "at": "fridge"}, {"id": "keys_1", "at": "shelf"}]},
///   "agent": {"name": "Bo", "start": "hall"}}"#, "sim")?);
/// let mut session =
///     LiveSession::new(Arc::clone(&episode), Arc::new(PlannerPolicy::default()), LiveOptions::default())?;
/// let fridge = episode.world().furniture_by_name("fridge").unwrap();
/// session.push(&Action::WalkTo(Place::Furniture(fridge)))?;
/// let milk = episode.world().class_by_name("milk").unwrap();
/// assert!(session.posterior().conditional(Proposition::Goal(milk), None).unwrap() > 0.9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct LiveSession {
    episode: Arc<Episode>,
    policy: Arc<dyn Policy>,
    options: LiveOptions,
    events: Vec<Event>,
    actions: Vec<Action>,
    space: Space,
    core: Core,
    /// The planner session that proposes the hypotheses to keep, over the full space.
    proposer: Option<Core>,
    rebuilds: usize,
}

impl LiveSession {
    /// A session at the start of `episode`, scored by `policy`.
    ///
    /// # Errors
    /// [`EngineError::SeveralReadings`] for an episode with several readings (a session
    /// follows one world: start one per [`Episode::readings`], or use
    /// [`infer_episode`](crate::infer_episode), which weighs them);
    /// [`EngineError::PruningWithoutQuestions`] when pruning is asked for an episode
    /// without questions; otherwise as [`Inference::new`](crate::Inference::new).
    pub fn new(
        episode: Arc<Episode>,
        policy: Arc<dyn Policy>,
        options: LiveOptions,
    ) -> Result<Self, EngineError> {
        if !episode.alternatives().is_empty() {
            return Err(EngineError::SeveralReadings {
                episode: episode.id().to_string(),
                readings: episode.alternatives().len() + 1,
            });
        }
        if options.pruning.is_some() && episode.questions().is_empty() {
            return Err(EngineError::PruningWithoutQuestions {
                episode: episode.id().to_string(),
            });
        }
        let config = config_for(&episode, &options, &[]);
        let proposer = match options.pruning {
            Some(pruning) => {
                let planner = PlannerPolicy::new(pruning.proposal_beta)?;
                let pushed = options.search_sets == SearchSets::Pushed;
                let mut core = start(&episode, &config, None, pushed)?;
                if options.search_sets == SearchSets::Episode {
                    for action in episode.actions() {
                        core.push(episode.world(), &planner, action)?;
                    }
                }
                Some(core)
            }
            None => None,
        };
        let keep = proposer
            .as_ref()
            .map(|core| keep_for(&episode, core, options.pruning));
        // With the episode's actions, the proposal is made once, as the trace makes it.
        let proposer = proposer.filter(|_| options.search_sets != SearchSets::Episode);
        let changes = options.search_sets == SearchSets::Pushed || proposer.is_some();
        let core = start(&episode, &config, keep.as_deref(), changes)?;
        let space = Space { config, keep };
        Ok(Self {
            episode,
            policy,
            options,
            events: Vec::new(),
            actions: Vec::new(),
            space,
            core,
            proposer,
            rebuilds: 0,
        })
    }

    /// Scores `action` under every hypothesis, applies it and updates every belief with
    /// what the agent then sees; when the hypothesis space changes with it (new search
    /// sets, a new proposal), first moves the session to the new space, scoring the
    /// hypotheses it brings over every step so far.
    ///
    /// # Errors
    /// As [`Inference::push`](crate::Inference::push); the session is then unchanged.
    pub fn push(&mut self, action: &Action) -> Result<(), EngineError> {
        self.core.check(self.episode.world(), action)?;
        self.advance(action)?;
        self.actions.push(*action);
        self.events.push(Event::Push(*action));
        Ok(())
    }

    /// [`push`](Self::push) before `action` is recorded as pushed.
    fn advance(&mut self, action: &Action) -> Result<(), EngineError> {
        let config = self.new_config(action);
        let proposer = match &self.proposer {
            Some(core) => Some(self.propose(core, config.as_ref(), action)?),
            None => None,
        };
        let keep = proposer
            .as_ref()
            .map(|core| keep_for(&self.episode, core, self.options.pruning))
            .filter(|keep| self.space.keep.as_ref() != Some(keep));
        let (world, policy) = (self.episode.world(), self.policy.as_ref());
        if config.is_none() && keep.is_none() {
            self.core.push(world, policy, action)?;
        } else {
            let space = Space {
                config: config.unwrap_or_else(|| self.space.config.clone()),
                keep: keep.or_else(|| self.space.keep.clone()),
            };
            let mut core = rebuild(&self.episode, policy, &space, &self.events, &self.core)?;
            core.push(world, policy, action)?;
            self.core = core;
            self.space = space;
            self.rebuilds += 1;
        }
        self.proposer = proposer;
        Ok(())
    }

    /// The hypothesis settings after `action` (the action being pushed), when they differ
    /// from the current ones: with [`SearchSets::Pushed`], after a first walk to a piece
    /// of furniture.
    fn new_config(&self, action: &Action) -> Option<HypothesisConfig> {
        let new = self.options.search_sets == SearchSets::Pushed
            && matches!(action, Action::WalkTo(Place::Furniture(_)))
            && !self.actions.contains(action);
        let actions = || [self.actions.as_slice(), &[*action]].concat();
        new.then(|| config_for(&self.episode, &self.options, &actions()))
    }

    /// [`push`](Self::push)es every action of `actions` in turn.
    ///
    /// # Errors
    /// As [`push`](Self::push), for the first action that fails; the actions before it
    /// stay pushed.
    pub fn push_all(&mut self, actions: &[Action]) -> Result<(), EngineError> {
        actions.iter().try_for_each(|action| self.push(action))
    }

    /// Updates every belief with an observation beyond what pushes show (a glimpse
    /// through a door), as [`Inference::observe`](crate::Inference::observe) does.
    ///
    /// # Panics
    /// If the observation names rooms, furniture or objects the episode's world lacks.
    pub fn observe(&mut self, observation: &Observation) {
        let world = self.episode.world();
        self.core.observe(world, observation);
        if let Some(proposer) = &mut self.proposer {
            proposer.observe(world, observation);
        }
        self.events.push(Event::Observe(observation.clone()));
    }

    /// The posterior now.
    pub fn posterior(&self) -> Posterior<'_> {
        self.core.posterior(self.episode.world())
    }

    /// Answers `question` from the posterior now (whatever its `at`).
    pub fn answer(&self, question: &Question) -> Answer {
        answer(question, &self.posterior())
    }

    /// The episode the session follows.
    pub fn episode(&self) -> &Arc<Episode> {
        &self.episode
    }

    /// The policy scoring the actions.
    pub fn policy(&self) -> &Arc<dyn Policy> {
        &self.policy
    }

    /// The actions pushed so far.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// How many actions have been pushed.
    pub fn steps(&self) -> usize {
        self.actions.len()
    }

    /// The current true state.
    pub fn state(&self) -> &State {
        &self.core.state
    }

    /// How many joint hypotheses the session holds now.
    pub fn hypothesis_count(&self) -> usize {
        self.core.hypotheses.len()
    }

    /// The "thinks it is in one of S" starting beliefs of the hypothesis space now: the
    /// search sets that make beliefs (two places or more, not all, each once; see
    /// [`belief_hypotheses`](crate::belief_hypotheses)).
    pub fn search_sets(&self) -> Vec<&[FurnitureId]> {
        self.core
            .belief_hypotheses
            .iter()
            .filter_map(|h| match &h.initial {
                InitialBelief::ThinksAmong(among) => Some(among.as_slice()),
                _ => None,
            })
            .collect()
    }

    /// How many times the hypothesis space changed (and the hypotheses it brought were
    /// scored over the steps before).
    pub fn rebuilds(&self) -> usize {
        self.rebuilds
    }

    /// The proposer after `action`: pushed on, over the space of `config` when the
    /// settings changed.
    fn propose(
        &self,
        proposer: &Core,
        config: Option<&HypothesisConfig>,
        action: &Action,
    ) -> Result<Core, EngineError> {
        let beta = self.options.pruning.map_or(1.0, |p| p.proposal_beta);
        let planner = PlannerPolicy::new(beta)?;
        let mut core = match config {
            Some(config) => {
                let space = Space {
                    config: config.clone(),
                    keep: None,
                };
                rebuild(&self.episode, &planner, &space, &self.events, proposer)?
            }
            None => proposer.clone(),
        };
        core.push(self.episode.world(), &planner, action)?;
        Ok(core)
    }
}

/// The hypothesis settings of a session over `episode` after `actions` were pushed.
fn config_for(episode: &Episode, options: &LiveOptions, actions: &[Action]) -> HypothesisConfig {
    let mut config = options.hypotheses.clone();
    let read = match options.search_sets {
        SearchSets::Pushed => actions,
        SearchSets::Episode => episode.actions(),
        SearchSets::None => &[],
    };
    config
        .search_sets
        .extend(search_sets(episode.world(), read));
    config
}

/// A session at the start of `episode`, over its goal candidates and the space of
/// `config`, keeping the hypotheses `keep` marks, and its history
/// ([`Core::history`]) when its space may change.
fn start(
    episode: &Episode,
    config: &HypothesisConfig,
    keep: Option<&[bool]>,
    history: bool,
) -> Result<Core, EngineError> {
    let (world, goals) = (episode.world(), episode.goal_candidates());
    let mut core = Core::new(world, episode.initial_state(), &goals, config)?;
    if history {
        core.history = Some(Vec::new());
    }
    if let Some(keep) = keep {
        core.retain(|i| keep[i]);
    }
    Ok(core)
}

/// The session over `space` after `events`, made from `old`, a session over another space
/// after the same events that kept its history. The hypotheses both spaces hold keep
/// their scores; only the others are scored, over every step so far (their beliefs
/// replayed). Each weight is then its prior plus every step's log-likelihood, added in
/// the order a session pushed from the start adds them: the same bits.
fn rebuild(
    episode: &Episode,
    policy: &dyn Policy,
    space: &Space,
    events: &[Event],
    old: &Core,
) -> Result<Core, EngineError> {
    let mut core = start(episode, &space.config, space.keep.as_deref(), true)?;
    let known: HashMap<(ClassId, &InitialBelief), usize> = old
        .hypotheses
        .iter()
        .enumerate()
        .map(|(i, h)| ((h.goal, &old.belief_hypotheses[h.belief].initial), i))
        .collect();
    let shared: Vec<Option<usize>> = core
        .hypotheses
        .iter()
        .map(|h| {
            let initial = &core.belief_hypotheses[h.belief].initial;
            known.get(&(h.goal, initial)).copied()
        })
        .collect();
    let (hypotheses, priors) = (core.hypotheses.clone(), core.log_weights.clone());
    core.retain(|i| shared[i].is_none());
    replay(&mut core, episode.world(), policy, events)?;
    let scored = core.history.take().unwrap_or_default();
    let kept = old.history.as_deref().unwrap_or_default();
    let mut new = 0..;
    let columns: Vec<(&[Arc<[f64]>], usize)> = shared
        .iter()
        .map(|old_index| match *old_index {
            Some(i) => (kept, i),
            None => (scored.as_slice(), new.next().unwrap_or_default()),
        })
        .collect();
    let history: Vec<Arc<[f64]>> = (0..scored.len())
        .map(|step| columns.iter().map(|&(from, i)| from[step][i]).collect())
        .collect();
    core.log_weights = priors
        .iter()
        .enumerate()
        .map(|(i, &prior)| history.iter().fold(prior, |w, step| w + step[i]))
        .collect();
    core.hypotheses = hypotheses;
    core.history = Some(history);
    Ok(core)
}

fn replay(
    core: &mut Core,
    world: &bip_episodes::World,
    policy: &dyn Policy,
    events: &[Event],
) -> Result<(), EngineError> {
    for event in events {
        match event {
            Event::Push(action) => core.push(world, policy, action)?,
            Event::Observe(observation) => core.observe(world, observation),
        }
    }
    Ok(())
}

/// The hypotheses to keep for every question of `episode`, from the proposer's
/// posterior.
fn keep_for(episode: &Episode, proposer: &Core, pruning: Option<Pruning>) -> Vec<bool> {
    let questions: Vec<&Question> = episode.questions().iter().collect();
    let per_option = pruning.map_or(1, |p| p.per_option);
    proposal(&proposer.posterior(episode.world()), &questions, per_option)
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
