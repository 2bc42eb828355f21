//! The report of `bip variance` and `bip variance merge`: the plain-text table or JSON
//! on standard output, and the `--plot`, planned before the run and written as a set.

use std::fmt::Write;
use std::path::PathBuf;

use clap::Args;

use bip::io::{OutputSet, Slot};
use bip::lab::plot::variance_svg;
use bip::lab::variance::VarianceReport;

use crate::cli::output::{check_svg, Output};

/// Where the report goes.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Draw accuracy by theme and question type to this SVG file.
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// The outputs of a report, checked before the run: standard output and `--plot`.
pub struct Planned(pub OutputSet, Slot, Option<Slot>);

impl OutputArgs {
    /// Checks `--plot` and takes standard output and the plot into a new set.
    pub fn plan(&self) -> anyhow::Result<Planned> {
        check_svg(self.plot.as_deref())?;
        let mut set = OutputSet::new();
        let report = set.add_stdout("the report")?;
        let plot = self
            .plot
            .as_ref()
            .map(|p| set.add("--plot", p))
            .transpose()?;
        Ok(Planned(set, report, plot))
    }
}

/// Prints the report and plots it, with the other outputs planned.
pub fn report(
    report: &VarianceReport,
    output: &OutputArgs,
    planned: Planned,
    out: &mut Output,
) -> anyhow::Result<()> {
    let Planned(mut set, text, plot) = planned;
    if let Some(plot) = plot {
        set.put(plot, variance_svg(report));
    }
    let rendered = if output.json {
        serde_json::to_string_pretty(report)? + "\n"
    } else {
        crate::cli::variance::render::variance(report)
    };
    set.put(text, rendered);
    out.commit(set)?;
    Ok(())
}

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
