//! Lines that the renderers of episodes and of stories both print.

use std::fmt::Write;

use bip::lab::report::{QuestionReport, Report};

/// A question's id, label, when it is asked (after so many `steps`) and its text.
pub(super) fn question_header(
    out: &mut String,
    text: Option<&str>,
    q: &QuestionReport,
    steps: &str,
) {
    let label = q
        .label
        .as_ref()
        .map(|l| format!(" [{l}]"))
        .unwrap_or_default();
    let _ = writeln!(out, "  {}{label} after {} {steps}", q.id, q.at);
    if let Some(text) = text {
        let _ = writeln!(out, "    {text}");
    }
}

/// One option with its probability, marked when it is the answer.
pub(super) fn option_line(out: &mut String, q: &QuestionReport, letter: &str, p: f64, text: &str) {
    let chosen = if q.answer.as_deref() == Some(letter) {
        "→"
    } else {
        " "
    };
    let _ = writeln!(out, "    {chosen} {letter}  {p:.3}  {text}");
}

/// The answer against the expected one, and the margin.
pub(super) fn verdict_line(out: &mut String, q: &QuestionReport) {
    let verdict = match (&q.answer, &q.expected, q.correct) {
        (None, _, _) => "tie: no answer".to_string(),
        (Some(a), Some(x), Some(true)) => format!("answer {a}, expected {x}: correct"),
        (Some(a), Some(x), _) => format!("answer {a}, expected {x}: WRONG"),
        (Some(a), None, _) => format!("answer {a}"),
    };
    let _ = writeln!(out, "    {verdict}, margin {:.3}", q.margin);
}

/// How many questions a report has, with expected answers, correct and tied.
pub(super) fn summary_line(out: &mut String, report: &Report) {
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} questions, {} with expected answers, {} correct, {} ties",
        s.questions, s.with_expected, s.correct, s.ties
    );
}

/// The header of an accuracy table whose first column, `first`, is `width` wide.
pub(super) fn accuracy_header(out: &mut String, first: &str, width: usize) {
    let _ = writeln!(
        out,
        "{first:<width$} {:>6} {:>8} {:>9}",
        "n", "correct", "accuracy"
    );
}
