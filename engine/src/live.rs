//! A session that owns its episode and policy, for embedding bip where it cannot lend
//! them for the session's lifetime (a simulator's loop, another language's bindings),
//! and whose hypothesis space follows the actions as batch inference's does.

use std::sync::Arc;

use bip_episodes::{Action, Episode, FurnitureId, Observation, Place, Question, State};

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
    /// walked to before; the session is then rebuilt and everything pushed and observed
    /// replayed, a cost that grows with the steps taken, paid at most once per piece of
    /// furniture.
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
    /// When the proposal changes, the session is rebuilt and replayed.
    pub pruning: Option<Pruning>,
}

/// What happened to the agent, in order: replayed when the session is rebuilt.
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

/// The planner session that proposes the hypotheses to keep, over the full space.
#[derive(Debug, Clone)]
struct Proposer {
    config: HypothesisConfig,
    core: Core,
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
    proposer: Option<Proposer>,
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
                let mut core = new_core(&episode, &config)?;
                if options.search_sets == SearchSets::Episode {
                    for action in episode.actions() {
                        core.push(episode.world(), &planner, action)?;
                    }
                }
                Some(Proposer {
                    config: config.clone(),
                    core,
                })
            }
            None => None,
        };
        let keep = proposer
            .as_ref()
            .map(|p| keep_for(&episode, &p.core, options.pruning));
        let space = Space { config, keep };
        let core = build(&episode, policy.as_ref(), &space, &[])?;
        // With the episode's actions, the proposal is made once, as the trace makes it.
        let proposer = proposer.filter(|_| options.search_sets != SearchSets::Episode);
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
    /// sets, a new proposal), rebuilds the session over the new space and replays
    /// everything first.
    ///
    /// # Errors
    /// As [`Inference::push`](crate::Inference::push); the session is then unchanged.
    pub fn push(&mut self, action: &Action) -> Result<(), EngineError> {
        self.core.check(self.episode.world(), action)?;
        self.actions.push(*action);
        self.events.push(Event::Push(*action));
        let pushed = self.advance(action);
        if pushed.is_err() {
            self.actions.pop();
            self.events.pop();
        }
        pushed
    }

    /// [`push`](Self::push) once `action` is recorded as pushed.
    fn advance(&mut self, action: &Action) -> Result<(), EngineError> {
        let config = self.new_config(action);
        let proposer = match &self.proposer {
            Some(p) => Some(self.propose(p, config.as_ref(), action)?),
            None => None,
        };
        let keep = proposer
            .as_ref()
            .map(|p| keep_for(&self.episode, &p.core, self.options.pruning))
            .filter(|keep| self.space.keep.as_ref() != Some(keep));
        if config.is_none() && keep.is_none() {
            self.core
                .push(self.episode.world(), self.policy.as_ref(), action)?;
        } else {
            let space = Space {
                config: config.unwrap_or_else(|| self.space.config.clone()),
                keep: keep.or_else(|| self.space.keep.clone()),
            };
            self.core = build(&self.episode, self.policy.as_ref(), &space, &self.events)?;
            self.space = space;
            self.rebuilds += 1;
        }
        self.proposer = proposer;
        Ok(())
    }

    /// The hypothesis settings after `action` (the last action pushed), when they differ
    /// from the current ones: with [`SearchSets::Pushed`], after a first walk to a piece
    /// of furniture.
    fn new_config(&self, action: &Action) -> Option<HypothesisConfig> {
        let Action::WalkTo(Place::Furniture(place)) = action else {
            return None;
        };
        let (before, _) = self.actions.split_at(self.actions.len().saturating_sub(1));
        let new = self.options.search_sets == SearchSets::Pushed
            && !before.contains(&Action::WalkTo(Place::Furniture(*place)));
        new.then(|| config_for(&self.episode, &self.options, &self.actions))
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
            proposer.core.observe(world, observation);
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

    /// How many times a change of the hypothesis space rebuilt the session.
    pub fn rebuilds(&self) -> usize {
        self.rebuilds
    }

    /// The proposer after `action` (the last event): pushed on, or rebuilt over `config`
    /// and replayed when the settings changed.
    fn propose(
        &self,
        proposer: &Proposer,
        config: Option<&HypothesisConfig>,
        action: &Action,
    ) -> Result<Proposer, EngineError> {
        let beta = self.options.pruning.map_or(1.0, |p| p.proposal_beta);
        let planner = PlannerPolicy::new(beta)?;
        let world = self.episode.world();
        let Some(config) = config else {
            let mut core = proposer.core.clone();
            core.push(world, &planner, action)?;
            return Ok(Proposer {
                config: proposer.config.clone(),
                core,
            });
        };
        let mut core = new_core(&self.episode, config)?;
        replay(&mut core, world, &planner, &self.events)?;
        Ok(Proposer {
            config: config.clone(),
            core,
        })
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

/// A new session's data at the start of `episode`, over its goal candidates.
fn new_core(episode: &Episode, config: &HypothesisConfig) -> Result<Core, EngineError> {
    Core::new(
        episode.world(),
        episode.initial_state(),
        &episode.goal_candidates(),
        config,
    )
}

/// A session over `space` with `events` replayed.
fn build(
    episode: &Episode,
    policy: &dyn Policy,
    space: &Space,
    events: &[Event],
) -> Result<Core, EngineError> {
    let mut core = new_core(episode, &space.config)?;
    if let Some(keep) = &space.keep {
        core.retain(|i| keep[i]);
    }
    replay(&mut core, episode.world(), policy, events)?;
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
