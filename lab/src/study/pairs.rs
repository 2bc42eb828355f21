//! Every pair of policies within a theme: exact McNemar tests on the paired questions,
//! Holm–Bonferroni adjusted within each theme's family of pairs.

use std::collections::HashMap;

use serde::Serialize;

use crate::stats::holm;
use crate::variance::{paired, VariantRun};

/// Two policies on the questions both answered in one theme.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyPair {
    /// The first policy (earlier in the plan).
    pub first: String,
    /// The second.
    pub second: String,
    /// Questions answered by both.
    pub paired: usize,
    /// Right under the first only.
    pub first_only: usize,
    /// Right under the second only.
    pub second_only: usize,
    /// Exact two-sided McNemar p-value.
    pub p: f64,
    /// Holm–Bonferroni adjusted over the theme's pairs.
    pub p_holm: f64,
}

/// The pairs of policies within one theme.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThemePairs {
    /// The theme.
    pub theme: String,
    /// Every pair of policies, in plan order (first < second).
    pub pairs: Vec<PolicyPair>,
}

/// For each theme, every pair of `names` (policies) tested on `runs[policy][theme]`.
pub(crate) fn policy_pairs(names: &[String], runs: &[Vec<VariantRun>]) -> Vec<ThemePairs> {
    let themes = runs.first().map_or(0, Vec::len);
    (0..themes)
        .map(|t| {
            let mut pairs = Vec::new();
            for i in 0..names.len() {
                let base: HashMap<&str, bool> = runs[i][t]
                    .items
                    .iter()
                    .map(|(k, o)| (k.as_str(), o.correct(0.0)))
                    .collect();
                for j in i + 1..names.len() {
                    let test = paired(&base, &runs[j][t]);
                    pairs.push(PolicyPair {
                        first: names[i].clone(),
                        second: names[j].clone(),
                        paired: test.paired,
                        first_only: test.baseline_only,
                        second_only: test.variant_only,
                        p: test.p,
                        p_holm: test.p,
                    });
                }
            }
            let p: Vec<f64> = pairs.iter().map(|x| x.p).collect();
            for (pair, adjusted) in pairs.iter_mut().zip(holm(&p)) {
                pair.p_holm = adjusted;
            }
            ThemePairs {
                theme: runs[0][t].name.clone(),
                pairs,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::Outcome;
    use bip_engine::Answer;
    use bip_episodes::Expected;

    fn run(right: &[bool]) -> VariantRun {
        let outcome = |r: bool| Outcome {
            episode: "e".into(),
            label: None,
            expected: Expected::Option(0),
            answer: Answer {
                probabilities: vec![],
                posterior: if r { vec![0.9, 0.1] } else { vec![0.1, 0.9] },
                choice: Some(usize::from(!r)),
                margin: 0.8,
            },
        };
        VariantRun {
            name: "apartment".into(),
            items: right
                .iter()
                .enumerate()
                .map(|(i, &r)| (format!("e{i}/q"), outcome(r)))
                .collect(),
            unreadable: 0,
        }
    }

    #[test]
    fn every_pair_is_tested_and_holm_adjusted_within_the_theme() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let a = run(&[true; 8]);
        let b = run(&[false, false, false, false, false, false, true, true]);
        let runs = vec![vec![a.clone()], vec![b], vec![a]];
        let pairs = &policy_pairs(&names, &runs)[0].pairs;
        let named: Vec<(&str, &str)> = pairs
            .iter()
            .map(|p| (p.first.as_str(), p.second.as_str()))
            .collect();
        assert_eq!(named, [("a", "b"), ("a", "c"), ("b", "c")]);
        // a against b: 6 right under a only, none under b: p = 2 / 2^6.
        assert_eq!((pairs[0].first_only, pairs[0].second_only), (6, 0));
        assert!((pairs[0].p - 0.03125).abs() < 1e-12);
        // Holm over {0.03125, 1, 0.03125}: the smallest two × 3 and × 2, kept monotone.
        assert!((pairs[0].p_holm - 0.09375).abs() < 1e-12);
        assert_eq!(pairs[1].p_holm, 1.0);
    }
}
