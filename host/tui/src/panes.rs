//! The screen as panes, in the manner of helix's compositor: each pane draws itself into the
//! rectangle the layout gives it, may take keys, and may place the cursor. Panes keep only
//! what drawing needs (laid-out lines, where the cursor went); what they show lives in
//! [`State`], which events change.
//!
//! Panes sit in named [`Region`]s, stacked top to bottom in the order they were added. The
//! overlay region is a stack of layers instead: the top-most open one is drawn, gets keys first
//! and owns the cursor.

use crossterm::event::Event;
use ratatui::layout::{Position, Rect};
use ratatui::Frame;

use crate::state::State;

pub(crate) mod completion;
pub(crate) mod component;
pub(crate) mod dialog;
pub(crate) mod editor;
pub(crate) mod footer;
pub(crate) mod header;
pub(crate) mod picker;
mod popup;
pub(crate) mod queue;
pub(crate) mod status;
pub(crate) mod transcript;
pub(crate) mod widgets;

/// Where on screen a pane goes. Every region but the transcript (which fills what is left)
/// and the overlay (the whole screen, over the rest) is as tall as its panes; an empty one
/// takes no rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Header,
    Transcript,
    AboveEditor,
    Editor,
    BelowEditor,
    Footer,
    Overlay,
}

impl Region {
    /// The regions stacked top to bottom; the overlay is over them all.
    pub const STACKED: [Region; 6] = [
        Region::Header,
        Region::Transcript,
        Region::AboveEditor,
        Region::Editor,
        Region::BelowEditor,
        Region::Footer,
    ];
    const COUNT: usize = Region::STACKED.len() + 1;

    fn index(self) -> usize {
        self as usize
    }
}

/// Whether a pane used an event, or it goes on to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventResult {
    Consumed,
    Ignored,
}

/// What a pane says about the terminal's cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cursor {
    /// Not this pane's business: the pane below (or the focused one) decides.
    Elsewhere,
    Hidden,
    At(Position),
}

/// What a pane gets to draw with: the state, and where every region is this frame (a popup
/// placed against another region needs its rectangle).
pub(crate) struct RenderContext<'a> {
    pub state: &'a mut State,
    pub areas: &'a Areas,
    /// Fewer than ten rows: the status line and the footer give their rows to the transcript.
    pub compact: bool,
}

pub(crate) trait Pane {
    /// Lays the pane out for this frame at `width` and returns the rows it takes in its region.
    /// The transcript, which fills what is left, and overlays are not asked.
    fn measure(&mut self, _state: &State, _width: u16, _compact: bool) -> u16 {
        0
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext);

    fn handle_event(&mut self, _event: &Event, _state: &mut State) -> EventResult {
        EventResult::Ignored
    }

    /// Asked after the frame is drawn.
    fn cursor(&self, _state: &State) -> Cursor {
        Cursor::Elsewhere
    }

    /// Whether an overlay is up; a closed one is neither drawn nor asked about keys.
    fn is_open(&self, _state: &State) -> bool {
        true
    }
}

/// The panes by region, and which one has the keys no overlay takes.
pub(crate) struct Regions {
    panes: [Vec<Box<dyn Pane>>; Region::COUNT],
    focus: (Region, usize),
}

impl Regions {
    /// Nothing on screen; the focus goes to the first pane added to the editor region.
    pub fn new() -> Regions {
        Regions {
            panes: Default::default(),
            focus: (Region::Editor, 0),
        }
    }

    /// Adds `pane` below (for the overlay: on top of) the region's others.
    pub fn add(&mut self, region: Region, pane: impl Pane + 'static) -> &mut Regions {
        self.panes[region.index()].push(Box::new(pane));
        self
    }

    pub fn panes(&self, region: Region) -> &[Box<dyn Pane>] {
        &self.panes[region.index()]
    }

    pub fn panes_mut(&mut self, region: Region) -> &mut [Box<dyn Pane>] {
        &mut self.panes[region.index()]
    }

    pub fn focused_mut(&mut self) -> Option<&mut Box<dyn Pane>> {
        let (region, index) = self.focus;
        self.panes[region.index()].get_mut(index)
    }

    pub fn focused(&self) -> Option<&dyn Pane> {
        let (region, index) = self.focus;
        self.panes[region.index()].get(index).map(|pane| &**pane)
    }

    /// The index of the top-most open overlay.
    pub fn top_overlay(&self, state: &State) -> Option<usize> {
        self.panes(Region::Overlay)
            .iter()
            .rposition(|pane| pane.is_open(state))
    }
}

/// Where each region is in a frame.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Areas {
    rects: [Rect; Region::COUNT],
}

impl Areas {
    pub fn get(&self, region: Region) -> Rect {
        self.rects[region.index()]
    }

    pub fn set(&mut self, region: Region, rect: Rect) {
        self.rects[region.index()] = rect;
    }
}
