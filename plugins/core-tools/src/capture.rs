//! Keeping a command's output within bounded memory: the tail stays in memory for the result,
//! and once the output outgrows what the result can show, everything is also written to a file
//! so the model can page through the part it did not see.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use memchr::{memchr, memchr_iter};

use crate::paths::Workspace;
use crate::terminal;
use crate::truncate::{self, Tail, MAX_BYTES, MAX_LINES};

/// Memory kept beyond what the result shows, so trimming happens in large steps.
const SLACK: usize = MAX_BYTES;

/// Where the full output goes once it is too long to show.
#[derive(Debug)]
pub struct Spill {
    pub path: PathBuf,
    file: File,
}

#[derive(Debug)]
pub struct Capture {
    tail: Vec<u8>,
    /// The first line in `tail` lost its beginning to trimming.
    starts_mid_line: bool,
    total_bytes: u64,
    newlines: usize,
    ends_with_newline: bool,
    spill_dir: Option<PathBuf>,
    spill_name: String,
    spill: Option<Spill>,
    spill_error: Option<String>,
}

/// The shown part of the output and what is known about the rest.
#[derive(Debug)]
pub struct Finished {
    /// Cleaned text of the tail that is shown.
    pub text: String,
    pub shown_lines: usize,
    pub total_lines: usize,
    pub total_bytes: u64,
    pub truncated: bool,
    pub last_line_cut: bool,
    pub full_output: Option<PathBuf>,
    pub spill_error: Option<String>,
}

impl Capture {
    /// `spill_dir` is where the full output is saved if it gets long (created on demand);
    /// `spill_name` the file's name.
    pub fn new(spill_dir: Option<PathBuf>, spill_name: String) -> Self {
        Self {
            tail: Vec::new(),
            starts_mid_line: false,
            total_bytes: 0,
            newlines: 0,
            ends_with_newline: false,
            spill_dir,
            spill_name,
            spill: None,
            spill_error: None,
        }
    }

    /// The capture of call `call_id`'s output, saved (when long) where `read` can page it.
    pub fn for_call(ws: &Workspace, call_id: &str) -> Self {
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        Self::new(
            Some(spill_dir(ws.data_dir(), ws.root())),
            spill_name(call_id, now_ms),
        )
    }

    pub fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.total_bytes += bytes.len() as u64;
        self.newlines += memchr_iter(b'\n', bytes).count();
        self.ends_with_newline = bytes.last() == Some(&b'\n');
        self.tail.extend_from_slice(bytes);
        if let Some(spill) = &mut self.spill {
            if let Err(e) = spill.file.write_all(bytes) {
                self.spill_error = Some(format!("writing {} failed: {e}", spill.path.display()));
                self.spill = None;
            }
        } else if self.spill_error.is_none() && self.too_long_to_show() {
            self.start_spill();
        }
        self.trim();
    }

    fn too_long_to_show(&self) -> bool {
        self.total_bytes > MAX_BYTES as u64 || self.newlines > MAX_LINES
    }

    fn start_spill(&mut self) {
        let Some(dir) = &self.spill_dir else {
            self.spill_error = Some("no directory to save it in".to_string());
            return;
        };
        let path = dir.join(&self.spill_name);
        let opened = create_spill_dir(dir)
            .and_then(|()| File::create(&path))
            // Nothing has been trimmed yet, so the tail is the whole output so far.
            .and_then(|mut file| file.write_all(&self.tail).map(|()| file));
        match opened {
            Ok(file) => self.spill = Some(Spill { path, file }),
            Err(e) => self.spill_error = Some(format!("{}: {e}", path.display())),
        }
    }

    /// Drops the oldest output once the tail holds much more than a result can show. Only the
    /// tail is ever shown, so this never changes the result.
    fn trim(&mut self) {
        let keeping_all = self.spill.is_none() && self.spill_error.is_none();
        if keeping_all || self.tail.len() <= MAX_BYTES + 2 * SLACK {
            return;
        }
        let mut cut = self.tail.len() - (MAX_BYTES + SLACK);
        // Cut at a line start when one is near, so the kept text starts with a whole line.
        match memchr(b'\n', &self.tail[cut..]) {
            Some(i) if i < SLACK => {
                cut += i + 1;
                self.starts_mid_line = false;
            }
            _ => self.starts_mid_line = true,
        }
        self.tail.drain(..cut);
    }

    /// The cleaned end of the output, as much as `max_lines`/`max_bytes` allow: for progress
    /// updates while the command runs.
    pub fn preview(&self, max_lines: usize, max_bytes: usize) -> String {
        // Cleaning only a bounded window keeps frequent previews cheap.
        let window = max_bytes * 2;
        let from = self.tail.len().saturating_sub(window);
        let mut text = terminal::clean(&String::from_utf8_lossy(&self.tail[from..]));
        if from > 0 || self.starts_mid_line {
            drop_first_line(&mut text);
        }
        truncate::tail(&text, max_lines, max_bytes).text.to_string()
    }

    pub fn finish(mut self) -> Finished {
        if let Some(spill) = &mut self.spill {
            if let Err(e) = spill.file.flush() {
                self.spill_error = Some(format!("writing {} failed: {e}", spill.path.display()));
                self.spill = None;
            }
        }
        let total_lines =
            self.newlines + usize::from(self.total_bytes > 0 && !self.ends_with_newline);
        let mut cleaned = terminal::clean(&String::from_utf8_lossy(&self.tail));
        if self.starts_mid_line {
            drop_first_line(&mut cleaned);
        }
        let Tail {
            text,
            lines,
            truncated,
            last_line_cut,
        } = truncate::tail(&cleaned, MAX_LINES, MAX_BYTES);
        let dropped = self.total_bytes > self.tail.len() as u64;
        Finished {
            text: text.to_string(),
            shown_lines: lines,
            total_lines,
            total_bytes: self.total_bytes,
            truncated: truncated || dropped,
            last_line_cut,
            full_output: self.spill.map(|s| s.path),
            spill_error: self.spill_error,
        }
    }
}

/// Removes the first line (a fragment) when there is more after it.
fn drop_first_line(text: &mut String) {
    if let Some(i) = text.find('\n') {
        text.drain(..=i);
    }
}

/// A file name for a saved output that is unique enough across calls and instances.
pub fn spill_name(call_id: &str, now_ms: u128) -> String {
    let id: String = call_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(40)
        .collect();
    if id.is_empty() {
        format!("bash-{now_ms}.log")
    } else {
        format!("bash-{now_ms}-{id}.log")
    }
}

/// Directory for saved outputs: the plugin's data directory, or else the workspace's `.tack/tmp`.
pub fn spill_dir(data_dir: Option<&Path>, workspace: &Path) -> PathBuf {
    match data_dir {
        Some(dir) => dir.join("bash"),
        None => workspace.join(".tack").join("tmp"),
    }
}

/// Creates `dir` for saved outputs. A fresh directory gets a `.gitignore` of `*`, so logs saved
/// inside a workspace never show up as changes.
fn create_spill_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    // Best effort: without it the logs are merely visible to git.
    let _ = std::fs::write(dir.join(".gitignore"), "*\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("core-tools-capture-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn short_output_stays_in_memory() {
        let mut c = Capture::new(None, "x.log".into());
        c.push(b"hello\n");
        c.push(b"world");
        let f = c.finish();
        assert_eq!(f.text, "hello\nworld");
        assert_eq!((f.shown_lines, f.total_lines), (2, 2));
        assert!(!f.truncated);
        assert!(f.full_output.is_none() && f.spill_error.is_none());
    }

    #[test]
    fn long_output_is_saved_whole_and_tail_shown() {
        let dir = temp_dir("long");
        let mut c = Capture::new(Some(dir.clone()), "out.log".into());
        let mut expected = Vec::new();
        for i in 0..20_000 {
            let line = format!("line {i}\n");
            expected.extend_from_slice(line.as_bytes());
            c.push(line.as_bytes());
        }
        let f = c.finish();
        assert!(f.truncated);
        assert_eq!(f.total_lines, 20_000);
        assert_eq!(f.shown_lines, MAX_LINES);
        assert!(f.text.ends_with("line 19999"));
        assert!(f.text.starts_with(&format!("line {}", 20_000 - MAX_LINES)));
        let saved = std::fs::read(f.full_output.expect("saved")).expect("readable");
        assert_eq!(saved, expected);
        assert!(dir.join(".gitignore").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn without_a_directory_the_tail_is_still_shown() {
        let mut c = Capture::new(None, "x.log".into());
        for _ in 0..5000 {
            c.push(&[b'y'; 100]);
            c.push(b"\n");
        }
        let f = c.finish();
        assert!(f.truncated);
        assert!(f.full_output.is_none());
        assert!(f.spill_error.is_some());
        assert!(f.text.len() <= MAX_BYTES);
        assert!(f.text.starts_with('y'));
    }

    #[test]
    fn one_giant_line_is_cut() {
        let mut c = Capture::new(None, "x.log".into());
        for _ in 0..100 {
            c.push(&[b'z'; 10_000]);
        }
        let f = c.finish();
        assert!(f.last_line_cut);
        assert_eq!(f.text.len(), MAX_BYTES);
        assert_eq!(f.total_lines, 1);
    }

    #[test]
    fn names() {
        assert_eq!(spill_name("toolu_01/AB", 5), "bash-5-toolu_01AB.log");
        assert_eq!(spill_name("///", 5), "bash-5.log");
    }
}
