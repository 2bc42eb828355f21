//! Inference over an episode whose source allows several worlds ([`Episode::readings`]):
//! one session per reading, and answers from the posterior masses summed over them.
//!
//! With equal prior weight on the readings, P(claim | condition, actions) is
//! Σ_r mass_r(claim ∧ condition) / Σ_r mass_r(condition), where mass_r is the posterior
//! mass (prior × likelihood of the actions) under reading r; a reading that explains the
//! actions badly contributes little. Sums are taken in log space.

use bip_episodes::{Episode, Proposition, Question};

use crate::answer::answer_from;
use crate::batch::{by_moment, session_for, trace, BatchOptions, EpisodeInference};
use crate::error::EngineError;
use crate::logprob::{log_sum_exp, normalize};
use crate::policy::Policy;

/// For each question due at one moment, for each option: the log masses of its claim with
/// its condition, and of its condition alone, under one reading.
type OptionMasses = Vec<Vec<(f64, f64)>>;

/// [`crate::infer_episode`] over every reading of `episode`.
pub(crate) fn infer_readings(
    episode: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
) -> Result<EpisodeInference, EngineError> {
    let readings = episode.readings();
    let mut end_evidence: Vec<Option<f64>> = vec![None; readings.len()];
    let (answers, costs) = by_moment(episode, policy, |at, due| {
        let mut per_reading = Vec::with_capacity(readings.len());
        let mut hypotheses = 0;
        for (r, reading) in readings.iter().enumerate() {
            let (masses, count, evidence) = masses_at(reading, policy, options, due, at)?;
            per_reading.push(masses);
            hypotheses += count;
            if at == episode.actions().len() {
                end_evidence[r] = Some(evidence);
            }
        }
        let answers = due
            .iter()
            .enumerate()
            .map(|(q, question)| {
                let probabilities = (0..question.options.len())
                    .map(|o| combined(per_reading.iter().map(|m| m[q][o])))
                    .collect();
                answer_from(probabilities)
            })
            .collect();
        Ok((answers, hypotheses))
    })?;
    let evidence = readings
        .iter()
        .zip(end_evidence)
        .map(|(r, known)| known.map_or_else(|| log_evidence(r, policy, options), Ok))
        .collect::<Result<Vec<f64>, _>>()?;
    let probabilities = normalize(&evidence);
    let trace = match options.trace_top {
        Some(top) => {
            let best = (0..readings.len())
                .max_by(|&a, &b| {
                    probabilities[a]
                        .total_cmp(&probabilities[b])
                        .then(b.cmp(&a))
                })
                .unwrap_or_default();
            trace(&readings[best], policy, options, top)?
        }
        None => Vec::new(),
    };
    Ok(EpisodeInference {
        answers,
        trace,
        costs,
        readings: probabilities,
    })
}

/// The option masses of the questions `due` after `at` actions under one reading, how
/// many hypotheses were scored, and the log evidence of those actions.
fn masses_at(
    reading: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
    due: &[&Question],
    at: usize,
) -> Result<(OptionMasses, usize, f64), EngineError> {
    let mut session = session_for(reading, policy, options, due, at)?;
    let count = session.hypothesis_count();
    session.push_all(&reading.actions()[..at])?;
    let posterior = session.posterior();
    let masses = due
        .iter()
        .map(|q| {
            q.options
                .iter()
                .map(|o| {
                    let mut claim: Vec<Proposition> = vec![o.claim.about];
                    claim.extend(o.claim.given);
                    let condition = match o.claim.given {
                        Some(given) => posterior.log_mass(&[given]),
                        None => posterior.log_evidence(),
                    };
                    (posterior.log_mass(&claim), condition)
                })
                .collect()
        })
        .collect();
    Ok((masses, count, posterior.log_evidence()))
}

/// P(claim | condition) from each reading's (claim mass, condition mass); `None` when the
/// condition is impossible in every reading.
fn combined(masses: impl Iterator<Item = (f64, f64)>) -> Option<f64> {
    let (claims, conditions): (Vec<f64>, Vec<f64>) = masses.unzip();
    let condition = log_sum_exp(&conditions);
    if condition == f64::NEG_INFINITY {
        return None;
    }
    Some((log_sum_exp(&claims) - condition).exp().min(1.0))
}

/// The log evidence of all of a reading's actions.
fn log_evidence(
    reading: &Episode,
    policy: &dyn Policy,
    options: &BatchOptions,
) -> Result<f64, EngineError> {
    let all: Vec<&Question> = reading.questions().iter().collect();
    let mut session = session_for(reading, policy, options, &all, reading.actions().len())?;
    session.push_all(reading.actions())?;
    Ok(session.posterior().log_evidence())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{infer_episode, PlannerPolicy};

    /// The apple is in the fridge (as written) or in the cabinet (the other reading), a
    /// plate in a closed box; the agent opens the fridge, shuts it and goes on to the
    /// cabinet.
    fn episode(alternatives: &str) -> Episode {
        Episode::from_json(&episode_text(alternatives), "readings").expect("valid episode")
    }

    fn episode_text(alternatives: &str) -> String {
        format!(
            r#"{{"format": "bip-episode/1",
              "world": {{"rooms": ["kitchen", "hall"],
                "furniture": [{{"id": "fridge", "room": "kitchen", "kind": "container"}},
                              {{"id": "cabinet", "room": "kitchen", "kind": "container"}},
                              {{"id": "box", "room": "hall", "kind": "container"}}],
                "objects": [{{"id": "apple_1", "at": "fridge"}}, {{"id": "plate_1", "at": "box"}}],
                "alternatives": {alternatives}}},
              "agent": {{"name": "Bo", "start": "hall"}},
              "actions": [{{"walk_to": "fridge"}}, {{"open": "fridge"}}, {{"close": "fridge"}},
                          {{"walk_to": "cabinet"}}],
              "questions": [{{"options": [{{"goal": "apple"}}, {{"goal": "plate"}}]}}]}}"#
        )
    }

    fn p_apple(e: &Episode) -> f64 {
        let result = infer_episode(e, &PlannerPolicy::default(), &BatchOptions::default())
            .expect("inference runs");
        result.answers[0].probabilities[0].expect("no condition")
    }

    #[test]
    fn answers_weigh_each_reading_by_how_well_it_explains_the_actions() {
        let both = episode(r#"[{"objects": {"apple_1": "cabinet"}}]"#);
        let readings = both.readings();
        let (in_fridge, in_cabinet) = (p_apple(&readings[0]), p_apple(&readings[1]));
        // Seen in the opened fridge and left there, the apple is not what Bo wants; not
        // seen, it is as likely as the plate.
        assert!(
            in_fridge < 0.01 && in_cabinet > 0.4,
            "{in_fridge} {in_cabinet}"
        );
        let combined = p_apple(&both);
        assert!(in_fridge < combined && combined < in_cabinet, "{combined}");

        // Exactly: the claim's mass summed over the readings, over the total mass.
        let policy = PlannerPolicy::default();
        let (mut claims, mut totals) = (Vec::new(), Vec::new());
        for reading in &readings {
            let question: Vec<&Question> = reading.questions().iter().collect();
            let (masses, _, evidence) =
                masses_at(reading, &policy, &BatchOptions::default(), &question, 4)
                    .expect("masses");
            claims.push(masses[0][0].0);
            totals.push(evidence);
        }
        let expected = (log_sum_exp(&claims) - log_sum_exp(&totals)).exp();
        assert!(
            (combined - expected).abs() < 1e-12,
            "{combined} vs {expected}"
        );

        let result = infer_episode(&both, &policy, &BatchOptions::default()).expect("runs");
        assert_eq!(result.readings.len(), 2);
        assert!((result.readings.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_reading_that_repeats_the_world_is_refused_rather_than_weighed_twice() {
        let text = episode_text;
        let refused = Episode::from_json(&text(r#"[{"objects": {"apple_1": "fridge"}}]"#), "r")
            .expect_err("a repeated reading would double the world's prior weight");
        assert!(
            matches!(
                refused,
                bip_episodes::EpisodeError::RepeatedReading {
                    index: 0,
                    other: None
                }
            ),
            "{refused:?}"
        );
        assert!(Episode::from_json(&text("[]"), "r").is_ok());
    }
}
