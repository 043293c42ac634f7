//! What replaces and extends tack's system prompt: `--system-prompt`, `SYSTEM.md` and
//! `APPEND_SYSTEM.md` in the tack home and in a trusted project's `.tack/`, and
//! `--append-system-prompt`. Read once at start-up.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::Cli;

/// The file that replaces the system prompt's instructions.
pub const SYSTEM_FILE: &str = "SYSTEM.md";
/// The file appended to the system prompt.
pub const APPEND_FILE: &str = "APPEND_SYSTEM.md";

#[derive(Debug, Clone, Default)]
pub struct SystemPromptFiles {
    /// Replaces tack's instructions: `--system-prompt`, else the project's `SYSTEM.md`, else
    /// the tack home's.
    pub replace: Option<String>,
    /// Appended in order: the home's `APPEND_SYSTEM.md`, the project's, then each
    /// `--append-system-prompt`.
    pub append: Vec<String>,
    /// The files read, for the start-up report.
    pub sources: Vec<PathBuf>,
}

impl SystemPromptFiles {
    /// `trusted_project`: the project root, when the project is trusted; an untrusted project's
    /// files are not read.
    pub fn read(cli: &Cli, tack_home: &Path, trusted_project: Option<&Path>) -> Result<Self> {
        let mut files = SystemPromptFiles::default();
        let mut dirs = vec![tack_home.to_path_buf()];
        if let Some(root) = trusted_project {
            dirs.push(root.join(".tack"));
        }
        for dir in &dirs {
            let path = dir.join(SYSTEM_FILE);
            if let Some(text) = read_if_present(&path)? {
                files.replace = Some(text);
                files.sources.retain(|p| p.file_name() != path.file_name());
                files.sources.push(path);
            }
        }
        if let Some(given) = &cli.system_prompt {
            let (text, file) = text_or_file(given)?;
            files.replace = Some(text);
            files
                .sources
                .retain(|p| p.file_name() != Some(SYSTEM_FILE.as_ref()));
            files.sources.extend(file);
        }
        for dir in &dirs {
            let path = dir.join(APPEND_FILE);
            if let Some(text) = read_if_present(&path)? {
                files.append.push(text);
                files.sources.push(path);
            }
        }
        for given in &cli.append_system_prompt {
            let (text, file) = text_or_file(given)?;
            files.append.push(text);
            files.sources.extend(file);
        }
        Ok(files)
    }
}

fn read_if_present(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// A flag's value: the contents of the file it names, if it names one, else the text itself.
fn text_or_file(given: &str) -> Result<(String, Option<PathBuf>)> {
    let path = Path::new(given);
    // A long text with newlines is never meant as a path.
    if !given.contains('\n') && path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        return Ok((text, Some(absolute)));
    }
    Ok((given.to_string(), None))
}
