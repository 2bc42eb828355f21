//! Human-readable tables for `bip infer`.

pub(super) mod lines;
pub(super) mod nested;

use std::fmt::Write;

use bip::episodes::{option_letter, Episode, Question};
use bip::lab::evaluation::Evaluation;
use bip::lab::report::{QuestionReport, Report};

use crate::cli::render::lines::{
    accuracy_header, option_line, question_header, summary_line, verdict_line,
};

/// Renders the report as text, one block per episode and question.
pub fn report(episodes: &[Episode], report: &Report) -> String {
    let mut out = String::new();
    for (episode, e) in episodes.iter().zip(&report.episodes) {
        let source = e.source.as_deref().unwrap_or("-");
        let _ = writeln!(out, "{} ({source}), policy {}", e.id, e.policy);
        if !e.readings.is_empty() {
            let shares: Vec<String> = e.readings.iter().map(|p| format!("{p:.3}")).collect();
            let _ = writeln!(
                out,
                "  {} readings of where things start, weighed by the actions: {}",
                e.readings.len(),
                shares.join(", ")
            );
        }
        for step in &e.trace {
            let mut goals: Vec<(&String, &f64)> = step.goals.iter().collect();
            goals.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
            let goals: Vec<String> = goals
                .iter()
                .take(4)
                .map(|(g, p)| format!("{g} {p:.3}"))
                .collect();
            let action = step.action.as_deref().unwrap_or("(start)");
            let _ = writeln!(
                out,
                "  step {:>2}  {action:<28} goals: {}",
                step.step,
                goals.join(", ")
            );
            for h in &step.top {
                let _ = writeln!(
                    out,
                    "            {:.3}  wants {}, thought {}, now thinks {}",
                    h.probability,
                    h.goal,
                    h.initially_thought.as_deref().unwrap_or("(no idea)"),
                    h.now_thinks.as_deref().unwrap_or("(undecided)"),
                );
            }
        }
        for (question, q) in episode.questions().iter().zip(&e.questions) {
            question_block(&mut out, question, q);
        }
    }
    summary_line(&mut out, report);
    out
}

/// One question: its options with their probabilities, the answer and the margin.
fn question_block(out: &mut String, question: &Question, q: &QuestionReport) {
    question_header(out, question.text.as_deref(), q, "actions");
    // By position: the posterior's keys sort as text ("option27" before "p").
    for (i, option) in question.options.iter().enumerate() {
        let letter = option_letter(i);
        let p = q.posterior.get(&letter).copied().unwrap_or(f64::NAN);
        let text = option
            .text
            .clone()
            .unwrap_or_else(|| format!("option {}", i + 1));
        option_line(out, q, &letter, p, &text);
    }
    verdict_line(out, q);
}

/// Renders an evaluation as a small table, with abstention and calibration lines when
/// present.
pub fn evaluation(e: &Evaluation) -> String {
    let mut out = String::new();
    accuracy_header(&mut out, "type", 6);
    for (label, a) in &e.by_type {
        let _ = writeln!(
            out,
            "{label:<6} {:>6} {:>8} {:>8.1}%",
            a.n,
            a.correct,
            a.accuracy * 100.0
        );
    }
    let _ = writeln!(
        out,
        "{:<6} {:>6} {:>8} {:>8.1}%  (95% CI {:.1}–{:.1}%, position-balanced {:.1}%, unanswered {})",
        "all",
        e.n,
        e.correct,
        e.accuracy * 100.0,
        e.ci95[0] * 100.0,
        e.ci95[1] * 100.0,
        e.position_balanced_accuracy * 100.0,
        e.ties
    );
    if let Some(unreadable) = e.unreadable {
        let _ = writeln!(out, "unreadable questions: {unreadable}");
    }
    if let Some(ratio) = e.cost.and_then(|c| c.sharing_ratio.map(|r| (c, r))) {
        let (c, ratio) = ratio;
        let _ = writeln!(
            out,
            "per question: {:.2} s, {:.1} hypotheses, {:.0} LM tokens run \
             ({:.0} without sharing: {ratio:.1}× fewer)",
            c.seconds_per_question,
            c.hypotheses_per_question,
            c.lm_tokens_per_question,
            c.lm_tokens_unshared_per_question
        );
    }
    if let Some(a) = &e.abstention {
        let _ = write!(
            out,
            "abstaining below margin {}: coverage {:.1}%, selective accuracy {:.1}%, over-refusal {:.1}%",
            a.margin,
            a.coverage * 100.0,
            a.selective_accuracy * 100.0,
            a.over_refusal * 100.0
        );
        if a.unknowable > 0 {
            let _ = write!(
                out,
                "; {} unknowable: refusal recall {:.1}%",
                a.unknowable,
                a.refusal_recall * 100.0
            );
        }
        let _ = writeln!(out);
    }
    if let Some(c) = &e.calibration {
        let _ = writeln!(
            out,
            "calibration: ECE {:.4}, Brier {:.4}, mean log-likelihood {:.4} over {} bins",
            c.ece,
            c.brier,
            c.mean_log_likelihood,
            c.bins.len()
        );
    }
    out
}
