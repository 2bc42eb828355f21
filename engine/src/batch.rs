//! Inference over a whole episode: the online session run to the end, answering each
//! question at its moment.

use std::time::Instant;

use rayon::prelude::*;

use bip_episodes::{Action, ClassId, Episode, Proposition, Question, World};

use crate::answer::{answer, Answer};
use crate::cost::QuestionCost;
use crate::error::EngineError;
use crate::hypothesis::{search_sets, HypothesisConfig};
use crate::inference::Inference;
use crate::policy::{PlannerPolicy, Policy};
use crate::posterior::{Posterior, RankedHypothesis};
use crate::side_by_side::run_side_by_side;

/// Options of batch inference.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    /// The hypothesis space.
    pub hypotheses: HypothesisConfig,
    /// Record the posterior after every step, keeping this many top joint hypotheses
    /// (`None`: no trace).
    pub trace_top: Option<usize>,
    /// Score only the hypotheses a planner proposes for each answer option (`None`:
    /// score every hypothesis).
    pub pruning: Option<Pruning>,
    /// In [`infer_all`], run the episodes of a [`Policy::serial`] policy side by side
    /// through copies of it ([`Policy::fork`]), one copy for each set of episodes that
    /// share a layout. Off by default, so that the policy itself
    /// remembers what it scored (as fitting a hybrid's weights needs); on, answers no
    /// longer depend on which episodes ran before, and every core is used.
    pub side_by_side: bool,
}

/// Hypothesis pruning for costly policies.
///
/// Before a question's session runs, the symbolic planner (cheap) runs the same actions
/// over the whole hypothesis space; for every option of every question due at that
/// moment, the `per_option` hypotheses with the most posterior mass under which the
/// option's claim holds are kept, and the costly policy scores only those. Every option
/// keeps hypotheses that support it, so the costly policy, not the planner, decides
/// between the options; the planner only chooses which hypotheses speak for each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pruning {
    /// Hypotheses kept for each option (at least 1).
    pub per_option: usize,
    /// Rationality β of the proposing planner.
    pub proposal_beta: f64,
}

/// The posterior at one step, for `--trace`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// Actions seen so far.
    pub step: usize,
    /// The action that led here (none at step 0).
    pub action: Option<Action>,
    /// Posterior over goals.
    pub goals: Vec<(ClassId, f64)>,
    /// The most probable joint hypotheses.
    pub top: Vec<RankedHypothesis>,
}

/// Everything batch inference found about one episode.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeInference {
    /// One answer per question, in the episode's order.
    pub answers: Vec<Answer>,
    /// The posterior at every step, when asked for.
    pub trace: Vec<TraceStep>,
    /// What each answer cost, in the order of `answers`.
    pub costs: Vec<QuestionCost>,
    /// When the episode has several readings ([`Episode::readings`]): the posterior
    /// probability of each after all its actions; empty otherwise.
    pub readings: Vec<f64>,
}

/// The hypothesis settings for questions asked after `at` actions: `base` plus the
/// search sets read off those actions ([`search_sets`]).
pub fn hypotheses_at(episode: &Episode, at: usize, base: &HypothesisConfig) -> HypothesisConfig {
    let mut config = base.clone();
    config.search_sets.extend(search_sets(
        episode.world(),
        &episode.actions()[..at.min(episode.actions().len())],
    ));
    config
}

/// Runs inference over `episode` with `policy`, answering every question after the
/// number of actions it names.
///
/// Questions asked at different moments get their own session, since the search sets
/// of the hypothesis space ([`hypotheses_at`]) are read off the actions before each
/// moment; the trace uses those of the whole episode.
///
/// An episode with several readings of where objects start ([`Episode::readings`]) is
/// answered by marginalising over them: each option's probability is the posterior mass
/// of its claim summed over the readings (each weighed by how well it explains the
/// actions), over that of its condition; the trace follows the most probable reading.
///
/// # Errors
/// As [`Inference::new`] and [`Inference::push`].
pub fn infer_episode(
    episode: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
) -> Result<EpisodeInference, EngineError> {
    if episode.alternatives().is_empty() {
        infer_reading(episode, policy, options)
    } else {
        crate::readings::infer_readings(episode, policy, options)
    }
}

/// [`infer_episode`] over an episode with one reading.
pub(crate) fn infer_reading(
    episode: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
) -> Result<EpisodeInference, EngineError> {
    let (answers, costs) = by_moment(episode, policy, |at, due| {
        let mut session = session_for(episode, policy, options, due, at)?;
        let hypotheses = session.hypothesis_count();
        session.push_all(&episode.actions()[..at])?;
        let posterior = session.posterior();
        let answers = due.iter().map(|q| answer(q, &posterior)).collect();
        Ok((answers, hypotheses))
    })?;
    let trace = match options.trace_top {
        Some(top) => trace(episode, policy, options, top)?,
        None => Vec::new(),
    };
    Ok(EpisodeInference {
        answers,
        trace,
        costs,
        readings: Vec::new(),
    })
}

/// Answers the questions of `episode` moment by moment: for each distinct number of
/// actions a question is asked after, in increasing order, `answer_at(at, due)` answers
/// the questions due then (in episode order) and says how many hypotheses it scored; the
/// time and policy work it took are shared among them ([`QuestionCost::share`]).
///
/// Returns the answers and their costs in the order of the episode's questions.
pub(crate) fn by_moment(
    episode: &Episode,
    policy: &dyn Policy,
    mut answer_at: impl FnMut(usize, &[&Question]) -> Result<(Vec<Answer>, usize), EngineError>,
) -> Result<(Vec<Answer>, Vec<QuestionCost>), EngineError> {
    let questions = episode.questions();
    let mut answers: Vec<Option<Answer>> = vec![None; questions.len()];
    let mut costs = vec![QuestionCost::default(); questions.len()];
    let mut moments: Vec<usize> = questions.iter().map(|q| q.at).collect();
    moments.sort_unstable();
    moments.dedup();
    for at in moments {
        let started = Instant::now();
        let work_before = policy.work();
        let due: Vec<usize> = (0..questions.len())
            .filter(|&i| questions[i].at == at)
            .collect();
        let due_questions: Vec<&Question> = due.iter().map(|&i| &questions[i]).collect();
        let (due_answers, hypotheses) = answer_at(at, &due_questions)?;
        let cost = QuestionCost::share(
            started.elapsed().as_secs_f64(),
            policy.work().since(work_before),
            hypotheses,
            due.len(),
        );
        for (i, answer) in due.into_iter().zip(due_answers) {
            answers[i] = Some(answer);
            costs[i] = cost;
        }
    }
    // Every question's `at` is a moment above, and `answer_at` answers every question due.
    Ok((answers.into_iter().flatten().collect(), costs))
}

/// A session over `episode` for `questions` asked after `at` actions, before any action:
/// the hypotheses of [`hypotheses_at`], pruned for the questions when `options` ask for
/// it ([`Pruning`]).
pub(crate) fn session_for<'a>(
    episode: &'a Episode,
    policy: &'a dyn Policy,
    options: &BatchOptions,
    questions: &[&Question],
    at: usize,
) -> Result<Inference<'a>, EngineError> {
    let config = hypotheses_at(episode, at, &options.hypotheses);
    let mut session = Inference::for_episode(episode, policy, &config)?;
    if let Some(pruning) = &options.pruning {
        let keep = proposed(episode, questions, at, &config, pruning)?;
        session.retain(|i| keep[i]);
    }
    Ok(session)
}

/// The posterior after every step of `episode`, keeping the `top` joint hypotheses.
pub(crate) fn trace(
    episode: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
    top: usize,
) -> Result<Vec<TraceStep>, EngineError> {
    let mut trace = Vec::new();
    let end = episode.actions().len();
    let all: Vec<&Question> = episode.questions().iter().collect();
    let mut session = session_for(episode, policy, options, &all, end)?;
    session.score_ahead(episode.actions());
    for step in 0..=end {
        if step > 0 {
            session.push(&episode.actions()[step - 1])?;
        }
        let posterior = session.posterior();
        trace.push(TraceStep {
            step,
            action: step.checked_sub(1).map(|i| episode.actions()[i]),
            goals: posterior.goals(),
            top: posterior.top(top),
        });
    }
    Ok(trace)
}

/// Which hypotheses of a session over `config` to keep for `questions`, asked after `at`
/// actions ([`Pruning`]); indexed like a new session's hypotheses.
pub(crate) fn proposed(
    episode: &Episode,
    questions: &[&Question],
    at: usize,
    config: &HypothesisConfig,
    pruning: &Pruning,
) -> Result<Vec<bool>, EngineError> {
    let planner = PlannerPolicy::new(pruning.proposal_beta)?;
    let mut session = Inference::for_episode(episode, &planner, config)?;
    session.push_all(&episode.actions()[..at])?;
    Ok(proposal(
        &session.posterior(),
        questions,
        pruning.per_option,
    ))
}

/// The hypotheses of `posterior` to keep for `questions`: for each option, the
/// `per_option` (at least 1) with the most posterior mass under which its claim holds
/// ([`Pruning`]); indexed like the posterior's hypotheses.
pub(crate) fn proposal(
    posterior: &Posterior<'_>,
    questions: &[&Question],
    per_option: usize,
) -> Vec<bool> {
    let mut keep = vec![false; posterior.hypothesis_count()];
    for option in questions.iter().flat_map(|q| &q.options) {
        let mut claim: Vec<Proposition> = vec![option.claim.about];
        claim.extend(option.claim.given);
        let weights = posterior.hypothesis_log_weights(&claim);
        let mut ranked: Vec<usize> = (0..weights.len())
            .filter(|&i| weights[i] > f64::NEG_INFINITY)
            .collect();
        // Stable: equal weights keep enumeration order, so the choice is deterministic.
        ranked.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]));
        for i in ranked.into_iter().take(per_option.max(1)) {
            keep[i] = true;
        }
    }
    keep
}

/// Runs [`infer_episode`] over many episodes in parallel (one after another for policies
/// that ask for it, [`Policy::serial`]), calling `on_done` after each (for progress bars).
/// Results are in input order and identical to a sequential run.
///
/// With [`BatchOptions::side_by_side`], a serial policy that can be forked runs the
/// episodes through [`run_side_by_side`]: the episodes of a set share the layout's cached
/// computation, and every answer depends only on its own set, whatever the number of
/// threads.
pub fn infer_all(
    episodes: &[Episode],
    policy: &dyn Policy,
    options: &BatchOptions,
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<EpisodeInference, EngineError>> {
    let run = |e: &Episode, policy: &dyn Policy| {
        let result = infer_episode(e, policy, options);
        on_done();
        result
    };
    if !policy.serial() {
        return episodes.par_iter().map(|e| run(e, policy)).collect();
    }
    if options.side_by_side {
        let worlds: Vec<Option<&World>> = episodes.iter().map(|e| Some(e.world())).collect();
        if let Some(results) = run_side_by_side(episodes, &worlds, policy, &run) {
            return results;
        }
    }
    episodes.iter().map(|e| run(e, policy)).collect()
}
