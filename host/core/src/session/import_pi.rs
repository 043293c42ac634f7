//! Importing Pi sessions (`tack import <file>`).
//!
//! Pi's session files are tack's ancestors: the same header line, the same tree of entries with
//! `id`/`parentId`, the same message shapes. An import therefore keeps every entry, its id and
//! its place in the tree, and only brings over what differs:
//! - version 1 files (a linear list without ids) get ids and parent links, and their
//!   compactions' `firstKeptEntryIndex` becomes a `firstKeptEntryId`, as Pi's own migration does;
//! - version 2's `hookMessage` role is version 3's `custom`;
//! - `bashExecution` messages (the user's `!command`) become custom messages holding the text
//!   Pi showed the model, or `custom` entries when Pi kept them out of the context (`!!`);
//! - messages of roles tack does not know are kept as `custom` entries, out of the context;
//! - missing message timestamps are taken from their entry, numeric entry timestamps become
//!   RFC 3339, a plain-string tool result becomes a text block.
//!
//! The result is a new tack session (new id, written beside the others of its cwd) whose last
//! entry records where it came from; `tack -r <id>` continues it.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use chrono::SecondsFormat;
use serde_json::{json, Map, Value};

use super::entry::{Entry, EntryKind};
use super::file::{LoadWarning, Writer};
use super::pi_format::bash_execution_text;
use super::{new_header, Session, SessionError, SessionStore};

/// The `customType` of the entry that records an import.
pub const IMPORT_CUSTOM_TYPE: &str = "tack-import";

/// A Pi session imported as a tack session.
#[derive(Debug)]
pub struct Imported {
    pub session: Session,
    /// The Pi file's format version.
    pub pi_version: u64,
    /// Entries brought over (the import record not counted).
    pub entries: usize,
    /// Lines that could not be used, and what was changed to fit.
    pub warnings: Vec<LoadWarning>,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a Pi session file: {reason}", path.display())]
    NotPi { path: PathBuf, reason: String },
    #[error("{} is a Pi session of version {version}; versions 1 to 3 can be imported", path.display())]
    UnsupportedVersion { path: PathBuf, version: u64 },
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Imports the Pi session at `source` into a new session of `store`. The session belongs to the
/// Pi session's cwd (`fallback_cwd` when its header has none).
pub fn import_pi(
    source: &Path,
    store: &SessionStore,
    fallback_cwd: &Path,
) -> Result<Imported, ImportError> {
    let read_error = |source_error| ImportError::Read {
        path: source.to_owned(),
        source: source_error,
    };
    let not_pi = |reason: String| ImportError::NotPi {
        path: source.to_owned(),
        reason,
    };
    let file = File::open(source).map_err(read_error)?;
    let mut lines = BufReader::new(file).lines().enumerate();

    let pi_header = loop {
        let Some((_, line)) = lines.next() else {
            return Err(not_pi("the file is empty".into()));
        };
        let line = line.map_err(read_error)?;
        if line.trim().is_empty() {
            continue;
        }
        break serde_json::from_str::<Value>(&line)
            .ok()
            .filter(|v| v.get("type").and_then(Value::as_str) == Some("session"))
            .ok_or_else(|| not_pi("its first line is not a session header".into()))?;
    };
    let version = pi_header
        .get("version")
        .and_then(Value::as_u64)
        .unwrap_or(1);
    if !(1..=3).contains(&version) {
        return Err(ImportError::UnsupportedVersion {
            path: source.to_owned(),
            version,
        });
    }
    let cwd = pi_header
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| fallback_cwd.to_owned());

    let mut converter = Converter::new(version);
    for (index, line) in lines {
        let line = line.map_err(read_error)?;
        if !line.trim().is_empty() {
            converter.line(index + 1, &line);
        }
    }

    let header = new_header(&cwd, None);
    let path = store.path_for(&header);
    let record = converter.import_record(source, &pi_header, version);
    let entries = converter.entries.len();
    let mut out_lines = Vec::with_capacity(entries + 2);
    out_lines.push(header.to_line());
    out_lines.extend(converter.entries.iter().map(Entry::to_line));
    out_lines.push(record.to_line());
    drop(Writer::create(&path, out_lines, store.options().fsync)?);
    let (session, load_warnings) = Session::open(&path, store.options())?;
    let mut warnings = converter.warnings;
    warnings.extend(load_warnings);
    Ok(Imported {
        session,
        pi_version: version,
        entries,
        warnings,
    })
}

/// Turns Pi lines into tack entries, one at a time.
struct Converter {
    version: u64,
    entries: Vec<Entry>,
    ids: HashMap<String, usize>,
    /// Id of every entry read, in order (version 1 compactions point at entries by index).
    read_ids: Vec<String>,
    seen: HashSet<String>,
    /// Entries that could not be used → their parent, so their children attach above them.
    dropped: HashMap<String, Option<String>>,
    warnings: Vec<LoadWarning>,
}

impl Converter {
    fn new(version: u64) -> Self {
        Converter {
            version,
            entries: Vec::new(),
            ids: HashMap::new(),
            read_ids: Vec::new(),
            seen: HashSet::new(),
            dropped: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    fn warn(&mut self, line: usize, message: String) {
        self.warnings.push(LoadWarning { line, message });
    }

    fn line(&mut self, line_no: usize, line: &str) {
        let mut value = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return self.warn(line_no, "not a JSON object; skipped".into()),
            Err(e) => return self.warn(line_no, format!("malformed line skipped: {e}")),
        };
        // Pi's version 1 entries have no ids (a tack file, also version 1, has them).
        if self.version == 1 && !value.contains_key("id") {
            self.add_tree_links(&mut value);
        }
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        self.read_ids.push(id.clone());
        self.seen.insert(id.clone());
        normalize_timestamp(&mut value);
        self.resolve_parent(&mut value);
        if value.get("type").and_then(Value::as_str) == Some("message") {
            if let Some(note) = convert_message(&mut value) {
                self.warn(line_no, note);
            }
        }
        let parent = value
            .get("parentId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let parsed = serde_json::to_vec(&Value::Object(value))
            .map_err(|e| e.to_string())
            .and_then(|bytes| Entry::from_line(&bytes).map_err(|e| e.to_string()));
        match parsed {
            Ok(entry) if self.ids.contains_key(&entry.id) => {
                self.warn(
                    line_no,
                    format!("duplicate entry id {:?}; entry skipped", entry.id),
                );
            }
            Ok(entry) => {
                self.ids.insert(entry.id.clone(), self.entries.len());
                self.entries.push(entry);
            }
            Err(e) => {
                self.warn(line_no, format!("entry skipped: {e}"));
                if !id.is_empty() {
                    self.dropped.insert(id, parent);
                }
            }
        }
    }

    /// Version 1: entries have no ids; each follows the previous one.
    fn add_tree_links(&mut self, value: &mut Map<String, Value>) {
        let id = loop {
            let id = format!("{:08x}", rand::random::<u32>());
            if !self.seen.contains(&id) {
                break id;
            }
        };
        let parent = self.read_ids.last().cloned();
        value.insert("id".into(), Value::String(id));
        value.insert("parentId".into(), parent.map_or(Value::Null, Value::String));
        if let Some(index) = value.remove("firstKeptEntryIndex").and_then(|v| v.as_u64()) {
            // Pi counts the header as entry 0.
            let kept = usize::try_from(index)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| self.read_ids.get(i))
                .cloned();
            if let Some(kept) = kept {
                value.insert("firstKeptEntryId".into(), Value::String(kept));
            }
        }
    }

    /// A parent that was skipped is replaced by its nearest kept ancestor.
    fn resolve_parent(&self, value: &mut Map<String, Value>) {
        let mut parent = value
            .get("parentId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        while let Some(id) = parent.as_deref() {
            match self.dropped.get(id) {
                Some(grandparent) => parent = grandparent.clone(),
                None => break,
            }
        }
        value.insert("parentId".into(), parent.map_or(Value::Null, Value::String));
    }

    /// The entry recording the import, after the last entry read (Pi's leaf).
    fn import_record(&self, source: &Path, pi_header: &Value, version: u64) -> Entry {
        let id = loop {
            let id = format!("{:08x}", rand::random::<u32>());
            if !self.seen.contains(&id) {
                break id;
            }
        };
        Entry {
            id,
            parent_id: self.entries.last().map(|e| e.id.clone()),
            timestamp: super::now_rfc3339(),
            kind: EntryKind::Custom {
                custom_type: IMPORT_CUSTOM_TYPE.into(),
                data: json!({
                    "from": "pi",
                    "path": source.display().to_string(),
                    "sessionId": pi_header.get("id").cloned().unwrap_or(Value::Null),
                    "version": version,
                }),
                owner: None,
            },
            verbatim: None,
        }
    }
}

/// Pi writes entry timestamps as RFC 3339 strings, but tolerates epoch milliseconds.
fn normalize_timestamp(value: &mut Map<String, Value>) {
    let stamp = match value.get("timestamp") {
        Some(Value::String(_)) => return,
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true)),
        _ => None,
    };
    value.insert("timestamp".into(), Value::String(stamp.unwrap_or_default()));
}

/// Brings a `message` entry's message to tack's shapes. Returns a note when the entry was
/// changed in a way worth telling.
fn convert_message(entry: &mut Map<String, Value>) -> Option<String> {
    let entry_ms = entry
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map_or(0, |t| t.timestamp_millis());
    let Some(Value::Object(message)) = entry.get_mut("message") else {
        return None;
    };
    if !message.get("timestamp").is_some_and(Value::is_i64) {
        message.insert("timestamp".into(), json!(entry_ms));
    }
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match role.as_str() {
        "user" | "assistant" | "custom" | "branchSummary" | "compactionSummary" => None,
        "hookMessage" => {
            message.insert("role".into(), json!("custom"));
            None
        }
        "toolResult" => {
            if let Some(Value::String(text)) = message.get("content") {
                let blocks = json!([{"type": "text", "text": text}]);
                message.insert("content".into(), blocks);
            }
            None
        }
        "bashExecution" => {
            let message = Value::Object(std::mem::take(message));
            if message.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                into_custom_entry(entry, "pi-bash-execution", message);
            } else {
                let text = bash_execution_text(&message);
                entry.insert(
                    "message".into(),
                    json!({
                        "role": "custom",
                        "customType": "bashExecution",
                        "content": text,
                        "display": true,
                        "details": message,
                        "timestamp": message.get("timestamp").cloned().unwrap_or(json!(entry_ms)),
                    }),
                );
            }
            None
        }
        other => {
            let note = format!(
                "message of role {other:?} kept as a custom entry (outside the model's context)"
            );
            let message = Value::Object(std::mem::take(message));
            into_custom_entry(entry, "pi-message", message);
            Some(note)
        }
    }
}

fn into_custom_entry(entry: &mut Map<String, Value>, custom_type: &str, data: Value) {
    entry.remove("message");
    entry.insert("type".into(), json!("custom"));
    entry.insert("customType".into(), json!(custom_type));
    entry.insert("data".into(), data);
}
