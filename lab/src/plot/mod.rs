//! Plots as self-contained SVG text.

use std::fmt::Write;

use crate::evaluation::Calibration;

mod heatmap;
mod svg;

pub use heatmap::variance_svg;

/// A reliability diagram: each calibration bin's accuracy against its mean confidence,
/// over the diagonal of perfect calibration, with the ECE in the title.
pub fn reliability_svg(calibration: &Calibration) -> String {
    const SIZE: f64 = 400.0;
    const MARGIN: f64 = 50.0;
    let x = |v: f64| MARGIN + v * SIZE;
    let y = |v: f64| MARGIN + (1.0 - v) * SIZE;
    let side = SIZE + 2.0 * MARGIN;
    let title = format!(
        "Reliability (ECE {:.3}, Brier {:.3})",
        calibration.ece, calibration.brier
    );
    let mut svg = svg::open(side, side, 30.0, &title);
    let _ = writeln!(
        svg,
        r#"<rect x="{MARGIN}" y="{MARGIN}" width="{SIZE}" height="{SIZE}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="gray" stroke-dasharray="4 4"/>"#,
        x(0.0),
        y(0.0),
        x(1.0),
        y(1.0)
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{tick}</text><text x="{}" y="{}" text-anchor="end">{tick}</text>"#,
            x(tick),
            y(0.0) + 18.0,
            x(0.0) - 6.0,
            y(tick) + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">confidence of the chosen option</text>"#,
        side / 2.0,
        side - 10.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="14" y="{}" text-anchor="middle" transform="rotate(-90 14 {})">accuracy</text>"#,
        side / 2.0,
        side / 2.0
    );
    let points: Vec<String> = calibration
        .bins
        .iter()
        .map(|b| format!("{:.1},{:.1}", x(b.confidence), y(b.accuracy)))
        .collect();
    let _ = writeln!(
        svg,
        r#"<polyline points="{}" fill="none" stroke="steelblue" stroke-width="2"/>"#,
        points.join(" ")
    );
    for b in &calibration.bins {
        let _ = writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="steelblue"><title>n={} confidence={:.3} accuracy={:.3}</title></circle>"#,
            x(b.confidence),
            y(b.accuracy),
            b.n,
            b.confidence,
            b.accuracy
        );
    }
    svg::close(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::CalibrationBin;

    #[test]
    fn diagram_has_one_point_per_bin() {
        let calibration = Calibration {
            ece: 0.05,
            brier: 0.1,
            mean_log_likelihood: -0.2,
            bins: vec![
                CalibrationBin {
                    n: 5,
                    confidence: 0.6,
                    accuracy: 0.5,
                },
                CalibrationBin {
                    n: 5,
                    confidence: 0.9,
                    accuracy: 1.0,
                },
            ],
        };
        let svg = reliability_svg(&calibration);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("ECE 0.050"));
    }
}
