//! The nested card of a sub-agent inside the card of the tool call that started it: the
//! child's tool calls as they run and its answer, closed by a line of what it used; folded by
//! Ctrl+O (like any tool output) to that one line, which while the child runs also names its
//! latest call.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::blocks::ViewOptions;
use super::count::human;
use super::markdown;
use super::wrap::{truncate, wrap_line};
use crate::theme::Theme;
use crate::transcript::{ChildRun, ToolCard, ToolState};

/// What the card's header shows after the tool's name: the agent and the task's description
/// (from the call's arguments until the child's own reports say).
pub fn header_text(child: &ChildRun, args: &Value) -> String {
    let arg = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
    let description = Some(child.description.clone())
        .filter(|d| !d.is_empty())
        .or_else(|| arg("description"))
        .unwrap_or_default()
        .replace('\n', " ");
    match child.agent.clone().or_else(|| arg("agent")) {
        Some(agent) if description.is_empty() => agent,
        Some(agent) => format!("{agent} · {description}"),
        None => description,
    }
}

/// The lines under the header.
pub fn body(
    card: &ToolCard,
    child: &ChildRun,
    width: usize,
    theme: &Theme,
    options: &ViewOptions,
) -> Vec<Line<'static>> {
    let bar = Span::styled("  │ ", theme.dim());
    let mut out = Vec::new();
    if options.expand_tools {
        if child.earlier_calls > 0 {
            out.push(Line::from(vec![
                bar.clone(),
                Span::styled(
                    format!("… {} earlier calls", child.earlier_calls),
                    theme.dim(),
                ),
            ]));
        }
        for call in &child.calls {
            let (icon, style) = icon(call.state, theme);
            out.extend(wrap_line(
                Line::from(vec![
                    bar.clone(),
                    Span::styled(format!("{icon} "), style),
                    Span::styled(call.tool.clone(), theme.tool_name()),
                    Span::raw("  "),
                    Span::styled(call.summary.clone(), theme.dim()),
                ]),
                width,
                &[bar.clone(), Span::raw("    ")],
            ));
        }
        // Once it ended, the call's result is its answer (with a note when it did not
        // complete); until then, what it said last.
        let answer = if child.finished() || is_over(card.state) {
            card.output.trim()
        } else {
            child.said.trim()
        };
        if !answer.is_empty() {
            if !out.is_empty() {
                out.push(Line::from(bar.clone()));
            }
            for mut line in markdown::render(answer, width.saturating_sub(4).max(4), theme) {
                line.spans.insert(0, bar.clone());
                out.push(line);
            }
        }
    }
    let (text, style) = summary(card, child, options, width.saturating_sub(4), theme);
    out.extend(wrap_line(
        Line::from(vec![
            Span::styled("  ╰ ", theme.dim()),
            Span::styled(text, style),
        ]),
        width,
        &[Span::raw("    ")],
    ));
    out
}

fn is_over(state: ToolState) -> bool {
    matches!(state, ToolState::Done | ToolState::Failed)
}

fn icon(state: ToolState, theme: &Theme) -> (&'static str, Style) {
    match state {
        ToolState::Pending => ("○", theme.dim()),
        ToolState::Running => ("◐", theme.running()),
        ToolState::Done => ("✓", theme.ok()),
        ToolState::Failed => ("✗", theme.error()),
    }
}

/// The one line: how it ended (or that it runs), turns, tool calls, tokens, time, and what
/// Ctrl+O would show.
fn summary(
    card: &ToolCard,
    child: &ChildRun,
    options: &ViewOptions,
    room: usize,
    theme: &Theme,
) -> (String, Style) {
    let (status, style) = match child.status.as_deref() {
        Some("completed") => ("completed".to_string(), theme.dim()),
        Some("limit-reached") => ("limit reached".to_string(), theme.warn()),
        Some("aborted") => ("aborted".to_string(), theme.warn()),
        Some(other) => (other.to_string(), theme.error()),
        None if card.state == ToolState::Failed => ("failed".to_string(), theme.error()),
        None if card.state == ToolState::Done => ("done".to_string(), theme.dim()),
        None => ("running".to_string(), theme.running()),
    };
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = vec![
        status,
        plural(child.turns, "turn", "turns"),
        plural(child.tool_calls, "tool call", "tool calls"),
        format!("{} tokens", human(child.tokens)),
    ];
    if let Some(ms) = child.elapsed_ms {
        parts.push(format!("{:.1} s", ms as f64 / 1000.0));
    }
    if options.expand_tools {
        if let Some(model) = &child.model {
            parts.push(model.clone());
        }
    } else {
        const HINT: &str = "Ctrl+O to expand";
        const SEPARATOR: &str = " · ";
        let width = |parts: &[String]| {
            parts.iter().map(|p| p.chars().count()).sum::<usize>()
                + parts.len().saturating_sub(1) * SEPARATOR.chars().count()
        };
        // While it runs, its latest call says most (in what room the line has); the hint
        // follows when there is room left for it.
        if let (ToolState::Running, Some(last)) = (card.state, child.calls.last()) {
            let left = room.saturating_sub(width(&parts) + SEPARATOR.chars().count());
            if left >= 12 {
                let call = format!("{} {}", last.tool, last.summary);
                parts.push(truncate(call.trim(), left));
            }
        }
        if width(&parts) + SEPARATOR.chars().count() + HINT.len() <= room {
            parts.push(HINT.into());
        }
    }
    (parts.join(" · "), style)
}
