//! Online Bayesian inverse planning: push actions one at a time, ask for posteriors at any
//! moment. Batch inference over an episode is this session run to the end.

use std::sync::Arc;

use rayon::prelude::*;

use bip_episodes::{Action, ClassId, Episode, Observation, Place, State, World};

use crate::belief::{in_view, Belief};
use crate::error::EngineError;
use crate::hypothesis::{belief_hypotheses, BeliefHypothesis, Hypothesis, HypothesisConfig};
use crate::logprob::log_sum_exp;
use crate::policy::{Policy, Situation};
use crate::posterior::Posterior;
use crate::prior::{belief_log_priors, goal_log_priors};
use crate::sightings::Sightings;

/// An inference session over one agent in one world.
///
/// Holds, for every joint hypothesis (goal class × starting belief about it), the log prior
/// plus the log-likelihood of every action so far, and for every class and starting belief
/// the belief as updated by everything the agent has seen. Each step costs the same
/// whatever the number of steps before it. Sessions are `Send`; policies are `Sync`, so
/// one policy (an LM, say) can serve sessions on many threads.
///
/// # Example
/// ```
/// use bip_engine::{HypothesisConfig, Inference, PlannerPolicy};
/// use bip_episodes::{Action, Episode, Place, Proposition};
///
/// let world = Episode::from_json(r#"{"format": "bip-episode/1",
///   "world": {"rooms": ["kitchen", "hall"],
///     "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
///                   {"id": "shelf", "room": "hall", "kind": "surface"}],
///     "objects": [{"id": "milk_1", "at": "fridge"}, {"id": "keys_1", "at": "shelf"}]},
///   "agent": {"name": "Bo", "start": "hall"}}"#, "sim")?.into_parts().world;
/// let policy = PlannerPolicy::default();
/// let start = bip_episodes::State::initial(&world, world.room_by_name("hall").unwrap());
/// let goals: Vec<_> = world.class_ids().collect();
/// let mut session = Inference::new(&world, &policy, start, &goals, &HypothesisConfig::default())?;
///
/// // Bo sees the keys on the shelf, yet walks off to the fridge.
/// let fridge = world.furniture_by_name("fridge").unwrap();
/// session.push(&Action::WalkTo(Place::Furniture(fridge)))?;
/// let milk = world.class_by_name("milk").unwrap();
/// let p_milk = session.posterior().conditional(Proposition::Goal(milk), None).unwrap();
/// assert!(p_milk > 0.9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Inference<'a> {
    world: &'a World,
    policy: &'a dyn Policy,
    core: Core,
}

/// A session's own data, apart from the world and policy it reads: what
/// [`Inference`] borrows them for, and what an owning session
/// ([`LiveSession`](crate::LiveSession)) keeps beside them.
#[derive(Debug, Clone)]
pub(crate) struct Core {
    pub(crate) state: State,
    steps: usize,
    pub(crate) belief_hypotheses: Vec<BeliefHypothesis>,
    /// `belief_log_priors[class][h]`: the prior of starting belief `h` about `class`.
    belief_log_priors: Vec<Vec<f64>>,
    /// `beliefs[class][h]`: the current belief about `class` under starting belief `h`.
    pub(crate) beliefs: Vec<Vec<Belief>>,
    pub(crate) hypotheses: Vec<Hypothesis>,
    pub(crate) log_weights: Vec<f64>,
    /// Everything the agent has seen, for policies that read more than the beliefs.
    seen: Sightings,
    /// [`HypothesisConfig::beliefs_grow`].
    beliefs_grow: bool,
    /// `history[step][h]`: each step's log-likelihood under hypothesis `h`, kept from the
    /// start where the space may change, so that hypotheses a new space shares keep their
    /// scores; shared, so that a copy (the proposer pushed ahead) copies no step's.
    pub(crate) history: Option<Vec<Arc<[f64]>>>,
}

impl<'a> Inference<'a> {
    /// Starts a session: the agent stands at `state` and has seen what it sees there.
    /// `goals` are the classes it may want (equally likely a priori, save that classes the
    /// house lacks weigh [`HypothesisConfig::absent_goal_weight`]).
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] for a belief leak outside (0, 1) or a negative
    /// uninformed weight, a goal weight for classes the house lacks that is not a
    /// positive number, or a negative open-view weight.
    pub fn new(
        world: &'a World,
        policy: &'a dyn Policy,
        state: State,
        goals: &[ClassId],
        config: &HypothesisConfig,
    ) -> Result<Self, EngineError> {
        Ok(Self {
            world,
            policy,
            core: Core::new(world, state, goals, config)?,
        })
    }

    /// A session at the start of `episode`, over its goal candidates.
    ///
    /// # Errors
    /// As [`Inference::new`].
    pub fn for_episode(
        episode: &'a Episode,
        policy: &'a dyn Policy,
        config: &HypothesisConfig,
    ) -> Result<Self, EngineError> {
        let goals = episode.goal_candidates();
        Self::new(
            episode.world(),
            policy,
            episode.initial_state(),
            &goals,
            config,
        )
    }

    /// Scores `action` under every hypothesis, applies it, and updates every belief with
    /// what the agent then sees.
    ///
    /// # Errors
    /// [`EngineError::ImpossibleAction`] (the session is unchanged);
    /// [`EngineError::PolicyFailed`] when the policy cannot score the action, and
    /// [`EngineError::WrongScoreCount`] or [`EngineError::NotANumber`] if it misbehaves.
    pub fn push(&mut self, action: &Action) -> Result<(), EngineError> {
        self.core.push(self.world, self.policy, action)
    }

    /// [`push`](Self::push)es every action of `actions` in turn.
    ///
    /// # Errors
    /// As [`push`](Self::push), for the first action that fails; the actions before it
    /// stay pushed.
    ///
    /// A policy that scores faster when told the steps ahead is told them all first
    /// ([`score_ahead`](Self::score_ahead)); the answers are the same.
    pub fn push_all(&mut self, actions: &[Action]) -> Result<(), EngineError> {
        self.score_ahead(actions);
        actions.iter().try_for_each(|action| self.push(action))
    }

    /// Lets a policy that scores faster when told the steps ahead
    /// ([`Policy::scores_ahead`]: a language model) score, in one batch, every step that
    /// pushing `actions` in turn will ask of it, so that those pushes find their scores
    /// ready. Changes nothing in the session, and nothing for other policies.
    ///
    /// A failure to score here is not reported: the push that needs the score meets it
    /// again and names its step.
    pub fn score_ahead(&self, actions: &[Action]) {
        if actions.len() > 1 && self.policy.scores_ahead() {
            self.core.announce_all(self.world, self.policy, actions);
            let _ = self.policy.score_announced();
        }
    }

    /// Updates every belief with an observation. [`push`](Self::push) does this with what
    /// the agent sees after each action; simulators that know of more (a glimpse through a
    /// door) may add it.
    pub fn observe(&mut self, observation: &Observation) {
        self.core.observe(self.world, observation);
    }

    /// Keeps only the joint hypotheses for which `keep(index)` is true, where `index`
    /// counts the hypotheses the session holds, in order (in a new session: goals in the
    /// order given, each with every starting belief of [`belief_hypotheses`]). The rest
    /// leave the posterior, and later steps no longer score them: a costly policy runs on
    /// the hypotheses a cheaper one found worth scoring.
    pub fn retain(&mut self, keep: impl FnMut(usize) -> bool) {
        self.core.retain(keep);
    }

    /// How many joint hypotheses the session holds.
    pub fn hypothesis_count(&self) -> usize {
        self.core.hypotheses.len()
    }

    /// How many actions have been pushed.
    pub fn steps(&self) -> usize {
        self.core.steps
    }

    /// The current true state.
    pub fn state(&self) -> &State {
        &self.core.state
    }

    /// The posterior now.
    pub fn posterior(&self) -> Posterior<'_> {
        self.core.posterior(self.world)
    }
}

impl Core {
    /// The data of [`Inference::new`].
    pub(crate) fn new(
        world: &World,
        state: State,
        goals: &[ClassId],
        config: &HypothesisConfig,
    ) -> Result<Self, EngineError> {
        if !(config.belief_leak > 0.0 && config.belief_leak < 1.0) {
            return Err(EngineError::InvalidParameter {
                name: "belief leak",
                value: config.belief_leak,
                reason: "must lie strictly between 0 and 1",
            });
        }
        EngineError::check_non_negative("uninformed weight", config.uninformed_weight)?;
        EngineError::check_non_negative("open-view weight", config.open_view_weight)?;
        if !(config.absent_goal_weight > 0.0 && config.absent_goal_weight.is_finite()) {
            return Err(EngineError::InvalidParameter {
                name: "goal weight of a class the house lacks",
                value: config.absent_goal_weight,
                reason: "must be a positive number",
            });
        }
        let belief_hypotheses = belief_hypotheses(world, config);
        let (classes, beliefs) = (world.classes.len(), belief_hypotheses.len());
        let count = goals.len().max(classes).saturating_mul(beliefs);
        if count > config.max_hypotheses {
            return Err(EngineError::TooManyHypotheses {
                goals: goals.len(),
                classes,
                beliefs,
                count,
                limit: config.max_hypotheses,
            });
        }
        let places = world.furniture.len();
        let values = classes.saturating_mul(beliefs).saturating_mul(places);
        if values > config.max_belief_values {
            return Err(EngineError::TooManyBeliefValues {
                classes,
                beliefs,
                places,
                count: values,
                limit: config.max_belief_values,
            });
        }
        let beliefs = world
            .class_ids()
            .map(|_| {
                belief_hypotheses
                    .iter()
                    .map(|h| h.start(places, config))
                    .collect()
            })
            .collect();
        let belief_log_priors = belief_log_priors(world, &belief_hypotheses, config);
        let mut hypotheses = Vec::new();
        let mut log_weights = Vec::new();
        for (&goal, goal_prior) in goals.iter().zip(goal_log_priors(world, goals, config)) {
            for (belief, belief_prior) in belief_log_priors[goal.index()].iter().enumerate() {
                hypotheses.push(Hypothesis { goal, belief });
                log_weights.push(goal_prior + belief_prior);
            }
        }
        let mut core = Self {
            state,
            steps: 0,
            belief_hypotheses,
            belief_log_priors,
            beliefs,
            hypotheses,
            log_weights,
            seen: Sightings::default(),
            beliefs_grow: config.beliefs_grow,
            history: None,
        };
        let first = core.state.observe(world);
        core.observe(world, &first);
        Ok(core)
    }

    /// [`Inference::push`] in `world` with `policy`.
    pub(crate) fn push(
        &mut self,
        world: &World,
        policy: &dyn Policy,
        action: &Action,
    ) -> Result<(), EngineError> {
        self.check(world, action)?;
        let situations = self.situations(world);
        let log_likelihoods =
            policy
                .log_probs(&situations, action)
                .map_err(|source| EngineError::PolicyFailed {
                    policy: policy.name().to_string(),
                    step: self.steps,
                    action: action.describe(world),
                    source,
                })?;
        self.check_scores(world, policy, action, &log_likelihoods)?;
        for (w, l) in self.log_weights.iter_mut().zip(&log_likelihoods) {
            *w += l;
        }
        if let Some(history) = &mut self.history {
            history.push(log_likelihoods.into());
        }
        self.advance(world, action);
        Ok(())
    }

    /// Applies `action`, which [`Core::check`] passed, and updates every belief with what
    /// the agent then sees and, for a walk where beliefs grow, with where it went
    /// ([`Belief::walked_to`]).
    fn advance(&mut self, world: &World, action: &Action) {
        // `check` passed, so `apply` cannot fail.
        let _ = self.state.apply(world, action);
        self.steps += 1;
        let seen = self.state.observe(world);
        let walked = action.destination().filter(|_| self.beliefs_grow);
        self.arrive(world, &seen, walked);
    }

    /// Announces to `policy` every step of `actions` that [`Core::push`] would score,
    /// walking a copy of the session (states and beliefs do not depend on the scores),
    /// up to the first action that cannot happen.
    pub(crate) fn announce_all(&self, world: &World, policy: &dyn Policy, actions: &[Action]) {
        let mut ahead = self.clone();
        for action in actions {
            if ahead.check(world, action).is_err() {
                break;
            }
            let situations = ahead.situations(world);
            policy.announce(&situations, action);
            ahead.advance(world, action);
        }
    }

    /// Every hypothesis's situation now.
    fn situations<'s>(&'s self, world: &'s World) -> Vec<Situation<'s>> {
        self.hypotheses
            .iter()
            .map(|h| Situation {
                world,
                state: &self.state,
                goal: h.goal,
                belief: &self.beliefs[h.goal.index()][h.belief],
                seen: &self.seen,
            })
            .collect()
    }

    /// `Ok` when `action` can happen now.
    pub(crate) fn check(&self, world: &World, action: &Action) -> Result<(), EngineError> {
        self.state
            .check(world, action)
            .map_err(|why| EngineError::ImpossibleAction {
                step: self.steps,
                action: action.describe(world),
                reason: why.describe(world),
                why,
            })
    }

    /// `Ok` when a policy gave one number, never NaN, per hypothesis.
    fn check_scores(
        &self,
        world: &World,
        policy: &dyn Policy,
        action: &Action,
        log_likelihoods: &[f64],
    ) -> Result<(), EngineError> {
        if log_likelihoods.len() != self.hypotheses.len() {
            return Err(EngineError::WrongScoreCount {
                policy: policy.name().to_string(),
                step: self.steps,
                action: action.describe(world),
                scores: log_likelihoods.len(),
                hypotheses: self.hypotheses.len(),
            });
        }
        if log_likelihoods.iter().any(|l| l.is_nan()) {
            return Err(EngineError::NotANumber {
                policy: policy.name().to_string(),
                step: self.steps,
                action: action.describe(world),
            });
        }
        Ok(())
    }

    /// [`Inference::observe`] in `world`.
    pub(crate) fn observe(&mut self, world: &World, observation: &Observation) {
        self.arrive(world, observation, None);
    }

    /// Records `seen` and updates every belief with it and with where the agent walked
    /// ([`Belief::arrive`]).
    fn arrive(&mut self, world: &World, seen: &Observation, walked: Option<Place>) {
        self.seen.record(seen);
        self.beliefs
            .par_iter_mut()
            .enumerate()
            .for_each(|(class, beliefs)| {
                let view = in_view(world, ClassId::new(class), seen);
                for belief in beliefs {
                    belief.arrive_seeing(&view, walked);
                }
            });
    }

    /// [`Inference::retain`].
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let kept: Vec<usize> = (0..self.hypotheses.len()).filter(|&i| keep(i)).collect();
        let select = |values: &[f64]| kept.iter().map(|&i| values[i]).collect::<Vec<_>>();
        self.hypotheses = kept.iter().map(|&i| self.hypotheses[i]).collect();
        self.log_weights = select(&self.log_weights);
        for step in self.history.iter_mut().flatten() {
            *step = select(step).into();
        }
    }

    /// [`Inference::posterior`] in `world`.
    pub(crate) fn posterior<'w>(&'w self, world: &'w World) -> Posterior<'w> {
        Posterior {
            world,
            belief_hypotheses: &self.belief_hypotheses,
            belief_log_priors: &self.belief_log_priors,
            beliefs: &self.beliefs,
            hypotheses: &self.hypotheses,
            log_weights: &self.log_weights,
            log_total: log_sum_exp(&self.log_weights),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PlannerPolicy;
    use bip_episodes::{Episode, Place};

    fn corridor_episode(rounds: usize) -> Episode {
        // The agent paces between two rooms many times: a long episode whose raw
        // likelihood would underflow f64.
        let mut actions = Vec::new();
        for _ in 0..rounds {
            actions.push(r#"{"walk_to": "hall"}"#);
            actions.push(r#"{"walk_to": "kitchen"}"#);
        }
        Episode::from_json(
            &format!(
                r#"{{"format": "bip-episode/1",
                    "world": {{"rooms": ["kitchen", "hall"],
                      "furniture": [{{"id": "fridge", "room": "kitchen", "kind": "container"}},
                                    {{"id": "shelf", "room": "hall", "kind": "surface"}}],
                      "objects": [{{"id": "apple_1", "at": "fridge"}}, {{"id": "book_1", "at": "shelf"}}]}},
                    "agent": {{"name": "A", "start": "kitchen"}},
                    "actions": [{}]}}"#,
                actions.join(",")
            ),
            "corridor",
        )
        .expect("valid")
    }

    #[test]
    fn long_episodes_accumulate_in_log_space_without_nan() {
        let e = corridor_episode(400);
        let policy = PlannerPolicy::default();
        let mut session =
            Inference::for_episode(&e, &policy, &HypothesisConfig::default()).expect("session");
        for a in e.actions() {
            session.push(a).expect("possible");
        }
        assert!(session.core.log_weights.iter().all(|w| !w.is_nan()));
        assert!(
            session.core.log_weights.iter().all(|w| *w < -700.0),
            "800 steps drive every raw likelihood below f64's range"
        );
        let goals = session.posterior().goals();
        let total: f64 = goals.iter().map(|(_, p)| p).sum();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "posterior still normalises: {total}"
        );
    }

    #[test]
    fn impossible_push_is_an_error_and_changes_nothing() {
        let e = corridor_episode(1);
        let policy = PlannerPolicy::default();
        let mut session =
            Inference::for_episode(&e, &policy, &HypothesisConfig::default()).expect("session");
        let before = session.core.log_weights.clone();
        let kitchen = e.world().room_by_name("kitchen").expect("room");
        let err = session
            .push(&Action::WalkTo(Place::Room(kitchen)))
            .unwrap_err();
        assert!(
            matches!(
                err,
                EngineError::ImpossibleAction {
                    step: 0,
                    why: bip_episodes::Impossible::AlreadyThere,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(session.core.log_weights, before);
        assert_eq!(session.steps(), 0);
    }

    #[test]
    fn thread_count_does_not_change_results() {
        let e = corridor_episode(20);
        let policy = PlannerPolicy::default();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            pool.install(|| {
                let goals = e.goal_candidates();
                let mut session = Inference::new(
                    e.world(),
                    &policy,
                    e.initial_state(),
                    &goals,
                    &HypothesisConfig::default(),
                )
                .expect("session");
                for a in e.actions() {
                    session.push(a).expect("possible");
                }
                session.core.log_weights.clone()
            })
        };
        let one = run(1);
        assert_eq!(one, run(4), "bit-identical across thread counts");
    }

    #[test]
    fn sessions_are_send_and_policies_sync() {
        fn send<T: Send>() {}
        fn sync<T: Sync + ?Sized>() {}
        send::<Inference<'static>>();
        sync::<dyn Policy>();
        sync::<PlannerPolicy>();
    }

    #[test]
    fn invalid_leak_is_rejected() {
        let e = corridor_episode(1);
        let policy = PlannerPolicy::default();
        let config = HypothesisConfig {
            belief_leak: 1.5,
            ..HypothesisConfig::default()
        };
        let result = Inference::new(
            e.world(),
            &policy,
            e.initial_state(),
            &e.goal_candidates(),
            &config,
        );
        assert!(matches!(
            result,
            Err(EngineError::InvalidParameter {
                name: "belief leak",
                ..
            })
        ));
    }
}
