use super::*;

/// A two-option outcome whose answer has probability `p_a` on option a.
fn outcome(episode: &str, label: &str, expected: Expected, p_a: f64) -> Outcome {
    let posterior = vec![p_a, 1.0 - p_a];
    let margin = (2.0 * p_a - 1.0).abs();
    Outcome {
        episode: episode.to_string(),
        label: Some(QuestionLabel::parse(label)),
        expected,
        answer: Answer {
            probabilities: posterior.iter().map(|p| Some(*p)).collect(),
            choice: (margin > 1e-9).then_some(usize::from(p_a < 0.5)),
            posterior,
            margin,
        },
    }
}

const A: Expected = Expected::Option(0);
const B: Expected = Expected::Option(1);

#[test]
fn accuracy_by_type_and_ties() {
    let outcomes = [
        outcome("e1", "1.1", A, 0.9),
        outcome("e2", "1.1", B, 0.8),
        outcome("e3", "2.2", B, 0.5),
        outcome("e4", "2.2", A, 0.7),
    ];
    let e = Evaluation::new(&outcomes, 0.0, 0);
    assert_eq!((e.n, e.correct, e.ties), (4, 2, 1));
    assert_eq!(e.by_type["1.1"].correct, 1);
    assert_eq!(e.by_type["2.2"].n, 2);
    assert!(e.abstention.is_none());
}

#[test]
fn always_answering_a_gets_half_balanced_accuracy() {
    let mut outcomes = Vec::new();
    for i in 0..90 {
        outcomes.push(outcome(&format!("a{i}"), "1.1", A, 0.9));
    }
    for i in 0..10 {
        outcomes.push(outcome(&format!("b{i}"), "1.1", B, 0.9));
    }
    let e = Evaluation::new(&outcomes, 0.0, 0);
    assert!((e.accuracy - 0.9).abs() < 1e-12);
    assert!((e.position_balanced_accuracy - 0.5).abs() < 1e-12);
}

#[test]
fn bootstrap_interval_brackets_accuracy_and_is_reproducible() {
    let outcomes: Vec<Outcome> = (0..200)
        .map(|i| {
            outcome(
                &format!("e{}", i / 2),
                "1.1",
                A,
                if i % 4 == 0 { 0.2 } else { 0.8 },
            )
        })
        .collect();
    let e = Evaluation::new(&outcomes, 0.0, 7);
    assert!(
        e.ci95[0] < e.accuracy && e.accuracy < e.ci95[1],
        "{:?}",
        e.ci95
    );
    assert!(e.ci95[1] - e.ci95[0] < 0.2);
    assert_eq!(e.ci95, Evaluation::new(&outcomes, 0.0, 7).ci95);
}

#[test]
fn abstention_counts_refusals_and_over_refusals() {
    let outcomes = [
        outcome("u1", "2.1", Expected::Unknowable, 0.5),
        outcome("u2", "2.1", Expected::Unknowable, 0.6),
        outcome("k1", "2.1", A, 0.95),
        outcome("k2", "2.1", A, 0.52),
    ];
    let e = Evaluation::new(&outcomes, 0.1, 0);
    let a = e.abstention.expect("unknowables present");
    assert_eq!(a.unknowable, 2);
    assert!(
        (a.refusal_recall - 0.5).abs() < 1e-12,
        "only the exact tie is refused"
    );
    assert!(
        (a.over_refusal - 0.5).abs() < 1e-12,
        "k2's margin 0.04 is below 0.1"
    );
    assert!((a.coverage - 0.5).abs() < 1e-12);
    assert!((a.selective_accuracy - 1.0).abs() < 1e-12);
    assert_eq!(e.n, 2, "accuracy counts answerable questions only");
    let curve = risk_coverage(&outcomes);
    assert_eq!(curve.first().map(|c| c.margin), Some(0.0));
    assert_eq!(curve.last().map(|c| c.coverage), Some(0.0));
    assert!(curve.windows(2).all(|w| w[0].coverage >= w[1].coverage));
}

#[test]
fn calibration_of_known_inputs() {
    // Ten questions answered with probability 0.8, eight right: perfectly calibrated (the
    // equal confidences share one bin, whatever their order).
    let outcomes: Vec<Outcome> = (0..10)
        .map(|i| outcome(&format!("e{i}"), "1.1", if i < 8 { A } else { B }, 0.8))
        .collect();
    let c = Calibration::new(&outcomes);
    assert!(c.ece.abs() < 1e-12, "{}", c.ece);
    // Brier: right ones 2·0.2², wrong ones 2·0.8².
    let brier = (8.0 * 2.0 * 0.04 + 2.0 * 2.0 * 0.64) / 10.0;
    assert!((c.brier - brier).abs() < 1e-12);
    // All at 0.9 but only half right: ECE 0.4.
    let overconfident: Vec<Outcome> = (0..10)
        .map(|i| outcome(&format!("e{i}"), "1.1", if i % 2 == 0 { A } else { B }, 0.9))
        .collect();
    assert!((Calibration::new(&overconfident).ece - 0.4).abs() < 1e-12);
}

#[test]
fn equal_mass_bins_hold_about_a_tenth_each() {
    let scored: Vec<(f64, bool)> = (0..100)
        .map(|i| (f64::from(i) / 100.0, i % 2 == 0))
        .collect();
    let bins = equal_mass_bins(&scored);
    assert_eq!(bins.len(), CALIBRATION_BINS);
    assert!(bins.iter().all(|b| b.len() == 10));
}
