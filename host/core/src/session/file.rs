//! Reading and appending session files.
//!
//! Reading goes line by line through one reused buffer, so loading holds only the parsed entries
//! (not the file text as well). Appending writes each line with a single `write_all` on a file
//! opened in append mode, so a crash loses at most the line being written.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::entry::{Entry, SessionHeader};
use super::tree::Tree;
use super::SessionError;

/// A line of a session file that was skipped or repaired while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// 1-based line number; 0 for a note about the whole file.
    pub line: usize,
    pub message: String,
}

impl LoadWarning {
    /// A warning about the whole file rather than one line.
    pub fn note(message: String) -> Self {
        LoadWarning { line: 0, message }
    }

    /// How a front end reports it: a skipped line, or the note.
    pub fn report(&self) -> String {
        if self.line == 0 {
            self.message.clone()
        } else {
            format!("skipped {self}")
        }
    }
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return f.write_str(&self.message);
        }
        write!(f, "line {}: {}", self.line, self.message)
    }
}

pub(crate) struct LoadedFile {
    pub header: SessionHeader,
    pub tree: Tree,
    pub warnings: Vec<LoadWarning>,
    /// Whether the last byte is a newline; if not, the next append starts a new line first.
    pub ends_with_newline: bool,
    /// Where the `1` of a tack version 1 header is, to be raised to 3 in place (see
    /// [`upgrade_header`]).
    pub version_digit_at: Option<u64>,
}

/// How tack version 1 headers begin (tack wrote them, always in this order).
const TACK_V1_HEADER: &[u8] = br#"{"type":"session","version":1,"#;

const READ_BUFFER: usize = 1 << 20;

pub(crate) fn load_file(path: &Path) -> Result<LoadedFile, SessionError> {
    let file = File::open(path).map_err(|source| SessionError::Read {
        path: path.to_owned(),
        source,
    })?;
    load_reader(BufReader::with_capacity(READ_BUFFER, file), path)
}

pub(crate) fn load_reader(
    mut reader: impl BufRead,
    path: &Path,
) -> Result<LoadedFile, SessionError> {
    let read_error = |source| SessionError::Read {
        path: path.to_owned(),
        source,
    };
    let bad_header = |reason: String| SessionError::BadHeader {
        path: path.to_owned(),
        reason,
    };

    let mut buf = Vec::with_capacity(64 * 1024);
    let n = reader.read_until(b'\n', &mut buf).map_err(read_error)?;
    if n == 0 {
        return Err(bad_header("the file is empty".into()));
    }
    let mut ends_with_newline = buf.last() == Some(&b'\n');
    let header = SessionHeader::from_line(trim_line(&buf))
        .map_err(|e| bad_header(format!("line 1 is not a session header ({e})")))?;
    let version_digit_at = (header.version == 1 && buf.starts_with(TACK_V1_HEADER))
        .then_some(TACK_V1_HEADER.len() as u64 - 2);

    let mut tree = Tree::default();
    let mut warnings = Vec::new();
    let mut line_no = 1;
    let mut idless_entries = false;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(read_error)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        ends_with_newline = buf.last() == Some(&b'\n');
        let line = trim_line(&buf);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = Entry::from_line(line);
        idless_entries |= parsed.is_err() && is_idless_entry(line);
        match parsed {
            Ok(entry) => match tree.insert_loaded(entry) {
                Ok(None) => {}
                Ok(Some(note)) => warnings.push(LoadWarning {
                    line: line_no,
                    message: note,
                }),
                Err(message) => warnings.push(LoadWarning {
                    line: line_no,
                    message,
                }),
            },
            Err(e) => {
                let message = if ends_with_newline {
                    format!("malformed entry skipped: {e}")
                } else {
                    format!("incomplete last line skipped (the write was cut short): {e}")
                };
                warnings.push(LoadWarning {
                    line: line_no,
                    message,
                });
            }
        }
    }
    if header.version == 1 && tree.entries().is_empty() && idless_entries {
        // Pi's version 1: a list without ids, none of it usable as it is. Appending to it would
        // leave a file neither tool reads right; `tack import` converts it.
        return Err(SessionError::PiVersion1 {
            path: path.to_owned(),
        });
    }
    for warning in &warnings {
        tracing::warn!(path = %path.display(), "{warning}");
    }
    Ok(LoadedFile {
        header,
        tree,
        warnings,
        ends_with_newline,
        version_digit_at,
    })
}

/// An object with a `type` but no `id`: how Pi's version 1 wrote entries.
fn is_idless_entry(line: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line).is_ok_and(|entry| {
        entry.get("type").is_some_and(serde_json::Value::is_string) && !entry.contains_key("id")
    })
}

/// Raises a tack version 1 header to version 3 by overwriting its one version digit.
///
/// Pi reads a version 1 file as its own version 1 (a list without ids) and rewrites it with new
/// ids, which would cut labels and compactions off their targets. Everything else in a tack
/// version 1 file is already version 3 (tack-only fields are ones Pi ignores), so the digit is
/// the whole migration. One byte written at a fixed offset cannot be torn, leaves every other
/// byte as it was, and does not disturb appends by another process; older tack versions do not
/// look at the version.
pub(crate) fn upgrade_header(path: &Path, digit_at: u64, fsync: bool) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    let mut start = vec![0; TACK_V1_HEADER.len()];
    file.read_exact(&mut start)?;
    if start != TACK_V1_HEADER {
        return Err(io::Error::other("the header changed since it was read"));
    }
    file.seek(SeekFrom::Start(digit_at))?;
    file.write_all(b"3")?;
    if fsync {
        file.sync_data()?;
    }
    Ok(())
}

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && matches!(buf[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &buf[..end]
}

/// Appends lines to a session file.
#[derive(Debug)]
pub(crate) struct Writer {
    file: File,
    /// Held while this writer appends: no other process writes the file meanwhile.
    _lock: std::sync::Arc<super::lock::FileLock>,
    path: PathBuf,
    fsync: bool,
    /// Set when the file may end inside a line (a failed or torn write): the next append then
    /// starts with a newline so that its entry is not glued to the fragment.
    needs_newline: bool,
}

fn write_new_file(
    path: &Path,
    lines: impl IntoIterator<Item = String>,
    fsync: bool,
) -> io::Result<()> {
    let file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let mut out = BufWriter::with_capacity(READ_BUFFER, &file);
    for line in lines {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    if fsync {
        file.sync_all()?;
    }
    Ok(())
}

impl Writer {
    /// Creates a new file holding `lines`. Fails if the file exists.
    ///
    /// The lines are written to a temporary file first and linked into place, so a crash never
    /// leaves a session file without its header: such a file would list as nothing (`-c`
    /// skips it) while still being the newest file in the folder.
    pub fn create(
        path: &Path,
        lines: impl IntoIterator<Item = String>,
        fsync: bool,
    ) -> Result<Writer, SessionError> {
        let write_error = |source| SessionError::Write {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_error)?;
        }
        let mut partial_name = path.as_os_str().to_owned();
        partial_name.push(".partial");
        let partial = PathBuf::from(partial_name);
        let written = write_new_file(&partial, lines, fsync).and_then(|()| {
            // A hard link refuses to replace an existing file, as `create_new` would.
            match std::fs::hard_link(&partial, path) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                    std::fs::rename(&partial, path)
                }
                linked => linked,
            }
        });
        let _ = std::fs::remove_file(&partial);
        written.map_err(write_error)?;
        let lock = super::lock::lock(path)?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(write_error)?;
        Ok(Writer {
            file,
            _lock: lock,
            path: path.to_owned(),
            fsync,
            needs_newline: false,
        })
    }

    /// Opens an existing file for appending, once no other process is writing it.
    pub fn open(path: &Path, ends_with_newline: bool, fsync: bool) -> Result<Writer, SessionError> {
        let lock = super::lock::lock(path)?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| SessionError::Write {
                path: path.to_owned(),
                source,
            })?;
        Ok(Writer {
            file,
            _lock: lock,
            path: path.to_owned(),
            fsync,
            needs_newline: !ends_with_newline,
        })
    }

    /// Writes `line` and a newline with one `write_all`, then flushes (and syncs if configured).
    pub fn append(&mut self, line: &str) -> Result<(), SessionError> {
        let mut bytes = Vec::with_capacity(line.len() + 2);
        if self.needs_newline {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let result = self.file.write_all(&bytes).and_then(|()| self.file.flush());
        let result = match result {
            Ok(()) if self.fsync => self.file.sync_data(),
            other => other,
        };
        match result {
            Ok(()) => {
                self.needs_newline = false;
                Ok(())
            }
            Err(source) => {
                self.needs_newline = true;
                Err(SessionError::Write {
                    path: self.path.clone(),
                    source,
                })
            }
        }
    }
}

/// Reads only the header of a session file.
pub(crate) fn read_header(path: &Path) -> Result<SessionHeader, SessionError> {
    let file = File::open(path).map_err(|source| SessionError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    reader
        .read_until(b'\n', &mut buf)
        .map_err(|source| SessionError::Read {
            path: path.to_owned(),
            source,
        })?;
    SessionHeader::from_line(trim_line(&buf)).map_err(|e| SessionError::BadHeader {
        path: path.to_owned(),
        reason: format!("line 1 is not a session header ({e})"),
    })
}

/// Scans the first `max_lines` entries of a file for its first user message's text.
pub(crate) fn first_user_text(path: &Path, max_lines: usize) -> Option<String> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    for _ in 0..=max_lines {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).ok()? == 0 {
            return None;
        }
        if let Ok(entry) = Entry::from_line(trim_line(&buf)) {
            if let Some(crate::message::Message::User(user)) = entry.message().map(|m| &**m) {
                return Some(user.text_content());
            }
        }
    }
    None
}

/// The name of the newest `session_info` entry of the file at `path`. Only lines that mention
/// `session_info` are parsed, so the scan costs little more than reading the file.
pub(crate) fn last_session_name(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut name = None;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).ok()? == 0 {
            return name;
        }
        if !contains(&buf, b"\"session_info\"") {
            continue;
        }
        if let Ok(entry) = Entry::from_line(trim_line(&buf)) {
            if let super::EntryKind::SessionInfo { name: given } = entry.kind {
                name = given;
            }
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

pub(crate) fn io_error(path: &Path, source: io::Error) -> SessionError {
    SessionError::Read {
        path: path.to_owned(),
        source,
    }
}
