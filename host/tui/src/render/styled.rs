//! A plugin's styled line (a widget's, a header's, a component's, a renderer's): the SGR
//! sequences the host let through (colours and text attributes) become ratatui styles, parsed by
//! `ansi-to-tui`, and the line is cut to the width it is drawn in. Nothing in it reaches the
//! terminal as a control: the host neutralised every other sequence, and whatever the parser
//! leaves in a span is made visible again here.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `text` as one line in `base` (patched by its own styles), at most `width` columns wide; a
/// line cut short ends with `…`.
pub fn styled_line(text: &str, width: usize, base: Style) -> Line<'static> {
    use ansi_to_tui::IntoText as _;
    let spans: Vec<Span<'static>> = match text.as_bytes().into_text() {
        Ok(parsed) => parsed
            .lines
            .into_iter()
            .flat_map(|line| line.spans)
            .map(|span| {
                let content = tack_core::text::neutralize_controls(&span.content).into_owned();
                Span::styled(content, base.patch(span.style))
            })
            .collect(),
        // Not a line the host would pass on; shown as text, never obeyed.
        Err(_) => vec![Span::styled(
            tack_core::text::neutralize_controls(text).into_owned(),
            base,
        )],
    };
    Line::from(cut(spans, width))
}

/// `spans` cut to `width` columns, the last one kept ending with `…` when something was cut.
fn cut(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    let total: usize = spans.iter().map(|s| s.width()).sum();
    if total <= width {
        return spans;
    }
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut out = Vec::new();
    for span in spans {
        let mut kept = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > room {
                if !kept.is_empty() {
                    out.push(Span::styled(kept, span.style));
                }
                out.push(Span::styled("…", span.style));
                return out;
            }
            used += w;
            kept.push(c);
        }
        out.push(Span::styled(kept, span.style));
    }
    out
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Modifier};

    use super::*;

    #[test]
    fn colours_become_styles_and_nothing_else_is_obeyed() {
        let line = styled_line(
            "\u{1b}[32m✓ ok\u{1b}[0m \u{1b}[1mbold\u{1b}[22m plain",
            80,
            Style::default(),
        );
        let spans: Vec<(&str, Style)> = line
            .spans
            .iter()
            .map(|s| (s.content.as_ref(), s.style))
            .collect();
        assert_eq!(spans[0].0, "✓ ok");
        assert_eq!(spans[0].1.fg, Some(Color::Green));
        assert!(spans
            .iter()
            .any(|(t, s)| *t == "bold" && s.add_modifier.contains(Modifier::BOLD)));
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "✓ ok bold plain");

        // A control the host would have neutralised is shown, should one get through.
        let line = styled_line("bell\u{7} here", 80, Style::default());
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(!text.contains('\u{7}'), "{text:?}");
    }

    #[test]
    fn a_long_line_is_cut_to_the_width_by_its_visible_text() {
        let line = styled_line("\u{1b}[31mabcdef\u{1b}[0mghij", 6, Style::default());
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "abcde…");
        assert_eq!(line.width(), 6);
    }
}
