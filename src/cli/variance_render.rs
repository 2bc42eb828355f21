//! The plain-text table of `bip variance`.

use std::collections::BTreeSet;
use std::fmt::Write;

use bip::engine::variance::VarianceReport;

/// One row per theme: accuracy with its interval, position-balanced accuracy, accuracy by
/// type, and the paired test against the baseline; then the spread across themes.
pub fn variance(report: &VarianceReport) -> String {
    let types: BTreeSet<&String> = report
        .variants
        .iter()
        .flat_map(|v| v.by_type.keys())
        .collect();
    let mut out = String::new();
    let _ = write!(
        out,
        "{:<10} {:>5} {:>6} {:>7} {:>15} {:>7}",
        "theme", "n", "unread", "acc", "95% CI", "pos-bal"
    );
    for t in &types {
        let _ = write!(out, " {t:>6}");
    }
    let _ = writeln!(out, " {:>7} {:>8} {:>8}", "b/c", "McNemar", "Holm");
    for v in &report.variants {
        let o = &v.overall;
        let _ = write!(
            out,
            "{:<10} {:>5} {:>6} {:>6.1}% {:>15} {:>6.1}%",
            v.name,
            o.n,
            v.unreadable,
            100.0 * o.accuracy,
            format!("{:.1}–{:.1}%", 100.0 * o.ci95[0], 100.0 * o.ci95[1]),
            100.0 * v.position_balanced_accuracy
        );
        for t in &types {
            match v.by_type.get(*t) {
                Some(a) => {
                    let _ = write!(out, " {:>5.1}%", 100.0 * a.accuracy);
                }
                None => {
                    let _ = write!(out, " {:>6}", "-");
                }
            }
        }
        match &v.versus_baseline {
            Some(p) => {
                let bc = format!("{}/{}", p.baseline_only, p.variant_only);
                let _ = writeln!(out, " {bc:>7} {:>8.3} {:>8.3}", p.p, p.p_holm);
            }
            None => {
                let _ = writeln!(out, " {:>7} {:>8} {:>8}", "base", "-", "-");
            }
        }
    }
    let _ = writeln!(
        out,
        "range across themes {:.1} points; variance {:.6} (sd {:.1} points)",
        100.0 * report.range,
        report.variance,
        100.0 * report.sd
    );
    let _ = writeln!(
        out,
        "b/c: paired items right only under {} / only under the theme; exact McNemar, Holm-adjusted",
        report.baseline
    );
    out
}
