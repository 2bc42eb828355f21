//! How far accuracy moves across themes, with its uncertainty: a paired episode-cluster
//! bootstrap of the range (largest minus smallest theme accuracy).

use std::collections::BTreeMap;

use bip_episodes::Expected;

use crate::evaluation::BOOTSTRAP_RESAMPLES;
use crate::rng::Rng;
use crate::variance::VariantRun;

/// The 95% percentile interval of the range of accuracy across `runs` (one per theme,
/// answerable questions only, ties wrong), resampling whole episodes with replacement,
/// each episode's questions kept together in every theme at once (the themes tell the
/// same episodes, so the resample is paired). Draws from `seed`; `[0, 0]` for fewer than
/// two themes or no questions.
pub fn range_ci95(runs: &[VariantRun], seed: u64) -> [f64; 2] {
    // episode → per theme (questions, right)
    let mut clusters: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for (t, run) in runs.iter().enumerate() {
        for (_, o) in run
            .items
            .iter()
            .filter(|(_, o)| o.expected != Expected::Unknowable)
        {
            let cell = clusters
                .entry(o.episode.as_str())
                .or_insert_with(|| vec![(0, 0); runs.len()]);
            cell[t].0 += 1;
            cell[t].1 += usize::from(o.correct(0.0));
        }
    }
    let clusters: Vec<Vec<(usize, usize)>> = clusters.into_values().collect();
    if runs.len() < 2 || clusters.is_empty() {
        return [0.0, 0.0];
    }
    let mut rng = Rng::new(seed);
    let mut ranges: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            let mut totals = vec![(0usize, 0usize); runs.len()];
            for _ in 0..clusters.len() {
                for (total, (n, right)) in
                    totals.iter_mut().zip(&clusters[rng.below(clusters.len())])
                {
                    total.0 += n;
                    total.1 += right;
                }
            }
            let accuracies = totals
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|&(n, right)| right as f64 / n as f64);
            let (lo, hi) = accuracies.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), a| {
                (lo.min(a), hi.max(a))
            });
            if hi >= lo {
                hi - lo
            } else {
                0.0
            }
        })
        .collect();
    ranges.sort_by(f64::total_cmp);
    let at = |q: f64| ranges[((ranges.len() - 1) as f64 * q).round() as usize];
    [at(0.025), at(0.975)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::Outcome;
    use bip_engine::Answer;

    fn run(name: &str, right: &[bool]) -> VariantRun {
        let outcome = |i: usize, r: bool| Outcome {
            episode: format!("e{i}"),
            label: None,
            expected: Expected::Option(0),
            answer: Answer {
                probabilities: vec![],
                posterior: vec![0.5, 0.5],
                choice: Some(usize::from(!r)),
                margin: 0.2,
            },
        };
        VariantRun {
            name: name.into(),
            items: right
                .iter()
                .enumerate()
                .map(|(i, &r)| (format!("e{i}/q"), outcome(i, r)))
                .collect(),
            unreadable: 0,
        }
    }

    #[test]
    fn equal_themes_have_no_range_and_different_ones_a_positive_interval() {
        let right = [true, false, true, true, false, true, true, true];
        let same = [run("a", &right), run("b", &right)];
        assert_eq!(
            range_ci95(&same, 0),
            [0.0, 0.0],
            "paired: every resample agrees"
        );
        let mut worse = right;
        worse[0] = false;
        worse[2] = false;
        worse[3] = false;
        let apart = [run("a", &right), run("b", &worse)];
        let [lo, hi] = range_ci95(&apart, 0);
        assert!(
            (0.0..=3.0 / 8.0).contains(&lo) && (3.0 / 8.0..=1.0).contains(&hi),
            "{lo} {hi}"
        );
        assert_eq!(range_ci95(&apart[..1], 0), [0.0, 0.0]);
    }
}
