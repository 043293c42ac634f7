//! The frame and place of a dialog or picker drawn over the view.

use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block as Panel, BorderType, Borders};

use crate::render::wrap::truncate;
use crate::theme::Theme;

/// A rounded frame titled within `width` columns.
pub(super) fn panel<'a>(title: &str, width: usize, theme: &Theme) -> Panel<'a> {
    Panel::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(theme.dialog_border())
        .title(Span::styled(
            truncate(&format!(" {title} "), width),
            theme.dialog_border(),
        ))
}

pub(super) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}
