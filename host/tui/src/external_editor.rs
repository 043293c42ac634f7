//! Ctrl+G: the editor's text in `$VISUAL` (else `$EDITOR`, else `vi`), as Pi and shells do.
//! The terminal is handed over while it runs; what the file holds afterwards becomes the text.

use std::io;
use std::process::Command;

/// Runs the user's editor on `text`; `Ok(None)` when it failed or was quit without a usable
/// file (the text stays as it was).
pub fn edit(text: &str) -> io::Result<Option<String>> {
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|| "vi".to_string());
    let file = tempfile::Builder::new()
        .prefix("tack-prompt-")
        .suffix(".md")
        .tempfile()?;
    std::fs::write(file.path(), text)?;
    crate::terminal::suspend();
    // Through the shell, so `code --wait` and other commands with arguments work.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file.path())
        .status();
    crate::terminal::resume()?;
    match status {
        Ok(status) if status.success() => {
            let edited = std::fs::read_to_string(file.path())?;
            // Editors end files with a newline the prompt does not want.
            Ok(Some(edited.trim_end_matches('\n').to_string()))
        }
        _ => Ok(None),
    }
}
