//! One transcript block to lines: user prompts, assistant text (markdown) with its thinking,
//! tool cards with their arguments, progress, result summary and diff, notices.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use tack_core::event::NoticeLevel;

use super::markdown;
use super::styled::styled_line;
use super::subagent;
use super::wrap::{truncate, wrap_line};
use crate::protocol::PluginDrawing;
use crate::theme::Theme;
use crate::transcript::{AssistantBlock, Block, ToolCard, ToolState};

/// How much of each block to show; toggled from the keyboard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// Tool output in full rather than its first (or last) few lines.
    pub expand_tools: bool,
    /// Thinking in full rather than a one-line mention.
    pub show_thinking: bool,
    /// Images as thumbnails rather than a one-line mention (`show_images` in config.toml).
    pub show_images: bool,
    /// A plugin's words for hidden thinking, in place of "Thinking" (`screen.set-hidden-
    /// thinking-label`); a change lays the transcript out again, so it is not in the cache key.
    pub thinking_label: Option<std::sync::Arc<str>>,
}

impl ViewOptions {
    /// A key for the render cache.
    pub fn bits(&self) -> u8 {
        u8::from(self.expand_tools)
            | (u8::from(self.show_thinking) << 1)
            | (u8::from(self.show_images) << 2)
    }
}

/// Lines of output a collapsed card shows.
const COLLAPSED_OUTPUT: usize = 6;
/// Lines of a diff a collapsed card shows.
const COLLAPSED_DIFF: usize = 14;

/// Columns a tool card's heading and body leave to a plugin's lines (`"  │ "` before them).
pub const TOOL_INDENT: usize = 4;
/// Columns a message's frame leaves to a plugin's lines (`"  "` before them).
pub const MESSAGE_INDENT: usize = 2;

/// The block's lines at `width`, followed by one empty separator line (none for a block with
/// nothing to show). A plugin's `drawing` of its own block takes the place of tack's lines
/// inside tack's frame.
pub fn render_block(
    block: &Block,
    drawing: Option<&PluginDrawing>,
    width: usize,
    theme: &Theme,
    options: &ViewOptions,
) -> Vec<Line<'static>> {
    let width = width.max(8);
    let mut lines = match block {
        Block::User { text, images } => {
            let mut lines = user(text, width, theme);
            for image in images {
                lines.extend(image.lines("  ", theme, options.show_images, width));
            }
            lines
        }
        Block::Assistant(a) => assistant(a, width, theme, options),
        Block::Tool(card) => tool(card, drawing, width, theme, options),
        Block::Custom { label, text, .. } => {
            let mut lines = vec![Line::from(vec![
                Span::styled("◆ ", theme.accent()),
                Span::styled(label.clone(), theme.accent()),
            ])];
            match drawing.and_then(|d| d.body.as_ref()) {
                Some(drawn) => lines.extend(drawn.iter().map(|line| {
                    let mut drawn = styled_line(line, width - MESSAGE_INDENT, theme.text());
                    drawn.spans.insert(0, Span::raw("  "));
                    drawn
                })),
                None => lines.extend(indented(markdown::render(text, width - 2, theme))),
            }
            lines
        }
        Block::Notice { level, text } => {
            let (icon, style) = match level {
                NoticeLevel::Error => ("✗ ", theme.error()),
                NoticeLevel::Warn => ("⚠ ", theme.warn()),
                NoticeLevel::Info | NoticeLevel::Debug => ("ℹ ", theme.dim()),
            };
            text.lines()
                .enumerate()
                .flat_map(|(i, l)| {
                    let lead = if i == 0 { icon } else { "  " };
                    wrap_line(
                        Line::from(vec![
                            Span::styled(lead, style),
                            Span::styled(l.to_string(), style),
                        ]),
                        width,
                        &[Span::raw("  ")],
                    )
                })
                .collect()
        }
        Block::Info(text) => markdown::render(text, width, theme),
    };
    if !lines.is_empty() {
        lines.push(Line::default());
    }
    lines
}

fn indented(lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|mut l| {
            l.spans.insert(0, Span::raw("  "));
            l
        })
        .collect()
}

fn user(text: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lead = if i == 0 { "› " } else { "  " };
        out.extend(wrap_line(
            Line::from(vec![
                Span::styled(lead, theme.user()),
                Span::styled(line.to_string(), theme.user()),
            ]),
            width,
            &[Span::raw("  ")],
        ));
    }
    if out.is_empty() {
        out.push(Line::from(Span::styled("›", theme.user())));
    }
    out
}

fn assistant(
    a: &AssistantBlock,
    width: usize,
    theme: &Theme,
    options: &ViewOptions,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let thinking = a.thinking.trim();
    if !thinking.is_empty() {
        if options.show_thinking {
            out.push(Line::from(Span::styled("∴ Thinking", theme.thinking())));
            for line in thinking.lines() {
                out.extend(wrap_line(
                    Line::from(vec![
                        Span::raw("  "),
                        Span::styled(line.to_string(), theme.thinking()),
                    ]),
                    width,
                    &[Span::raw("  ")],
                ));
            }
        } else {
            let count = thinking.lines().count();
            let noun = if count == 1 { "line" } else { "lines" };
            out.push(Line::from(Span::styled(
                truncate(
                    &format!(
                        "∴ {} ({count} {noun}, Ctrl+T to show)",
                        options.thinking_label.as_deref().unwrap_or("Thinking")
                    ),
                    width,
                ),
                theme.thinking(),
            )));
        }
    }
    if !a.text.trim().is_empty() {
        out.extend(markdown::render(&a.text, width, theme));
    }
    if let Some(error) = &a.error {
        out.extend(wrap_line(
            Line::from(Span::styled(format!("✗ {error}"), theme.error())),
            width,
            &[Span::raw("  ")],
        ));
    }
    if a.aborted {
        out.push(Line::from(Span::styled("⏹ Aborted", theme.warn())));
    }
    out
}

/// The argument a tool's card shows next to its name.
pub fn summarize_args(name: &str, args: &Value) -> String {
    let field = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
    let pick = match name {
        // `!` and `!!` are the user's own shell commands (not in context with `!!`).
        "bash" | "!" | "!!" => field("command"),
        "read" | "write" | "edit" | "ls" => field("path"),
        "grep" => field("pattern").map(|p| match field("path") {
            Some(path) => format!("{p}  in {path}"),
            None => p,
        }),
        "find" => field("pattern"),
        // The subagents plugin's tool: which agent, on what.
        "task" => field("description").map(|d| match field("agent") {
            Some(agent) => format!("{agent} · {d}"),
            None => d,
        }),
        _ => None,
    };
    match pick {
        Some(text) => text,
        None if args.is_null() => String::new(),
        None => args.to_string(),
    }
}

fn tool(
    card: &ToolCard,
    drawing: Option<&PluginDrawing>,
    width: usize,
    theme: &Theme,
    options: &ViewOptions,
) -> Vec<Line<'static>> {
    let (icon, icon_style) = match card.state {
        ToolState::Pending => ("○", theme.dim()),
        ToolState::Running => ("◐", theme.running()),
        ToolState::Done => ("✓", theme.ok()),
        ToolState::Failed => ("✗", theme.error()),
    };
    let mut args = match &card.child {
        Some(child) => subagent::header_text(child, &card.args),
        None => String::new(),
    };
    if args.is_empty() {
        args = summarize_args(&card.name, &card.args);
    }
    if args.is_empty() {
        args = card.args_text.clone();
    }
    let args = args.replace('\n', " ⏎ ");
    let mut summary = String::new();
    let output_lines = card.output.trim_end().lines().count();
    if card.child.is_none()
        && matches!(card.state, ToolState::Done | ToolState::Failed)
        && output_lines > 0
    {
        let noun = if output_lines == 1 { "line" } else { "lines" };
        summary = format!(" · {output_lines} {noun}");
    }
    let name_width = card.name.chars().count() + 4;
    let header_room = width.saturating_sub(name_width + summary.chars().count());
    let heading = drawing
        .and_then(|d| d.heading.as_ref())
        .filter(|h| !h.is_empty());
    let mut out = match heading {
        // The icon and the tool's name stay tack's, so a plugin's heading never passes for
        // another tool's.
        Some(heading) => heading
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let mut spans = if i == 0 {
                    vec![
                        Span::styled(format!("{icon} "), icon_style),
                        Span::styled(card.name.clone(), theme.tool_name()),
                        Span::raw("  "),
                    ]
                } else {
                    vec![Span::raw(" ".repeat(TOOL_INDENT))]
                };
                let room = if i == 0 { name_width } else { TOOL_INDENT };
                let room = width.saturating_sub(room).max(1);
                spans.extend(styled_line(line, room, theme.text()).spans);
                Line::from(spans)
            })
            .collect(),
        None => {
            let shown_args = if options.expand_tools {
                args
            } else {
                truncate(&args, header_room.max(1))
            };
            wrap_line(
                Line::from(vec![
                    Span::styled(format!("{icon} "), icon_style),
                    Span::styled(card.name.clone(), theme.tool_name()),
                    Span::raw("  "),
                    Span::styled(shown_args, theme.dim()),
                    Span::styled(summary, theme.dim()),
                ]),
                width,
                &[Span::raw("    ")],
            )
        }
    };
    let bar = Span::styled("  │ ", theme.dim());
    if !card.rewritten_by.is_empty() {
        out.push(Line::from(vec![
            bar.clone(),
            Span::styled(
                format!(
                    "arguments changed by plugin {} before it ran",
                    card.rewritten_by.join(", ")
                ),
                theme.warn(),
            ),
        ]));
    }
    for image in &card.images {
        out.extend(image.lines("  │ ", theme, options.show_images, width));
    }
    if let Some(child) = &card.child {
        out.extend(subagent::body(card, child, width, theme, options));
        return out;
    }
    if let Some(body) = drawing.and_then(|d| d.body.as_ref()) {
        let room = width.saturating_sub(TOOL_INDENT).max(1);
        out.extend(body.iter().map(|line| {
            let mut drawn = styled_line(line, room, theme.text());
            drawn.spans.insert(0, bar.clone());
            drawn
        }));
        return out;
    }
    tool_output(card, out, &bar, width, theme, options)
}

/// tack's body of a card: the diff of an edit, or the output, collapsed unless expanded.
fn tool_output(
    card: &ToolCard,
    mut out: Vec<Line<'static>>,
    bar: &Span<'static>,
    width: usize,
    theme: &Theme,
    options: &ViewOptions,
) -> Vec<Line<'static>> {
    if let Some(diff) = &card.diff {
        let lines: Vec<&str> = diff
            .lines()
            .filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ "))
            .collect();
        let limit = if options.expand_tools {
            usize::MAX
        } else {
            COLLAPSED_DIFF
        };
        for line in lines.iter().take(limit) {
            let style = if line.starts_with('+') {
                theme.diff_added()
            } else if line.starts_with('-') {
                theme.diff_removed()
            } else if line.starts_with("@@") {
                theme.diff_hunk()
            } else {
                theme.dim()
            };
            out.extend(body_line(line, style, bar, width));
        }
        if lines.len() > limit {
            out.push(more(lines.len() - limit, theme));
        }
        return out;
    }

    // Reads and listings are for the model; the card says how much came back. Everything else
    // (commands, writes, failures) shows its output.
    let quiet = matches!(card.name.as_str(), "read" | "ls" | "find" | "grep")
        && card.state == ToolState::Done;
    if (quiet && !options.expand_tools) || card.output.trim().is_empty() {
        return out;
    }
    let style = if card.state == ToolState::Failed {
        theme.error()
    } else {
        theme.text()
    };
    let lines: Vec<&str> = card.output.trim_end().lines().collect();
    let (shown, hidden): (Vec<&str>, usize) =
        if options.expand_tools || lines.len() <= COLLAPSED_OUTPUT {
            (lines.clone(), 0)
        } else if card.name == "bash" {
            // A command's latest output matters most.
            (
                lines[lines.len() - COLLAPSED_OUTPUT..].to_vec(),
                lines.len() - COLLAPSED_OUTPUT,
            )
        } else {
            (
                lines[..COLLAPSED_OUTPUT].to_vec(),
                lines.len() - COLLAPSED_OUTPUT,
            )
        };
    if hidden > 0 && card.name == "bash" {
        out.push(more(hidden, theme));
    }
    for line in shown {
        out.extend(body_line(line, style, bar, width));
    }
    if hidden > 0 && card.name != "bash" {
        out.push(more(hidden, theme));
    }
    out
}

fn body_line(text: &str, style: Style, bar: &Span<'static>, width: usize) -> Vec<Line<'static>> {
    wrap_line(
        Line::from(vec![bar.clone(), Span::styled(text.to_string(), style)]),
        width,
        std::slice::from_ref(bar),
    )
}

fn more(hidden: usize, theme: &Theme) -> Line<'static> {
    let noun = if hidden == 1 { "line" } else { "lines" };
    Line::from(Span::styled(
        format!("  … {hidden} more {noun} (Ctrl+O to expand)"),
        theme.dim(),
    ))
}
