//! Human-readable tables for stories: `bip eval`'s report and `bip infer`'s answers.

use std::fmt::Write;

use bip::episodes::Story;
use bip::lab::nested::{GroupAccuracy, StoryEvaluation};
use bip::lab::report::Report;

use crate::cli::render::lines::{
    accuracy_header, option_line, question_header, summary_line, verdict_line,
};

fn row(out: &mut String, name: &str, width: usize, a: &GroupAccuracy) {
    let _ = writeln!(
        out,
        "{name:<width$} {:>6} {:>8} {:>8.1}%  (95% CI {:.1}–{:.1}%)",
        a.n,
        a.correct,
        a.accuracy * 100.0,
        a.ci95[0] * 100.0,
        a.ci95[1] * 100.0
    );
}

/// The report of `bip eval` on stories: every facet, then the whole.
pub fn evaluation(e: &StoryEvaluation) -> String {
    let mut out = String::new();
    let rows: Vec<(String, &GroupAccuracy)> = e
        .by
        .iter()
        .flat_map(|(facet, values)| values.iter().map(move |(v, a)| (format!("{facet} {v}"), a)))
        .collect();
    let width = rows
        .iter()
        .map(|(name, _)| name.chars().count())
        .max()
        .unwrap_or(0)
        .max(14);
    accuracy_header(&mut out, "group", width);
    for (name, a) in &rows {
        row(&mut out, name, width, a);
    }
    let o = &e.overall;
    let all = GroupAccuracy {
        n: o.n,
        correct: o.correct,
        accuracy: o.accuracy,
        ci95: o.ci95,
    };
    row(&mut out, "all", width, &all);
    let _ = writeln!(
        out,
        "unanswered (ties) {}, position-balanced {:.1}%, trust {:.3}",
        o.ties,
        o.position_balanced_accuracy * 100.0,
        e.trust
    );
    if let Some(unreadable) = o.unreadable {
        let _ = writeln!(out, "unreadable questions: {unreadable}");
    }
    out
}

/// The answers of `bip infer` on stories: per question, the options by probability.
pub fn report(stories: &[Story], report: &Report) -> String {
    let mut out = String::new();
    for (story, e) in stories.iter().zip(&report.episodes) {
        let source = e.source.as_deref().unwrap_or("-");
        let _ = writeln!(out, "{} ({source}), nested beliefs", e.id);
        for (question, q) in story.questions().iter().zip(&e.questions) {
            question_header(&mut out, question.text.as_deref(), q, "events");
            let mut ranked: Vec<(usize, &f64)> = q.posterior.values().enumerate().collect();
            ranked.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(&b.0)));
            for (i, p) in ranked.into_iter().filter(|(_, p)| **p > 0.0005).take(5) {
                let letter = bip::episodes::option_letter(i);
                let text = question.options[i]
                    .text
                    .clone()
                    .unwrap_or_else(|| format!("option {letter}"));
                option_line(&mut out, q, &letter, *p, &text);
            }
            verdict_line(&mut out, q);
        }
    }
    summary_line(&mut out, report);
    out
}
