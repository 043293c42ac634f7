//! Drawing a frame: the transcript (only the blocks on screen are laid out), the status line,
//! the queue, plugin widgets, the editor with its completion popup, the footer, and dialogs and
//! pickers as overlays.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block as Panel, BorderType, Borders, Clear, Padding, Paragraph};
use ratatui::Frame;

use crate::app::{App, OpenDialog};
use crate::picker::PickerState;
use crate::protocol::DialogKind;
use crate::render::blocks::render_block;
use crate::render::blocks::ViewOptions;
use crate::render::wrap::{truncate, wrap_line};
use crate::transcript::{Item, Rendered};

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Most editor lines shown before it scrolls.
const EDITOR_MAX_LINES: usize = 8;

impl App {
    pub fn render(&mut self, frame: &mut Frame) {
        let area = frame.area();
        if area.width == 0 || area.height == 0 {
            return;
        }
        let width = area.width;
        let padding = self.editor_padding;
        let (editor_lines, cursor) = self.editor.layout(
            width.saturating_sub(2 + 2 * padding),
            &self.theme,
            if self.running {
                "Steer the agent (Enter), or queue a follow-up (Alt+Enter)"
            } else {
                "Ask anything; / for commands, @ for files"
            },
        );
        let tiny = area.height < 10;
        let editor_height = editor_lines.len().clamp(1, EDITOR_MAX_LINES) as u16 + 2;
        let queue = self.queue_lines(width);
        let above: Vec<Line> = self.widget_lines(false, width);
        let below: Vec<Line> = self.widget_lines(true, width);
        let footer = if tiny {
            Vec::new()
        } else {
            self.footer_lines(width)
        };
        let [transcript_area, status_area, queue_area, above_area, editor_area, below_area, footer_area] =
            Layout::vertical([
                Constraint::Min(1),
                Constraint::Length(u16::from(!tiny)),
                Constraint::Length(queue.len() as u16),
                Constraint::Length(above.len() as u16),
                Constraint::Length(editor_height),
                Constraint::Length(below.len() as u16),
                Constraint::Length(footer.len() as u16),
            ])
            .areas(area);

        self.view_height = transcript_area.height;
        let lines = self.visible_lines(transcript_area.width, transcript_area.height);
        frame.render_widget(Paragraph::new(lines), transcript_area);
        if !tiny {
            frame.render_widget(Paragraph::new(self.status_line(width)), status_area);
        }
        frame.render_widget(Paragraph::new(queue), queue_area);
        frame.render_widget(Paragraph::new(above), above_area);
        frame.render_widget(Paragraph::new(below), below_area);
        frame.render_widget(Paragraph::new(footer), footer_area);

        // The editor scrolls to keep its cursor in view.
        let inner_height = editor_area.height.saturating_sub(2);
        let top = cursor.1.saturating_sub(inner_height.saturating_sub(1));
        let shown: Vec<Line> = editor_lines
            .into_iter()
            .skip(usize::from(top))
            .take(usize::from(inner_height))
            .collect();
        let hint = if self.running {
            " Enter steer · Alt+Enter follow-up · Esc abort "
        } else {
            ""
        };
        let block = Panel::new()
            .borders(Borders::TOP | Borders::BOTTOM)
            .padding(Padding::horizontal(padding))
            .border_style(self.theme.border())
            .title_top(Line::from(Span::styled(
                truncate(hint, usize::from(width)),
                self.theme.dim(),
            )));
        frame.render_widget(Paragraph::new(shown).block(block), editor_area);
        let overlay = !self.dialogs.is_empty() || self.picker.is_some();
        if !overlay {
            let x = editor_area.x + padding + cursor.0.min(width.saturating_sub(1 + 2 * padding));
            let y = editor_area.y + 1 + cursor.1.saturating_sub(top);
            if y < editor_area.y + editor_area.height.saturating_sub(1) {
                frame.set_cursor_position((x, y));
            }
        }

        if self.completion.is_some() && !overlay {
            self.render_completion(frame, transcript_area);
        }
        if let Some(dialog) = self.dialogs.front() {
            render_dialog(frame, area, dialog, &self.theme, self.dialogs.len());
        } else if let Some(picker) = &self.picker {
            render_picker(frame, area, picker, &self.theme);
        }
    }

    /// The transcript lines that fit `height` rows: the end, or from the scroll anchor down.
    /// Only the blocks on screen (and those scrolled past) are laid out, and their lines cached.
    fn visible_lines(&mut self, width: u16, height: u16) -> Vec<Line<'static>> {
        if self.transcript.is_empty() {
            return self.welcome(width);
        }
        let height = usize::from(height);
        let options = self.options;
        let theme = self.theme;
        let count = self.transcript.len();
        let items = self.transcript.items_mut();
        let anchor = self.scroll.resolve(count, height, |i| {
            lay_out(&mut items[i], width, &theme, options)
        });
        let (first, skip) = match anchor {
            Some(anchor) => anchor,
            None => {
                // The end: lay out from the bottom up until the view is full.
                let mut total = 0;
                let mut first = count;
                while first > 0 && total < height {
                    first -= 1;
                    total += lay_out(&mut items[first], width, &theme, options);
                }
                (first, total.saturating_sub(height))
            }
        };
        let mut lines = Vec::with_capacity(height);
        for (i, item) in items.iter_mut().enumerate().skip(first) {
            if lines.len() >= height {
                break;
            }
            lay_out(item, width, &theme, options);
            let Some(cache) = &item.cache else {
                break;
            };
            let start = if i == first { skip } else { 0 };
            let room = height - lines.len();
            lines.extend(cache.lines.iter().skip(start).take(room).cloned());
        }
        lines
    }

    fn welcome(&self, width: u16) -> Vec<Line<'static>> {
        let lines = [
            "tack — a coding agent whose tools are sandboxed plugins.",
            "",
            "Type a prompt and press Enter. / lists commands, @ completes file paths,",
            "Shift+Enter (or Ctrl+J, or \\ then Enter) adds a line. While the agent works,",
            "Enter steers it, Alt+Enter queues a follow-up, Esc aborts.",
            "Ctrl+O expands tool output, Ctrl+T shows thinking, PageUp/PageDown scroll.",
            "Ctrl+C twice (or Ctrl+D, or /quit) quits.",
        ];
        lines
            .iter()
            .flat_map(|l| {
                wrap_line(
                    Line::from(Span::styled(l.to_string(), self.theme.dim())),
                    usize::from(width),
                    &[],
                )
            })
            .collect()
    }

    fn status_line(&self, width: u16) -> Line<'static> {
        let mut left: Vec<Span> = Vec::new();
        if let Some(busy) = &self.busy {
            left.push(Span::styled(
                format!("{} {busy}", SPINNER[self.spinner % SPINNER.len()]),
                self.theme.running(),
            ));
        } else if self.running {
            left.push(Span::styled(
                format!(
                    "{} Working… (Esc to abort)",
                    SPINNER[self.spinner % SPINNER.len()]
                ),
                self.theme.running(),
            ));
        } else if self.quit_armed {
            left.push(Span::styled(
                "Press Ctrl+C again to quit",
                self.theme.warn(),
            ));
        }
        if self.scroll.is_back() {
            if !left.is_empty() {
                left.push(Span::raw("  "));
            }
            left.push(Span::styled(
                "↑ scrolled back (Ctrl+End or Esc: follow the end)",
                self.theme.dim(),
            ));
        }
        let right: Vec<String> = self.statuses.values().cloned().collect();
        let right = right.join(" · ");
        let used: usize = left.iter().map(|s| s.width()).sum();
        let room = usize::from(width).saturating_sub(used + 1);
        if !right.is_empty() && room > 3 {
            let right = truncate(&right, room);
            let pad = usize::from(width) - used - right.chars().count();
            left.push(Span::raw(" ".repeat(pad.max(1))));
            left.push(Span::styled(right, self.theme.accent()));
        }
        Line::from(left)
    }

    fn queue_lines(&self, width: u16) -> Vec<Line<'static>> {
        let (steering, follow_up) = &self.queue;
        let items = steering
            .iter()
            .map(|t| ("steer", t))
            .chain(follow_up.iter().map(|t| ("follow-up", t)));
        let mut out: Vec<Line> = items
            .map(|(kind, text)| {
                let text = text.replace('\n', " ");
                Line::from(vec![
                    Span::styled(format!("  ⤷ {kind}: "), self.theme.accent()),
                    Span::styled(
                        truncate(&text, usize::from(width).saturating_sub(kind.len() + 6)),
                        self.theme.dim(),
                    ),
                ])
            })
            .collect();
        if out.len() > 4 {
            let more = out.len() - 3;
            out.truncate(3);
            out.push(Line::from(Span::styled(
                format!("  … {more} more queued"),
                self.theme.dim(),
            )));
        }
        out
    }

    fn widget_lines(&self, below: bool, width: u16) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for ((_, key), lines) in &self.widgets {
            if key.starts_with("below:") != below {
                continue;
            }
            for line in lines.iter().take(8) {
                out.push(Line::from(Span::raw(truncate(line, usize::from(width)))));
            }
        }
        out.truncate(12);
        out
    }

    fn footer_lines(&self, width: u16) -> Vec<Line<'static>> {
        let f = &self.footer;
        let mut parts: Vec<String> = Vec::new();
        if !f.model.is_empty() {
            match &f.thinking {
                Some(level) if level != "off" => parts.push(format!("{} ({level})", f.model)),
                _ => parts.push(f.model.clone()),
            }
        }
        if !f.cwd.is_empty() {
            parts.push(f.cwd.clone());
        }
        if let Some(branch) = &f.git_branch {
            parts.push(format!("⎇ {branch}"));
        }
        if let Some(name) = &f.session_name {
            parts.push(format!("“{name}”"));
        }
        let u = &self.usage;
        if f.context_window > 0 {
            let pct = u.context_tokens as f64 * 100.0 / f64::from(f.context_window);
            parts.push(format!(
                "ctx {pct:.0}% of {}",
                human(u64::from(f.context_window))
            ));
        }
        parts.push(format!("↑{} ↓{}", human(u.input), human(u.output)));
        if u.cost > 0.0 {
            parts.push(format!("${:.3}", u.cost));
        }
        let text = parts.join(" · ");
        wrap_line(
            Line::from(Span::styled(text, self.theme.footer())),
            usize::from(width),
            &[],
        )
        .into_iter()
        .take(2)
        .collect()
    }

    fn render_completion(&self, frame: &mut Frame, above: Rect) {
        let Some(completion) = &self.completion else {
            return;
        };
        let visible = 8usize;
        let start = completion.selected.saturating_sub(visible - 1);
        let items: Vec<Line> = completion
            .items
            .iter()
            .enumerate()
            .skip(start)
            .take(visible)
            .map(|(i, item)| {
                let label_width = completion
                    .items
                    .iter()
                    .map(|i| i.label.chars().count())
                    .max()
                    .unwrap_or(0)
                    .min(30);
                let style = if i == completion.selected {
                    self.theme.selected()
                } else {
                    self.theme.text()
                };
                let room = usize::from(above.width).saturating_sub(label_width + 4);
                Line::from(vec![
                    Span::styled(format!(" {:<label_width$} ", item.label), style),
                    Span::styled(
                        format!(" {}", truncate(&item.detail, room)),
                        self.theme.dim(),
                    ),
                ])
            })
            .collect();
        let height = (items.len() as u16 + 2).min(above.height);
        let area = Rect {
            x: above.x,
            y: above.y + above.height.saturating_sub(height),
            width: above.width,
            height,
        };
        frame.render_widget(Clear, area);
        let block = Panel::new()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(self.theme.border());
        frame.render_widget(Paragraph::new(items).block(block), area);
    }
}

/// The frame of a dialog or picker drawn over the view, titled within `width` columns.
fn overlay_panel<'a>(title: &str, width: usize, theme: &crate::theme::Theme) -> Panel<'a> {
    Panel::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(theme.dialog_border())
        .title(Span::styled(
            truncate(&format!(" {title} "), width),
            theme.dialog_border(),
        ))
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

fn render_dialog(
    frame: &mut Frame,
    area: Rect,
    dialog: &OpenDialog,
    theme: &crate::theme::Theme,
    open: usize,
) {
    let width = area.width.saturating_sub(4).min(72).max(area.width.min(20));
    let inner = usize::from(width.saturating_sub(4)).max(1);
    let mut lines: Vec<Line> = Vec::new();
    let title = match &dialog.request.kind {
        DialogKind::Confirm { title, message } => {
            for l in message.lines() {
                lines.extend(wrap_line(Line::from(l.to_string()), inner, &[]));
            }
            lines.push(Line::default());
            let (yes, no) = if dialog.selected == 0 {
                (theme.selected(), theme.text())
            } else {
                (theme.text(), theme.selected())
            };
            lines.push(Line::from(vec![
                Span::styled(" Yes (y) ", yes),
                Span::raw("   "),
                Span::styled(" No (n) ", no),
            ]));
            title
        }
        DialogKind::Select { title, options } => {
            for (i, option) in options.iter().enumerate() {
                let style = if i == dialog.selected {
                    theme.selected()
                } else {
                    theme.text()
                };
                let marker = if i == dialog.selected { "›" } else { " " };
                lines.push(Line::from(Span::styled(
                    truncate(&format!("{marker} {}. {option}", i + 1), inner),
                    style,
                )));
            }
            title
        }
        DialogKind::Input { title, placeholder } => {
            let (input, _) = dialog
                .input
                .layout(width.saturating_sub(4), theme, placeholder);
            lines.extend(input);
            title
        }
    };
    lines.push(Line::default());
    let hint = match dialog.request.kind {
        DialogKind::Confirm { .. } => "y/n or ←/→ and Enter · Esc cancels",
        DialogKind::Select { .. } => "↑/↓ or 1-9, Enter chooses · Esc cancels",
        DialogKind::Input { .. } => "Enter answers · Esc cancels",
    };
    lines.push(Line::from(Span::styled(truncate(hint, inner), theme.dim())));
    if open > 1 {
        lines.push(Line::from(Span::styled(
            format!("{} more waiting", open - 1),
            theme.dim(),
        )));
    }
    let height = lines.len() as u16 + 2;
    let rect = centered(area, width, height);
    frame.render_widget(Clear, rect);
    let block = overlay_panel(&format!("{}: {title}", dialog.request.plugin), inner, theme);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
    if let DialogKind::Input { .. } = dialog.request.kind {
        let (_, cursor) = dialog.input.layout(width.saturating_sub(4), theme, "");
        frame.set_cursor_position((rect.x + 1 + cursor.0, rect.y + 1 + cursor.1));
    }
}

fn render_picker(frame: &mut Frame, area: Rect, state: &PickerState, theme: &crate::theme::Theme) {
    let visible = state.visible();
    let width = (area.width.saturating_sub(4)).clamp(area.width.min(20), 100);
    // Filter line, blank line, the items, two borders.
    let wanted = u16::try_from(state.picker.items.len().max(1) + 4).unwrap_or(u16::MAX);
    let height = wanted
        .min(area.height.saturating_sub(2))
        .clamp(area.height.min(6), 24);
    let rect = centered(area, width, height);
    let inner_width = usize::from(width.saturating_sub(2));
    let rows = usize::from(height.saturating_sub(4));
    let start = if rows == 0 {
        0
    } else {
        state.selected.saturating_sub(rows - 1)
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled("filter: ", theme.dim()),
            Span::raw(state.filter.clone()),
        ]),
        Line::default(),
    ];
    for (row, &index) in visible.iter().enumerate().skip(start).take(rows) {
        let item = &state.picker.items[index];
        let style = if row == state.selected {
            theme.selected()
        } else {
            theme.text()
        };
        let marker = if row == state.selected { "› " } else { "  " };
        let folded = if state.folded.contains(&index) {
            format!("  ▸ {} more", state.subtree_len(index))
        } else {
            String::new()
        };
        let label = truncate(&format!("{marker}{}{folded}", item.label), inner_width);
        let room = inner_width.saturating_sub(label.chars().count() + 2);
        let mut spans = vec![Span::styled(label, style)];
        if room > 4 && !item.detail.is_empty() {
            spans.push(Span::styled(
                format!("  {}", truncate(&item.detail, room)),
                theme.dim(),
            ));
        }
        lines.push(Line::from(spans));
    }
    if visible.is_empty() {
        lines.push(Line::from(Span::styled("nothing matches", theme.dim())));
    }
    frame.render_widget(Clear, rect);
    let title = match state.view_name() {
        Some(view) => format!("{} · {view}", state.picker.title),
        None => state.picker.title.clone(),
    };
    let block = overlay_panel(&title, inner_width, theme).title_bottom(Span::styled(
        truncate(&state.hint(), inner_width),
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// Lays out a block at `width` unless its cached lines are for that width and those options;
/// returns its height.
fn lay_out(
    item: &mut Item,
    width: u16,
    theme: &crate::theme::Theme,
    options: ViewOptions,
) -> usize {
    let fresh = matches!(&item.cache, Some(c) if c.width == width && c.options == options.bits());
    if !fresh {
        item.cache = Some(Rendered {
            width,
            options: options.bits(),
            lines: render_block(&item.block, usize::from(width), theme, options),
        });
    }
    item.cache.as_ref().map_or(0, |c| c.lines.len())
}

/// `1234` → `1.2k`, `2500000` → `2.5M`.
pub(crate) fn human(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}
