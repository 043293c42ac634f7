//! Taking over the terminal (raw mode, the alternate screen, bracketed paste, focus reports,
//! unambiguous key codes where the terminal supports them) and giving it back, also when the
//! program panics.

use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, EnableBracketedPaste, EnableFocusChange,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// Whether the terminal is ours now, so that restoring twice (a panic, then the guard) is
/// harmless.
static ACTIVE: AtomicBool = AtomicBool::new(false);

pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Gives the terminal back when dropped.
pub struct TerminalGuard {
    pub terminal: Tty,
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Takes over the terminal; the guard (or a panic) gives it back.
pub fn enter() -> io::Result<TerminalGuard> {
    install_panic_hook();
    take_over()?;
    match Terminal::new(CrosstermBackend::new(io::stdout())) {
        Ok(terminal) => Ok(TerminalGuard { terminal }),
        Err(e) => {
            restore();
            Err(e)
        }
    }
}

/// Raw mode, the alternate screen, bracketed paste and unambiguous keys.
fn take_over() -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let entered = execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        // Focus reports tell when the user looks away, so a finished run can notify them.
        EnableFocusChange,
        // Lets terminals that speak the kitty protocol report Shift+Enter and Alt+Enter
        // distinctly; others ignore the sequence.
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    );
    if let Err(e) = entered {
        restore();
        return Err(e);
    }
    Ok(())
}

/// Gives the terminal to another program (an editor) until [`resume`].
pub fn suspend() {
    restore();
}

/// Takes the terminal back after [`suspend`]; the caller redraws everything.
pub fn resume() -> io::Result<()> {
    take_over()
}

/// Leaves raw mode and the alternate screen and shows the cursor; does nothing if the terminal
/// is not ours.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut stdout = io::stdout();
    // Best effort: the terminal may be gone (a hang-up), and there is nowhere to report to.
    let _ = execute!(
        stdout,
        PopKeyboardEnhancementFlags,
        DisableFocusChange,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = stdout.flush();
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // The message must land on a normal screen, or it is lost with the alternate one.
            restore();
            previous(info);
        }));
    });
}
