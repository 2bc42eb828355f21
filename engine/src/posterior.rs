//! The posterior over joint hypotheses at one moment, and the probability of claims under it.

use bip_episodes::{ClassId, FurnitureId, Proposition, World};

use crate::belief::Belief;
use crate::hypothesis::{BeliefHypothesis, Hypothesis, InitialBelief};
use crate::logprob::{log_sum_exp, normalize};

/// A snapshot of an [`Inference`](crate::Inference) session's posterior.
// Made by the session it snapshots (`Core::posterior`), which lends it these.
pub struct Posterior<'a> {
    pub(crate) world: &'a World,
    pub(crate) belief_hypotheses: &'a [BeliefHypothesis],
    /// `[class][h]`: the prior of starting belief `h` about `class`.
    pub(crate) belief_log_priors: &'a [Vec<f64>],
    pub(crate) beliefs: &'a [Vec<Belief>],
    pub(crate) hypotheses: &'a [Hypothesis],
    pub(crate) log_weights: &'a [f64],
    /// The log of the weights' sum.
    pub(crate) log_total: f64,
}

/// One joint hypothesis with its posterior probability, for traces.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedHypothesis {
    /// The wanted class.
    pub goal: ClassId,
    /// What the agent thought at the start.
    pub initial: InitialBelief,
    /// Where, under this hypothesis, the agent now thinks the goal object is (`None`: undecided).
    pub now_thinks: Option<FurnitureId>,
    /// Posterior probability.
    pub probability: f64,
}

impl<'a> Posterior<'a> {
    /// Posterior probability of each candidate goal, in the order the goals were given.
    pub fn goals(&self) -> Vec<(ClassId, f64)> {
        let mut goals: Vec<(ClassId, Vec<f64>)> = Vec::new();
        for (h, &w) in self.hypotheses.iter().zip(self.log_weights) {
            match goals.iter_mut().find(|(g, _)| *g == h.goal) {
                Some((_, ws)) => ws.push(w),
                None => goals.push((h.goal, vec![w])),
            }
        }
        goals
            .into_iter()
            .map(|(g, ws)| (g, (log_sum_exp(&ws) - self.log_total).exp()))
            .map(|(g, p)| (g, if p.is_nan() { 0.0 } else { p }))
            .collect()
    }

    /// What the agent thinks of where its goal is: for each candidate goal, in the order
    /// of [`goals`](Self::goals), and each place of the world (in id order), P(the agent
    /// thinks an object of the goal's class is inside the place | it wants that class) —
    /// the claim of a belief question under the condition such questions usually carry
    /// ("if Mark has been trying to get a plate, does he think there is one in the
    /// cabinet?"), as [`conditional`](Self::conditional) gives it. `None` for a goal with
    /// no posterior mass.
    ///
    /// # Complexity
    /// One pass over the hypotheses per place: O(hypotheses × places).
    pub fn beliefs_given_goals(&self) -> Vec<(ClassId, Option<Vec<f64>>)> {
        let mut goals: Vec<(ClassId, Vec<usize>)> = Vec::new();
        for (i, h) in self.hypotheses.iter().enumerate() {
            match goals.iter_mut().find(|(g, _)| *g == h.goal) {
                Some((_, members)) => members.push(i),
                None => goals.push((h.goal, vec![i])),
            }
        }
        goals
            .into_iter()
            .map(|(goal, members)| {
                let weights: Vec<f64> = members.iter().map(|&i| self.log_weights[i]).collect();
                let log_goal = log_sum_exp(&weights);
                if log_goal == f64::NEG_INFINITY {
                    return (goal, None);
                }
                let row = self
                    .world
                    .furniture_ids()
                    .map(|place| {
                        let thinks: Vec<f64> = members
                            .iter()
                            .map(|&i| {
                                let h = self.hypotheses[i];
                                let belief = &self.beliefs[goal.index()][h.belief];
                                self.log_weights[i]
                                    + log_indicator(belief.satisfies(&[(place, true)]))
                            })
                            .collect();
                        (log_sum_exp(&thinks) - log_goal).exp().min(1.0)
                    })
                    .collect();
                (goal, Some(row))
            })
            .collect()
    }

    /// The `count` most probable joint hypotheses, most probable first (ties keep their
    /// enumeration order).
    pub fn top(&self, count: usize) -> Vec<RankedHypothesis> {
        let probabilities = normalize(self.log_weights);
        let mut order: Vec<usize> = (0..self.hypotheses.len()).collect();
        order.sort_by(|&a, &b| probabilities[b].total_cmp(&probabilities[a]));
        order
            .into_iter()
            .take(count)
            .map(|i| {
                let h = self.hypotheses[i];
                RankedHypothesis {
                    goal: h.goal,
                    initial: self.belief_hypotheses[h.belief].initial.clone(),
                    now_thinks: self.beliefs[h.goal.index()][h.belief].believed_place(),
                    probability: probabilities[i],
                }
            })
            .collect()
    }

    /// The log of the unnormalised posterior mass of the hypotheses under which every
    /// proposition in `all` holds: prior times likelihood of the actions, summed. Masses
    /// of sessions over different readings of one episode (the same hypotheses, other
    /// worlds) can be added to marginalise over the readings.
    pub fn log_mass(&self, all: &[Proposition]) -> f64 {
        log_sum_exp(&self.hypothesis_log_weights(all))
    }

    /// The log of the total unnormalised posterior mass: the log evidence of the actions.
    pub fn log_evidence(&self) -> f64 {
        self.log_total
    }

    /// log P(every proposition in `all` holds) under the posterior.
    ///
    /// A belief proposition ("thinks an X is inside C") holds under a hypothesis when C is
    /// a live candidate of its current belief ([`Belief::thinks_inside`]). Beliefs about
    /// the wanted class are part of
    /// each hypothesis; a belief about another class does not affect the agent's actions,
    /// so it has its prior, updated only by what the agent has seen.
    pub fn log_probability(&self, all: &[Proposition]) -> f64 {
        log_sum_exp(&self.hypothesis_log_weights(all)) - self.log_total
    }

    /// For each joint hypothesis, in the session's order: the log of its posterior weight
    /// times the probability that every proposition in `all` holds under it (−∞ where
    /// they cannot). Unnormalised: only comparisons between hypotheses are meaningful.
    pub fn hypothesis_log_weights(&self, all: &[Proposition]) -> Vec<f64> {
        self.hypotheses
            .iter()
            .zip(self.log_weights)
            .map(|(h, w)| w + self.log_probability_given(all, h))
            .collect()
    }

    /// P(`about` | `given`), or `None` when `given` has probability zero.
    pub fn conditional(&self, about: Proposition, given: Option<Proposition>) -> Option<f64> {
        let Some(given) = given else {
            return Some(self.log_probability(&[about]).exp());
        };
        let log_given = self.log_probability(&[given]);
        if log_given == f64::NEG_INFINITY {
            return None;
        }
        Some(
            (self.log_probability(&[about, given]) - log_given)
                .exp()
                .min(1.0),
        )
    }

    fn log_probability_given(&self, all: &[Proposition], h: &Hypothesis) -> f64 {
        let mut classes: Vec<ClassId> = Vec::new();
        for p in all {
            match *p {
                Proposition::Goal(c) if c != h.goal => return f64::NEG_INFINITY,
                Proposition::Goal(_) => {}
                Proposition::Belief { class, .. } => {
                    if !classes.contains(&class) {
                        classes.push(class);
                    }
                }
            }
        }
        classes
            .into_iter()
            .map(|class| {
                let conditions = belief_conditions(all, class);
                let beliefs = &self.beliefs[class.index()];
                if class == h.goal {
                    return log_indicator(beliefs[h.belief].satisfies(&conditions));
                }
                let terms: Vec<f64> = self.belief_log_priors[class.index()]
                    .iter()
                    .zip(beliefs)
                    .map(|(prior, belief)| prior + log_indicator(belief.satisfies(&conditions)))
                    .collect();
                log_sum_exp(&terms)
            })
            .sum()
    }

    /// How many joint hypotheses the posterior is over.
    pub fn hypothesis_count(&self) -> usize {
        self.hypotheses.len()
    }

    /// The world the posterior is about.
    pub fn world(&self) -> &World {
        self.world
    }
}

/// 0 for true, −∞ for false.
fn log_indicator(holds: bool) -> f64 {
    if holds {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// The `(place, inside)` conditions that `all` puts on the belief about `class`.
fn belief_conditions(all: &[Proposition], class: ClassId) -> Vec<(FurnitureId, bool)> {
    all.iter()
        .filter_map(|p| match *p {
            Proposition::Belief {
                class: c,
                place,
                inside,
            } if c == class => Some((place, inside)),
            _ => None,
        })
        .collect()
}
