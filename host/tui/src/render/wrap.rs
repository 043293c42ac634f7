//! Word wrapping of styled lines. Breaks at the last space that fits, or inside a word longer
//! than the width.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Wraps `line` to `width` columns; continuation lines start with `indent` (a hanging indent for
/// list items and card bodies). Never returns an empty vector.
pub fn wrap_line(
    line: Line<'static>,
    width: usize,
    indent: &[Span<'static>],
) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent_width: usize = indent.iter().map(|s| s.width()).sum();
    let line_style = line.style;
    let cells: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|span| span.content.chars().map(move |c| (c, span.style)))
        .collect();
    let total: usize = cells.iter().map(|(c, _)| char_width(*c)).sum();
    if total <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let mut current: Vec<(char, Style)> = Vec::new();
    let mut current_width = 0;
    let mut first = true;
    // Continuation lines have less room when indented, but always at least one column.
    let room = |first: bool| {
        if first {
            width
        } else {
            width.saturating_sub(indent_width).max(1)
        }
    };
    for (c, style) in cells {
        let w = char_width(c);
        if current_width + w > room(first) && !current.is_empty() {
            if c == ' ' {
                // The overflowing space itself is the break.
                out.push(build(
                    std::mem::take(&mut current),
                    first,
                    indent,
                    line_style,
                ));
                first = false;
                current_width = 0;
                continue;
            }
            let break_at = current.iter().rposition(|(ch, _)| *ch == ' ');
            let rest = match break_at {
                Some(i) if i > 0 => {
                    let rest = current.split_off(i + 1);
                    // The space that broke the line is dropped.
                    current.pop();
                    rest
                }
                _ => Vec::new(),
            };
            out.push(build(
                std::mem::take(&mut current),
                first,
                indent,
                line_style,
            ));
            first = false;
            current = rest;
            current_width = current.iter().map(|(ch, _)| char_width(*ch)).sum();
        }
        current.push((c, style));
        current_width += w;
    }
    if !current.is_empty() || out.is_empty() {
        out.push(build(current, first, indent, line_style));
    }
    out
}

fn char_width(c: char) -> usize {
    if c == '\t' {
        4
    } else {
        c.width().unwrap_or(0)
    }
}

fn build(
    cells: Vec<(char, Style)>,
    first: bool,
    indent: &[Span<'static>],
    style: Style,
) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = if first { Vec::new() } else { indent.to_vec() };
    let mut text = String::new();
    let mut text_style: Option<Style> = None;
    for (c, s) in cells {
        if text_style != Some(s) {
            if let Some(prev) = text_style {
                spans.push(Span::styled(std::mem::take(&mut text), prev));
            }
            text_style = Some(s);
        }
        text.push(if c == '\t' { ' ' } else { c });
    }
    if let Some(prev) = text_style {
        spans.push(Span::styled(text, prev));
    }
    Line::from(spans).style(style)
}

/// Cuts `text` to at most `width` columns, ending with `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for c in text.chars() {
        let w = char_width(c);
        if used + w > width.saturating_sub(1) {
            let rest_width: usize = text.chars().map(char_width).sum();
            if rest_width <= width {
                return text.to_string();
            }
            out.push('…');
            return out;
        }
        used += w;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_spaces_and_inside_long_words() {
        let lines = wrap_line(Line::from("the quick brown fox"), 10, &[]);
        assert_eq!(texts(&lines), ["the quick", "brown fox"]);
        let lines = wrap_line(Line::from("abcdefghijkl"), 5, &[]);
        assert_eq!(texts(&lines), ["abcde", "fghij", "kl"]);
        let lines = wrap_line(Line::from("- one two three"), 8, &[Span::raw("  ")]);
        assert_eq!(texts(&lines), ["- one", "  two", "  three"]);
    }

    #[test]
    fn truncates_with_an_ellipsis() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello", 0), "…");
    }
}
