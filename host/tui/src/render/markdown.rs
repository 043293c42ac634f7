//! Markdown (CommonMark with strikethrough and task lists) to styled, wrapped lines: headings,
//! emphasis, inline code, links, lists with hanging indents, block quotes, rules, and fenced code
//! blocks through the highlighter.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::highlight;
use super::wrap::wrap_line;
use crate::theme::Theme;

/// Renders `text` to lines at most `width` columns wide.
pub fn render(text: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut b = Builder {
        theme,
        width: width.max(4),
        out: Vec::new(),
        spans: Vec::new(),
        styles: Vec::new(),
        lists: Vec::new(),
        bullet: None,
        quote: 0,
        code: None,
    };
    for event in Parser::new_ext(text, options) {
        b.event(event);
    }
    b.flush();
    while b.out.last().is_some_and(|l| l.width() == 0) {
        b.out.pop();
    }
    b.out
}

struct Builder<'t> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// Open lists: the next number of an ordered one, `None` for bullets.
    lists: Vec<Option<u64>>,
    /// The marker of a list item whose first line is not out yet.
    bullet: Option<String>,
    quote: usize,
    /// Inside a fenced or indented code block: its language and text so far.
    code: Option<(String, String)>,
}

impl Builder<'_> {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::new(), |acc, s| acc.patch(*s))
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if let Some((_, code)) = &mut self.code {
                    code.push_str(&text);
                    return;
                }
                let style = self.style();
                let mut parts = text.split('\n').peekable();
                while let Some(part) = parts.next() {
                    if !part.is_empty() {
                        self.spans.push(Span::styled(part.to_string(), style));
                    }
                    if parts.peek().is_some() {
                        self.flush();
                    }
                }
            }
            Event::Code(code) => {
                let style = self.style().patch(self.theme.code());
                self.spans.push(Span::styled(code.to_string(), style));
            }
            Event::SoftBreak => self.spans.push(Span::raw(" ")),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                let rule = "─".repeat(self.width.min(40));
                self.out
                    .push(Line::from(Span::styled(rule, self.theme.dim())));
                self.blank();
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let style = self.style();
                self.spans
                    .push(Span::styled(html.trim_end().to_string(), style));
            }
            Event::TaskListMarker(done) => {
                self.spans
                    .push(Span::raw(if done { "[x] " } else { "[ ] " }));
            }
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                let level = match level {
                    HeadingLevel::H1 => 1,
                    HeadingLevel::H2 => 2,
                    _ => 3,
                };
                self.styles.push(self.theme.heading(level));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote += 1;
                self.styles
                    .push(self.theme.dim().add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split([',', ' '])
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.flush();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let marker = format!("{n}. ");
                        *n += 1;
                        marker
                    }
                    _ => "• ".to_string(),
                };
                self.bullet = Some(marker);
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { .. } => self.styles.push(self.theme.link()),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.styles.pop();
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.styles.pop();
                self.blank();
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.code_block(&lang, &code);
                }
                self.blank();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.styles.pop();
            }
            _ => {}
        }
    }

    /// The prefix of the next line and of its continuation lines.
    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        if self.quote > 0 {
            let bar = Span::styled("│ ".repeat(self.quote), self.theme.dim());
            first.push(bar.clone());
            rest.push(bar);
        }
        if !self.lists.is_empty() {
            let depth = self.lists.len();
            let indent = "  ".repeat(depth - 1);
            // Continuation lines line up with the text after the marker.
            let marker_width = if matches!(self.lists.last(), Some(Some(_))) {
                3
            } else {
                2
            };
            let hang = " ".repeat(marker_width);
            match self.bullet.take() {
                Some(marker) => {
                    first.push(Span::raw(indent.clone()));
                    first.push(Span::styled(marker, self.theme.accent()));
                }
                None => first.push(Span::raw(format!("{indent}{hang}"))),
            }
            rest.push(Span::raw(format!("{indent}{hang}")));
        }
        (first, rest)
    }

    fn flush(&mut self) {
        if self.spans.is_empty() && self.bullet.is_none() {
            return;
        }
        let (mut first, rest) = self.prefixes();
        first.append(&mut self.spans);
        self.out
            .extend(wrap_line(Line::from(first), self.width, &rest));
    }

    fn code_block(&mut self, lang: &str, code: &str) {
        let (_, mut rest) = self.prefixes();
        rest.push(Span::styled("│ ", self.theme.dim()));
        for line in highlight(code.trim_end_matches('\n'), lang, self.theme) {
            let mut spans = rest.clone();
            spans.extend(line.spans);
            self.out
                .extend(wrap_line(Line::from(spans), self.width, &rest));
        }
    }

    /// One empty line between blocks, never two.
    fn blank(&mut self) {
        if self.out.last().is_some_and(|l| l.width() > 0) {
            self.out.push(Line::default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(md: &str, width: usize) -> Vec<String> {
        render(md, width, &Theme::plain())
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn headings_lists_and_code() {
        let out = text(
            "# Title\n\nSome *text* and `code`.\n\n- one\n- two is longer than the width\n\n```rust\nfn main() {}\n```\n",
            20,
        );
        assert_eq!(
            out,
            [
                "Title",
                "",
                "Some text and code.",
                "",
                "• one",
                "• two is longer than",
                "  the width",
                "",
                "│ fn main() {}",
            ]
        );
    }

    #[test]
    fn ordered_and_nested_lists() {
        let out = text("1. a\n2. b\n   - c\n", 40);
        assert_eq!(out, ["1. a", "2. b", "  • c"]);
    }
}
