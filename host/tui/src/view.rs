//! Laying out a frame: the regions top to bottom (header, transcript, above the editor, the
//! editor, below it, footer), each as tall as its panes but the transcript, which fills what
//! is left; then every pane draws into its rectangle, and the top-most open overlay over them.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::Frame;

use crate::app::App;
use crate::panes::{Areas, Cursor, Region, RenderContext};

/// Below this many rows the status line and the footer give theirs to the transcript.
const COMPACT_HEIGHT: u16 = 10;

impl App {
    pub fn render(&mut self, frame: &mut Frame) {
        let area = frame.area();
        if area.width == 0 || area.height == 0 {
            return;
        }
        let compact = area.height < COMPACT_HEIGHT;
        self.state.screen_size = (area.width, area.height);

        // One constraint per pane, so a frame too short for all of them squeezes each pane
        // the way a flat list of rows would.
        let mut constraints = Vec::new();
        for region in Region::STACKED {
            for pane in self.regions.panes_mut(region) {
                constraints.push(if region == Region::Transcript {
                    Constraint::Min(1)
                } else {
                    Constraint::Length(pane.measure(&self.state, area.width, compact))
                });
            }
        }
        let rects = Layout::vertical(constraints).split(area);

        let mut areas = Areas::default();
        let mut next = 0;
        let mut top = area.y;
        for region in Region::STACKED {
            let count = self.regions.panes(region).len();
            let mine = &rects[next..next + count];
            let rect = match (mine.first(), mine.last()) {
                (Some(first), Some(last)) => first.union(*last),
                // An empty region: no rows, where it would start.
                _ => Rect::new(area.x, top, area.width, 0),
            };
            top = rect.bottom();
            areas.set(region, rect);
            next += count;
        }
        areas.set(Region::Overlay, area);

        let mut next = 0;
        for region in Region::STACKED {
            for pane in self.regions.panes_mut(region) {
                let mut cx = RenderContext {
                    state: &mut self.state,
                    areas: &areas,
                    compact,
                };
                pane.render(frame, rects[next], &mut cx);
                next += 1;
            }
        }
        let top_overlay = self.regions.top_overlay(&self.state);
        let mut cursor = Cursor::Elsewhere;
        if let Some(overlay) =
            top_overlay.and_then(|top| self.regions.panes_mut(Region::Overlay).get_mut(top))
        {
            let mut cx = RenderContext {
                state: &mut self.state,
                areas: &areas,
                compact,
            };
            overlay.render(frame, area, &mut cx);
            cursor = overlay.cursor(&self.state);
        }
        if cursor == Cursor::Elsewhere {
            if let Some(focused) = self.regions.focused() {
                cursor = focused.cursor(&self.state);
            }
        }
        if let Cursor::At(position) = cursor {
            frame.set_cursor_position(position);
        }
    }
}
