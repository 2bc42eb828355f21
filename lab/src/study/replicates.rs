//! Replicates: policy cells that run one configuration several times over (an expert
//! adapter trained with `bip train --seed 1`, `2`, `3`), summarised as mean ± sample
//! standard deviation across them, so that a table reports what training gives and how
//! much it varies, not one lucky run.

use serde::Serialize;

use super::report::PolicyReport;
use crate::stats::range_and_variance;

/// A mean and the sample standard deviation (n − 1) around it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanSd {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation; 0 for a single value.
    pub sd: f64,
}

impl MeanSd {
    /// Of `values` (not empty).
    pub fn of(values: &[f64]) -> Self {
        Self {
            mean: values.iter().sum::<f64>() / values.len() as f64,
            sd: range_and_variance(values).1.sqrt(),
        }
    }
}

/// One theme's accuracy across a group's cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplicateTheme {
    /// The theme.
    pub theme: String,
    /// Accuracy over the theme's questions, across cells.
    pub accuracy: MeanSd,
}

/// A group of replicate cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplicateReport {
    /// The group's name.
    pub name: String,
    /// Its cells, in plan order.
    pub cells: Vec<String>,
    /// Per theme, in the report's order.
    pub themes: Vec<ReplicateTheme>,
    /// Each cell's range across themes, across cells.
    pub range: MeanSd,
    /// The range across themes of the mean accuracy.
    pub range_of_means: f64,
}

impl ReplicateReport {
    /// The group `name` of `members` (policy reports over the same themes, in order).
    ///
    /// # Panics
    /// If `members` is empty.
    pub fn of(name: &str, members: &[&PolicyReport]) -> Self {
        assert!(!members.is_empty(), "a replicate group has cells");
        let themes: Vec<ReplicateTheme> = members[0]
            .themes
            .variants
            .iter()
            .enumerate()
            .map(|(i, variant)| ReplicateTheme {
                theme: variant.name.clone(),
                accuracy: MeanSd::of(
                    &members
                        .iter()
                        .map(|m| m.themes.variants[i].overall.accuracy)
                        .collect::<Vec<_>>(),
                ),
            })
            .collect();
        let means: Vec<f64> = themes.iter().map(|t| t.accuracy.mean).collect();
        Self {
            name: name.to_string(),
            cells: members.iter().map(|m| m.name.clone()).collect(),
            themes,
            range: MeanSd::of(&members.iter().map(|m| m.themes.range).collect::<Vec<_>>()),
            range_of_means: range_and_variance(&means).0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_sd() {
        let m = MeanSd::of(&[0.7, 0.8, 0.9]);
        assert!((m.mean - 0.8).abs() < 1e-12);
        assert!((m.sd - 0.1).abs() < 1e-12);
        assert_eq!(MeanSd::of(&[0.5]), MeanSd { mean: 0.5, sd: 0.0 });
    }
}
