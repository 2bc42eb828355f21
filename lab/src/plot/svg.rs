//! The SVG document every plot is drawn in: the root element, a white background and a
//! centred title.

use std::fmt::Write;

/// Opens a `width` × `height` document (pixels) with a white background and `title`
/// centred at height `title_y`; the caller draws on and ends it with [`close`].
pub(super) fn open(width: f64, height: f64, title_y: f64, title: &str) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{title_y}" text-anchor="middle" font-size="14">{}</text>"#,
        width / 2.0,
        escape(title)
    );
    svg
}

/// Ends a document begun with [`open`].
pub(super) fn close(mut svg: String) -> String {
    svg.push_str("</svg>\n");
    svg
}

/// `text` safe inside an element.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_one_svg_element_with_an_escaped_title() {
        let svg = close(open(100.0, 50.0, 20.0, "a < b"));
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50""#)
        );
        assert!(svg.contains(
            r#"<text x="50" y="20" text-anchor="middle" font-size="14">a &lt; b</text>"#
        ));
        assert!(svg.ends_with("</svg>\n"));
    }
}
