//! The report of a study: per policy, the variance report across themes and the cost
//! per question; per theme, every pair of policies; and the questions asked.

use std::collections::HashMap;

use serde::Serialize;

use crate::evaluation::CostSummary;
use crate::variance::{VarianceReport, VariantRun};
use crate::LabError;

use super::layout::{StudyItem, StudyLayout};
use super::pairs::{policy_pairs, ThemePairs};
use super::record::StudyRecord;
use super::replicates::ReplicateReport;
use super::spread::range_ci95;

/// One policy's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyReport {
    /// The policy cell's name.
    pub name: String,
    /// Accuracy per theme (overall, by type, position-balanced, with episode-cluster
    /// bootstrap intervals), the range and variance across themes, and each theme
    /// against the baseline (exact McNemar, Holm within the policy).
    pub themes: VarianceReport,
    /// 95% interval of the range across themes (paired episode-cluster bootstrap).
    pub range_ci95: [f64; 2],
    /// What a question cost on average, over every theme.
    pub cost: CostSummary,
}

/// The whole study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyReport {
    /// The baseline theme.
    pub baseline: String,
    /// The themes, the baseline first.
    pub themes: Vec<String>,
    /// Every policy, in plan order.
    pub policies: Vec<PolicyReport>,
    /// Per theme, every pair of policies.
    pub pairs: Vec<ThemePairs>,
    /// The questions asked (of the baseline's reading), in input order.
    pub items: Vec<StudyItem>,
    /// Groups of replicate cells ([`with_replicates`](Self::with_replicates)), in the
    /// order given.
    pub replicates: Vec<ReplicateReport>,
}

impl StudyReport {
    /// The report of `policies` (names, in plan order) over `records`, laid out as
    /// `layout` says; the bootstraps draw from `seed`. Records of other policies or
    /// questions are left out; of a record repeated, one counts. The order of `records`
    /// does not matter.
    ///
    /// # Errors
    /// [`LabError::IncompleteStudy`] when a question of a policy and theme has no
    /// record.
    pub fn from_records(
        layout: &StudyLayout,
        policies: &[String],
        records: &[StudyRecord],
        seed: u64,
    ) -> Result<Self, LabError> {
        let by_key: HashMap<(&str, &str, &str), &StudyRecord> =
            records.iter().map(|r| (r.key(), r)).collect();
        let laid: Vec<_> = policies
            .iter()
            .map(|p| layout.policy_runs(p, &by_key))
            .collect();
        let missing: usize = laid.iter().map(|l| l.missing.len()).sum();
        let first = policies
            .iter()
            .zip(&laid)
            .find_map(|(p, l)| Some((p, l.missing.first()?)));
        if let Some((policy, (theme, item))) = first {
            return Err(LabError::IncompleteStudy {
                missing,
                total: missing + laid.iter().map(|l| l.costs.len()).sum::<usize>(),
                policy: policy.clone(),
                theme: theme.clone(),
                item: item.clone(),
            });
        }
        let runs: Vec<Vec<VariantRun>> = laid.iter().map(|l| l.runs.clone()).collect();
        let baseline = bip_themes::BASELINE.to_string();
        let reports = policies
            .iter()
            .zip(&laid)
            .map(|(name, l)| PolicyReport {
                name: name.clone(),
                themes: VarianceReport::new(&l.runs, &baseline, seed),
                range_ci95: range_ci95(&l.runs, seed),
                cost: CostSummary::of(&l.costs),
            })
            .collect();
        Ok(Self {
            baseline,
            themes: layout.themes.clone(),
            policies: reports,
            pairs: policy_pairs(policies, &runs),
            items: layout.items(),
            replicates: Vec::new(),
        })
    }

    /// Adds a [`ReplicateReport`] for each `(group, cells)`: the cells' accuracy per theme
    /// as mean ± sd. Cell names the report does not hold are passed over, and a group
    /// left with no cell adds nothing.
    pub fn with_replicates(mut self, groups: &[(String, Vec<String>)]) -> Self {
        for (group, cells) in groups {
            let members: Vec<&PolicyReport> = cells
                .iter()
                .filter_map(|c| self.policies.iter().find(|p| &p.name == c))
                .collect();
            if !members.is_empty() {
                let report = ReplicateReport::of(group, &members);
                self.replicates.push(report);
            }
        }
        self
    }
}
