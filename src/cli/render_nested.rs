//! Human-readable tables for stories: `bip eval`'s report and `bip infer`'s answers.

use std::fmt::Write;

use bip::engine::nested::{GroupAccuracy, StoryEvaluation};
use bip::engine::report::Report;
use bip::episodes::Story;

fn row(out: &mut String, name: &str, a: &GroupAccuracy) {
    let _ = writeln!(
        out,
        "{name:<14} {:>6} {:>8} {:>8.1}%  (95% CI {:.1}–{:.1}%)",
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
    let _ = writeln!(
        out,
        "{:<14} {:>6} {:>8} {:>9}",
        "group", "n", "correct", "accuracy"
    );
    for (facet, values) in &e.by {
        for (value, a) in values {
            row(&mut out, &format!("{facet} {value}"), a);
        }
    }
    let o = &e.overall;
    let all = GroupAccuracy {
        n: o.n,
        correct: o.correct,
        accuracy: o.accuracy,
        ci95: o.ci95,
    };
    row(&mut out, "all", &all);
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
            let label = q
                .label
                .as_ref()
                .map(|l| format!(" [{l}]"))
                .unwrap_or_default();
            let _ = writeln!(out, "  {}{label} after {} events", q.id, q.at);
            if let Some(text) = &question.text {
                let _ = writeln!(out, "    {text}");
            }
            let mut ranked: Vec<(usize, &f64)> = q.posterior.values().enumerate().collect();
            ranked.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(&b.0)));
            for (i, p) in ranked.into_iter().filter(|(_, p)| **p > 0.0005).take(5) {
                let letter = bip::episodes::option_letter(i);
                let text = question.options[i]
                    .text
                    .clone()
                    .unwrap_or_else(|| format!("option {letter}"));
                let chosen = if q.answer.as_deref() == Some(letter.as_str()) {
                    "→"
                } else {
                    " "
                };
                let _ = writeln!(out, "    {chosen} {letter}  {p:.3}  {text}");
            }
            let verdict = match (&q.answer, &q.expected, q.correct) {
                (None, _, _) => "tie: no answer".to_string(),
                (Some(a), Some(x), Some(true)) => format!("answer {a}, expected {x}: correct"),
                (Some(a), Some(x), _) => format!("answer {a}, expected {x}: WRONG"),
                (Some(a), None, _) => format!("answer {a}"),
            };
            let _ = writeln!(out, "    {verdict}, margin {:.3}", q.margin);
        }
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} questions, {} with expected answers, {} correct, {} ties",
        s.questions, s.with_expected, s.correct, s.ties
    );
    out
}
