//! The themes × question types heat map of `bip variance --plot`.

use std::fmt::Write;

use crate::variance::VarianceReport;

use super::svg::{self, escape};

/// A heat map of accuracy: one row per theme, one column per question type and one for
/// all questions; each cell is shaded from red (0%) through yellow to green (100%) and
/// labelled with its accuracy.
pub fn variance_svg(report: &VarianceReport) -> String {
    const CELL_W: f64 = 64.0;
    const CELL_H: f64 = 30.0;
    const LEFT: f64 = 110.0;
    const TOP: f64 = 60.0;
    let grid = report.type_grid();
    let types = &grid.types;
    let columns = types.len() + 1;
    let width = LEFT + CELL_W * columns as f64 + 20.0;
    let height = TOP + CELL_H * report.variants.len() as f64 + 40.0;
    let title = format!(
        "Accuracy by theme and question type (range {:.1} points)",
        100.0 * report.range
    );
    let mut svg = svg::open(width, height, 24.0, &title);
    let header = types
        .iter()
        .map(|t| t.as_str())
        .chain(std::iter::once("all"));
    for (c, label) in header.enumerate() {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LEFT + CELL_W * (c as f64 + 0.5),
            TOP - 8.0,
            escape(label)
        );
    }
    for (r, (v, by_type)) in report.variants.iter().zip(grid.accuracy.rows()).enumerate() {
        let y = TOP + CELL_H * r as f64;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            y + CELL_H / 2.0 + 4.0,
            escape(&v.name)
        );
        let cells = by_type
            .iter()
            .copied()
            .chain(std::iter::once(Some(v.overall.accuracy)));
        for (c, accuracy) in cells.enumerate() {
            let x = LEFT + CELL_W * c as f64;
            let (fill, label) = match accuracy {
                Some(a) => (shade(a), format!("{:.1}", 100.0 * a)),
                None => ("#eeeeee".to_string(), "–".to_string()),
            };
            let _ = writeln!(
                svg,
                r#"<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{fill}" stroke="white"/><text x="{}" y="{}" text-anchor="middle">{label}</text>"#,
                x + CELL_W / 2.0,
                y + CELL_H / 2.0 + 4.0
            );
        }
    }
    svg::close(svg)
}

/// Red (0) → yellow (0.5) → green (1), as `#rrggbb`.
fn shade(accuracy: f64) -> String {
    let a = accuracy.clamp(0.0, 1.0);
    let (r, g) = if a < 0.5 {
        (1.0, 2.0 * a)
    } else {
        (2.0 * (1.0 - a), 1.0)
    };
    let channel = |v: f64| (155.0 + 100.0 * v).round() as u8;
    format!("#{:02x}{:02x}{:02x}", channel(r), channel(g), 155)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shades_run_from_red_to_green() {
        assert_eq!(shade(0.0), "#ff9b9b");
        assert_eq!(shade(0.5), "#ffff9b");
        assert_eq!(shade(1.0), "#9bff9b");
    }
}
