//! The event loop: terminal input, events from the host, and (only while a spinner turns) a
//! timer. With nothing happening it sleeps in `select!`, so an idle UI uses no CPU. Bursts of
//! events (streaming) are drained before one frame is drawn, at most one frame per 16 ms.

use std::io;
use std::time::Duration;

use crossterm::event::Event;
use futures_util::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::Terminal;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::App;
use crate::protocol::{Action, UiEvent};

const FRAME: Duration = Duration::from_millis(16);
pub(crate) const SPINNER_TICK: Duration = Duration::from_millis(100);

/// Runs the UI until the user quits or the host closes the event channel.
pub async fn run<B, S>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    mut make_input: impl FnMut() -> S,
    mut events: mpsc::UnboundedReceiver<UiEvent>,
    actions: mpsc::UnboundedSender<Action>,
) -> io::Result<()>
where
    B: Backend + io::Write,
    B::Error: std::error::Error + Send + Sync + 'static,
    S: Stream<Item = io::Result<Event>> + Unpin,
{
    let mut input = make_input();
    // What the host sent before the loop (the session, the footer) is in the first frame.
    while let Ok(event) = events.try_recv() {
        app.apply(event);
    }
    let mut last_draw = Instant::now() - FRAME;
    let mut next_tick = Instant::now() + SPINNER_TICK;
    loop {
        for action in app.take_actions() {
            // The host is gone only while shutting down; then nothing is left to do.
            let _ = actions.send(action);
        }
        if app.should_quit() {
            return Ok(());
        }
        for text in app.take_clipboard() {
            copy_to_clipboard(terminal.backend_mut(), &text)?;
        }
        if let Some(title) = app.take_title() {
            set_title(terminal.backend_mut(), &title)?;
        }
        for sequence in app.take_notifications() {
            crate::notify::write(terminal.backend_mut(), &sequence)?;
        }
        if let Some(text) = app.take_external_edit() {
            // The input stream reads stdin on its own thread; it must stop while the editor
            // owns the terminal, or it would steal the editor's keys.
            drop(input);
            let edited = crate::external_editor::edit(&text);
            input = make_input();
            // A full repaint on the next frame: the screen is cleared and both buffers blanked.
            // (`Terminal::clear` would ask the terminal for the cursor position first.)
            terminal
                .backend_mut()
                .clear_region(ratatui::backend::ClearType::All)
                .map_err(io::Error::other)?;
            terminal.swap_buffers();
            match edited {
                Ok(Some(text)) => app.set_editor_text(&text),
                Ok(None) => app.apply(UiEvent::Error(
                    "the external editor failed; the text is unchanged".into(),
                )),
                Err(e) => app.apply(UiEvent::Error(format!("external editor: {e}"))),
            }
        }
        let due = last_draw + FRAME;
        if app.is_dirty() && Instant::now() >= due {
            terminal
                .draw(|frame| app.render(frame))
                .map_err(io::Error::other)?;
            app.mark_drawn();
            last_draw = Instant::now();
            // Laying blocks out asks plugins to draw theirs.
            for action in app.take_actions() {
                let _ = actions.send(action);
            }
        }
        let animating = app.animating();
        if !animating {
            next_tick = Instant::now() + SPINNER_TICK;
        }
        tokio::select! {
            event = input.next() => match event {
                Some(Ok(event)) => app.handle_event(event),
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            event = events.recv() => match event {
                Some(event) => {
                    app.apply(event);
                    while let Ok(event) = events.try_recv() {
                        app.apply(event);
                    }
                }
                None => return Ok(()),
            },
            _ = tokio::time::sleep_until(due), if app.is_dirty() => {}
            // A plugin's component frame waited its time without a key.
            _ = sleep_until_std(app.component_deadline()), if app.component_deadline().is_some() => {
                app.component_tick();
            }
            _ = tokio::time::sleep_until(next_tick), if animating => {
                app.tick();
                next_tick = Instant::now() + SPINNER_TICK;
            }
        }
    }
}

/// Sleeps until `deadline` (never, without one).
async fn sleep_until_std(deadline: Option<std::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(Instant::from_std(deadline)).await,
        None => std::future::pending().await,
    }
}

/// Terminal input as a stream of crossterm events.
pub fn terminal_events() -> impl Stream<Item = io::Result<Event>> + Unpin {
    crossterm::event::EventStream::new()
}

/// OSC 0: the window (and tab) title. The text is a plugin's, already stripped of control
/// characters by the host; an empty one gives the window tack's name back.
fn set_title(out: &mut impl io::Write, title: &str) -> io::Result<()> {
    let title = if title.is_empty() { "tack" } else { title };
    let clean: String = title.chars().filter(|c| !c.is_control()).collect();
    write!(out, "\x1b]0;{clean}\x07")?;
    out.flush()
}

/// OSC 52: the terminal puts `text` on the system clipboard (also over SSH; tmux passes it on
/// with `set-clipboard on`). Written between frames, so it never splits a frame's escapes.
fn copy_to_clipboard(out: &mut impl io::Write, text: &str) -> io::Result<()> {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    write!(out, "\x1b]52;c;{encoded}\x07")?;
    out.flush()
}
