//! The report of `bip study`: `report.json`, `report.md` (also printed) and one heat map
//! per policy (`heatmap-NAME.svg`) in the output folder, written as one set.

use std::fmt::Write;

use bip::io::OutputSet;
use bip::lab::plot::variance_svg;
use bip::lab::study::{MeanSd, StudyReport};

use crate::cli::output::Output;
use crate::cli::study::plan::Plan;
use crate::cli::variance::render::variance;

/// Writes the report's files into the plan's output folder (`partial-report.*` for a
/// report of some cells) and prints the Markdown.
pub fn write_report(
    report: &StudyReport,
    plan: &Plan,
    partial: bool,
    out: &mut Output,
) -> anyhow::Result<()> {
    let markdown = markdown(report, plan);
    let stem = if partial { "partial-report" } else { "report" };
    let mut set = OutputSet::new();
    let name = format!("{stem}.json");
    let json = set.add(&name, &plan.out.join(&name))?;
    set.put(json, serde_json::to_string_pretty(report)? + "\n");
    let name = format!("{stem}.md");
    let md = set.add(&name, &plan.out.join(&name))?;
    set.put(md, markdown.clone());
    for policy in &report.policies {
        let name = format!("heatmap-{}.svg", policy.name);
        let svg = set.add(&name, &plan.out.join(&name))?;
        set.put(svg, variance_svg(&policy.themes));
    }
    let stdout = set.add_stdout("the report")?;
    set.put(stdout, markdown);
    out.commit(set)?;
    Ok(())
}

/// The whole report as Markdown.
fn markdown(report: &StudyReport, plan: &Plan) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Study {}\n", plan.path.display());
    let _ = writeln!(
        md,
        "{} questions of {} in {} themes; accuracy with episode-cluster bootstrap 95% CI.\n",
        report.items.len(),
        plan.questions.display(),
        report.themes.len()
    );
    accuracy_table(&mut md, report);
    replicates_table(&mut md, report);
    for policy in &report.policies {
        let Some(cell) = plan.cells.iter().find(|c| c.name == policy.name) else {
            continue;
        };
        let flags = if cell.args.is_empty() {
            "the planner's defaults".to_string()
        } else {
            format!("`{}`", cell.args.join(" "))
        };
        let _ = writeln!(md, "\n## {} ({flags})\n", policy.name);
        let _ = writeln!(md, "```text\n{}```", variance(&policy.themes));
    }
    pairs_table(&mut md, report);
    cost_table(&mut md, report);
    let _ = writeln!(md, "\n## Questions\n");
    for item in &report.items {
        let _ = writeln!(md, "- line {}: {} ({})", item.line, item.item, item.kind);
    }
    md
}

/// Accuracy by policy (rows) and theme (columns), then the range and sd across themes.
fn accuracy_table(md: &mut String, report: &StudyReport) {
    let _ = write!(md, "| policy |");
    for theme in &report.themes {
        let _ = write!(md, " {theme} |");
    }
    let _ = writeln!(md, " range (95% CI) | sd |");
    let _ = writeln!(md, "|---|{}---|---|", "---|".repeat(report.themes.len()));
    for policy in &report.policies {
        let _ = write!(md, "| {} |", policy.name);
        for v in &policy.themes.variants {
            let o = &v.overall;
            let _ = write!(
                md,
                " {:.1}% ({:.1}–{:.1}) |",
                100.0 * o.accuracy,
                100.0 * o.ci95[0],
                100.0 * o.ci95[1]
            );
        }
        let (t, ci) = (&policy.themes, policy.range_ci95);
        let _ = writeln!(
            md,
            " {:.1} ({:.1}–{:.1}) | {:.1} |",
            100.0 * t.range,
            100.0 * ci[0],
            100.0 * ci[1],
            100.0 * t.sd
        );
    }
}

/// Each group of replicate cells: accuracy per theme as mean ± sd across its cells.
fn replicates_table(md: &mut String, report: &StudyReport) {
    if report.replicates.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\nReplicates: mean ± sample sd across each group's cells.\n"
    );
    let _ = write!(md, "| group (cells) |");
    for theme in &report.themes {
        let _ = write!(md, " {theme} |");
    }
    let _ = writeln!(md, " range of means | range, mean ± sd |");
    let _ = writeln!(md, "|---|{}---|---|", "---|".repeat(report.themes.len()));
    let pct = |m: &MeanSd| format!("{:.1} ± {:.1}", 100.0 * m.mean, 100.0 * m.sd);
    for group in &report.replicates {
        let _ = write!(md, "| {} ({}) |", group.name, group.cells.join(", "));
        for theme in &group.themes {
            let _ = write!(md, " {}% |", pct(&theme.accuracy));
        }
        let _ = writeln!(
            md,
            " {:.1} | {} |",
            100.0 * group.range_of_means,
            pct(&group.range)
        );
    }
}

/// Every pair of policies within each theme: exact McNemar, Holm within the theme.
fn pairs_table(md: &mut String, report: &StudyReport) {
    if report.pairs.iter().all(|t| t.pairs.is_empty()) {
        return;
    }
    let _ = writeln!(md, "\n## Policies against each other\n");
    let _ = writeln!(md, "b/c: right under the first only / the second only; exact McNemar, Holm-adjusted within each theme.\n");
    let _ = writeln!(md, "| theme | first | second | paired | b/c | p | Holm |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for theme in &report.pairs {
        for p in &theme.pairs {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {}/{} | {:.3} | {:.3} |",
                theme.theme,
                p.first,
                p.second,
                p.paired,
                p.first_only,
                p.second_only,
                p.p,
                p.p_holm
            );
        }
    }
}

/// What a question cost under each policy.
fn cost_table(md: &mut String, report: &StudyReport) {
    let _ = writeln!(md, "\n## Cost per question\n");
    let _ = writeln!(
        md,
        "| policy | questions | seconds | hypotheses | LM tokens |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|");
    for p in &report.policies {
        let c = &p.cost;
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {:.1} | {:.0} |",
            p.name,
            c.questions,
            c.seconds_per_question,
            c.hypotheses_per_question,
            c.lm_tokens_per_question
        );
    }
}
