//! The plain-text table of `bip variance`.

use std::fmt::Write;

use bip::engine::variance::VarianceReport;

/// One row per theme: accuracy with its interval, position-balanced accuracy, accuracy by
/// type, and the paired test against the baseline; then the spread across themes.
pub fn variance(report: &VarianceReport) -> String {
    let grid = report.type_grid();
    let mut out = String::new();
    let _ = write!(
        out,
        "{:<10} {:>5} {:>6} {:>7} {:>15} {:>7}",
        "theme", "n", "unread", "acc", "95% CI", "pos-bal"
    );
    for t in &grid.types {
        let _ = write!(out, " {t:>6}");
    }
    let _ = writeln!(out, " {:>7} {:>8} {:>8}", "b/c", "McNemar", "Holm");
    for (v, by_type) in report.variants.iter().zip(grid.accuracy.rows()) {
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
        for accuracy in by_type {
            match accuracy {
                Some(a) => {
                    let _ = write!(out, " {:>5.1}%", 100.0 * a);
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
