//! The risk–coverage curve: how abstaining below each margin trades answered questions
//! for accuracy, and its CSV form (`bip eval --risk-coverage`).

use std::fmt::Write;

use super::{Abstention, Outcome};

/// The columns of [`risk_coverage_csv`], in order.
pub const RISK_COVERAGE_COLUMNS: [&str; 5] = [
    "margin",
    "coverage",
    "selective_accuracy",
    "refusal_recall",
    "over_refusal",
];

/// Abstention figures at every distinct margin of `outcomes`, by increasing margin: the
/// risk–coverage curve.
pub fn risk_coverage(outcomes: &[Outcome]) -> Vec<Abstention> {
    let mut margins: Vec<f64> = std::iter::once(0.0)
        .chain(outcomes.iter().map(|o| o.answer.margin))
        .chain(std::iter::once(f64::INFINITY))
        .collect();
    margins.sort_by(f64::total_cmp);
    margins.dedup();
    margins
        .into_iter()
        .map(|m| Abstention::new(outcomes, m))
        .collect()
}

/// `curve` as CSV: a header of [`RISK_COVERAGE_COLUMNS`], then one row per point with
/// each number in Rust's shortest round-trip form (`inf` for the last margin).
pub fn risk_coverage_csv(curve: &[Abstention]) -> String {
    let mut csv = RISK_COVERAGE_COLUMNS.join(",");
    csv.push('\n');
    for point in curve {
        let _ = writeln!(
            csv,
            "{},{},{},{},{}",
            point.margin,
            point.coverage,
            point.selective_accuracy,
            point.refusal_recall,
            point.over_refusal
        );
    }
    csv
}
