//! Session file lines: the header and the entries, and their exact JSON shapes.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::pi_format::PiMessage;
use crate::message::Message;

/// Version written in new session headers: Pi's format version 3, which tack's files are (see
/// the module `pi_format`). Files of tack's own earlier version 1 are read as well.
pub const SESSION_VERSION: u32 = 3;

/// First line of a session file: `{"type":"session","version":3,"id":…,"timestamp":…,"cwd":…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    /// Pi's version 1 files have none.
    #[serde(default = "first_version")]
    pub version: u32,
    /// Session id, stable for the file.
    pub id: String,
    /// Creation time, RFC 3339.
    pub timestamp: String,
    /// Working directory the session belongs to.
    pub cwd: String,
    /// Path of the session this one was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
}

fn first_version() -> u32 {
    1
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum HeaderLine {
    Session(SessionHeader),
}

impl SessionHeader {
    pub(crate) fn to_line(&self) -> String {
        serialize_line(&HeaderLine::Session(self.clone()))
    }

    pub(crate) fn from_line(line: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice::<HeaderLine>(line).map(|HeaderLine::Session(header)| header)
    }
}

/// One entry of the session tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// 8 hex characters, unique in the file.
    pub id: String,
    /// `None` for a root.
    pub parent_id: Option<String>,
    /// RFC 3339.
    pub timestamp: String,
    pub kind: EntryKind,
    /// The line exactly as read, when writing the entry back would not reproduce it (a line Pi
    /// wrote, with fields tack does not model, or an older tack shape): copies of the entry
    /// (forks, plugins' view of the branch) then keep every field. `None` for entries tack
    /// writes itself.
    pub verbatim: Option<Verbatim>,
}

/// The JSON text of a line kept as read.
#[derive(Debug, Clone)]
pub struct Verbatim(Box<RawValue>);

impl Verbatim {
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for Verbatim {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    Message(Arc<Message>),
    ModelChange {
        provider: String,
        model_id: String,
    },
    ThinkingLevelChange {
        thinking_level: String,
    },
    Compaction {
        summary: String,
        first_kept_entry_id: String,
        tokens_before: u64,
        details: Option<Value>,
    },
    BranchSummary {
        from_id: String,
        summary: String,
        details: Option<Value>,
    },
    /// Plugin state; never reaches the model. It belongs to the plugin that wrote it: only that
    /// plugin reads it back. Entries without an owner (older sessions, the host's own) belong to
    /// no plugin.
    Custom {
        custom_type: String,
        data: Value,
        owner: Option<String>,
    },
    /// A plugin's message; the model sees it as user text.
    CustomMessage {
        custom_type: String,
        content: String,
        display: bool,
        details: Option<Value>,
    },
    /// Sets (or with `None` clears) the label of another entry.
    Label {
        target_id: String,
        label: Option<String>,
    },
    SessionInfo {
        name: Option<String>,
    },
    /// An entry type this version does not know, kept exactly as read.
    Unknown(UnknownEntry),
}

/// The verbatim JSON of an entry whose type is not known to this version.
#[derive(Debug, Clone)]
pub struct UnknownEntry {
    pub entry_type: String,
    pub raw: Box<RawValue>,
}

impl PartialEq for UnknownEntry {
    fn eq(&self, other: &Self) -> bool {
        self.entry_type == other.entry_type && self.raw.get() == other.raw.get()
    }
}

impl EntryKind {
    /// The `type` field written for this entry.
    pub fn type_name(&self) -> &str {
        match self {
            EntryKind::Message(_) => "message",
            EntryKind::ModelChange { .. } => "model_change",
            EntryKind::ThinkingLevelChange { .. } => "thinking_level_change",
            EntryKind::Compaction { .. } => "compaction",
            EntryKind::BranchSummary { .. } => "branch_summary",
            EntryKind::Custom { .. } => "custom",
            EntryKind::CustomMessage { .. } => "custom_message",
            EntryKind::Label { .. } => "label",
            EntryKind::SessionInfo { .. } => "session_info",
            EntryKind::Unknown(unknown) => &unknown.entry_type,
        }
    }
}

/// Borrowed view used to write entries, `type` first, then the common fields.
#[derive(Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum EntryOut<'a> {
    Message {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        message: PiMessage<'a>,
    },
    ModelChange {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        provider: &'a str,
        model_id: &'a str,
    },
    ThinkingLevelChange {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        thinking_level: &'a str,
    },
    Compaction {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        summary: &'a str,
        first_kept_entry_id: &'a str,
        tokens_before: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<&'a Value>,
    },
    BranchSummary {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        from_id: &'a str,
        summary: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<&'a Value>,
    },
    Custom {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        custom_type: &'a str,
        data: &'a Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        owner: Option<&'a str>,
    },
    CustomMessage {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        custom_type: &'a str,
        content: &'a str,
        display: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<&'a Value>,
    },
    Label {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        target_id: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        label: Option<&'a str>,
    },
    SessionInfo {
        id: &'a str,
        parent_id: Option<&'a str>,
        timestamp: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a str>,
    },
}

/// Owned shape read from a line. `Unknown` is resolved by the caller, which holds the line.
#[derive(Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum EntryIn {
    Message {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        message: Arc<Message>,
    },
    ModelChange {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        provider: String,
        model_id: String,
    },
    ThinkingLevelChange {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        thinking_level: String,
    },
    Compaction {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        summary: String,
        first_kept_entry_id: String,
        tokens_before: u64,
        details: Option<Value>,
    },
    BranchSummary {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        from_id: String,
        summary: String,
        details: Option<Value>,
    },
    Custom {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        custom_type: String,
        #[serde(default)]
        data: Value,
        #[serde(default)]
        owner: Option<String>,
    },
    CustomMessage {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        custom_type: String,
        #[serde(deserialize_with = "crate::message::text_string_or_blocks")]
        content: String,
        #[serde(default)]
        display: bool,
        details: Option<Value>,
    },
    Label {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        target_id: String,
        label: Option<String>,
    },
    SessionInfo {
        id: String,
        parent_id: Option<String>,
        timestamp: String,
        name: Option<String>,
    },
    #[serde(other)]
    Unknown,
}

/// Roles of [`Message`] (and Pi version 2's name for `custom`).
const KNOWN_ROLES: &[&str] = &[
    "user",
    "assistant",
    "toolResult",
    "custom",
    "branchSummary",
    "compactionSummary",
    "hookMessage",
];

#[derive(Deserialize)]
struct MessageRoleProbe {
    #[serde(rename = "type")]
    entry_type: String,
    message: RoleProbe,
}

#[derive(Deserialize)]
struct RoleProbe {
    role: String,
}

/// The common fields of an entry of unknown type.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UnknownProbe {
    #[serde(rename = "type")]
    entry_type: String,
    id: String,
    parent_id: Option<String>,
    #[serde(default)]
    timestamp: String,
}

impl Entry {
    /// The line written to the session file (without the newline).
    pub fn to_line(&self) -> String {
        let id = self.id.as_str();
        let parent_id = self.parent_id.as_deref();
        let timestamp = self.timestamp.as_str();
        let out = match &self.kind {
            _ if self.verbatim.is_some() => {
                return self
                    .verbatim
                    .as_ref()
                    .map(|v| v.get().to_owned())
                    .unwrap_or_default()
            }
            EntryKind::Unknown(unknown) => return unknown.raw.get().to_owned(),
            EntryKind::Message(message) => EntryOut::Message {
                id,
                parent_id,
                timestamp,
                message: PiMessage(message),
            },
            EntryKind::ModelChange { provider, model_id } => EntryOut::ModelChange {
                id,
                parent_id,
                timestamp,
                provider,
                model_id,
            },
            EntryKind::ThinkingLevelChange { thinking_level } => EntryOut::ThinkingLevelChange {
                id,
                parent_id,
                timestamp,
                thinking_level,
            },
            EntryKind::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
                details,
            } => EntryOut::Compaction {
                id,
                parent_id,
                timestamp,
                summary,
                first_kept_entry_id,
                tokens_before: *tokens_before,
                details: details.as_ref(),
            },
            EntryKind::BranchSummary {
                from_id,
                summary,
                details,
            } => EntryOut::BranchSummary {
                id,
                parent_id,
                timestamp,
                from_id,
                summary,
                details: details.as_ref(),
            },
            EntryKind::Custom {
                custom_type,
                data,
                owner,
            } => EntryOut::Custom {
                id,
                parent_id,
                timestamp,
                custom_type,
                data,
                owner: owner.as_deref(),
            },
            EntryKind::CustomMessage {
                custom_type,
                content,
                display,
                details,
            } => EntryOut::CustomMessage {
                id,
                parent_id,
                timestamp,
                custom_type,
                content,
                display: *display,
                details: details.as_ref(),
            },
            EntryKind::Label { target_id, label } => EntryOut::Label {
                id,
                parent_id,
                timestamp,
                target_id,
                label: label.as_deref(),
            },
            EntryKind::SessionInfo { name } => EntryOut::SessionInfo {
                id,
                parent_id,
                timestamp,
                name: name.as_deref(),
            },
        };
        serialize_line(&out)
    }

    /// Parses one line of a session file (not the header). A line that writing the entry back
    /// would not reproduce is kept verbatim.
    pub fn from_line(line: &[u8]) -> Result<Entry, serde_json::Error> {
        let mut entry = Entry::parse_line(line)?;
        if !matches!(entry.kind, EntryKind::Unknown(_)) && entry.to_line().as_bytes() != line {
            let raw: Box<RawValue> = serde_json::from_slice::<&RawValue>(line)?.to_owned();
            entry.verbatim = Some(Verbatim(raw));
        }
        Ok(entry)
    }

    fn parse_line(line: &[u8]) -> Result<Entry, serde_json::Error> {
        let parsed = match serde_json::from_slice::<EntryIn>(line) {
            Ok(parsed) => parsed,
            // A message of a role tack has no type for (Pi's `bashExecution`, or a role a later
            // Pi adds) is kept as it is, like an entry of an unknown type.
            Err(e) => match serde_json::from_slice::<MessageRoleProbe>(line) {
                Ok(probe)
                    if probe.entry_type == "message"
                        && !KNOWN_ROLES.contains(&probe.message.role.as_str()) =>
                {
                    return Entry::unknown_from_line(line)
                }
                _ => return Err(e),
            },
        };
        let (id, parent_id, timestamp, kind) = match parsed {
            EntryIn::Message {
                id,
                parent_id,
                timestamp,
                message,
            } => (id, parent_id, timestamp, EntryKind::Message(message)),
            EntryIn::ModelChange {
                id,
                parent_id,
                timestamp,
                provider,
                model_id,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::ModelChange { provider, model_id },
            ),
            EntryIn::ThinkingLevelChange {
                id,
                parent_id,
                timestamp,
                thinking_level,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::ThinkingLevelChange { thinking_level },
            ),
            EntryIn::Compaction {
                id,
                parent_id,
                timestamp,
                summary,
                first_kept_entry_id,
                tokens_before,
                details,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::Compaction {
                    summary,
                    first_kept_entry_id,
                    tokens_before,
                    details,
                },
            ),
            EntryIn::BranchSummary {
                id,
                parent_id,
                timestamp,
                from_id,
                summary,
                details,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::BranchSummary {
                    from_id,
                    summary,
                    details,
                },
            ),
            EntryIn::Custom {
                id,
                parent_id,
                timestamp,
                custom_type,
                data,
                owner,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::Custom {
                    custom_type,
                    data,
                    owner,
                },
            ),
            EntryIn::CustomMessage {
                id,
                parent_id,
                timestamp,
                custom_type,
                content,
                display,
                details,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::CustomMessage {
                    custom_type,
                    content,
                    display,
                    details,
                },
            ),
            EntryIn::Label {
                id,
                parent_id,
                timestamp,
                target_id,
                label,
            } => (
                id,
                parent_id,
                timestamp,
                EntryKind::Label { target_id, label },
            ),
            EntryIn::SessionInfo {
                id,
                parent_id,
                timestamp,
                name,
            } => (id, parent_id, timestamp, EntryKind::SessionInfo { name }),
            EntryIn::Unknown => return Entry::unknown_from_line(line),
        };
        Ok(Entry {
            id,
            parent_id,
            timestamp,
            kind,
            verbatim: None,
        })
    }

    fn unknown_from_line(line: &[u8]) -> Result<Entry, serde_json::Error> {
        let probe: UnknownProbe = serde_json::from_slice(line)?;
        let raw: Box<RawValue> = serde_json::from_slice::<&RawValue>(line)?.to_owned();
        Ok(Entry {
            id: probe.id,
            parent_id: probe.parent_id,
            timestamp: probe.timestamp,
            kind: EntryKind::Unknown(UnknownEntry {
                entry_type: probe.entry_type,
                raw,
            }),
            verbatim: None,
        })
    }

    /// The message this entry carries, if it is a `message` entry.
    pub fn message(&self) -> Option<&Arc<Message>> {
        match &self.kind {
            EntryKind::Message(message) => Some(message),
            _ => None,
        }
    }

    /// The entry as a JSON value, exactly as stored (for plugins' `session.branch`).
    pub fn to_json(&self) -> Value {
        serde_json::from_str(&self.to_line()).unwrap_or(Value::Null)
    }
}

fn serialize_line<T: Serialize>(value: &T) -> String {
    // The types written here hold only strings, numbers, booleans, `serde_json::Value`s and maps
    // with string keys, for which serde_json cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(line: &str) -> Entry {
        let entry = Entry::from_line(line.as_bytes()).unwrap();
        assert_eq!(entry.to_line(), line);
        entry
    }

    #[test]
    fn header_round_trips() {
        let line = r#"{"type":"session","version":1,"id":"0190","timestamp":"2024-12-01T00:00:00.000Z","cwd":"/w","parentSession":"/s/a.jsonl"}"#;
        let header = SessionHeader::from_line(line.as_bytes()).unwrap();
        assert_eq!(header.parent_session.as_deref(), Some("/s/a.jsonl"));
        assert_eq!(header.to_line(), line);
        assert!(SessionHeader::from_line(br#"{"type":"message","id":"x"}"#).is_err());
    }

    #[test]
    fn every_entry_type_round_trips() {
        let entry = round_trip(
            r#"{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2024-12-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}"#,
        );
        assert!(entry.message().is_some());
        assert_eq!(entry.parent_id, None);
        round_trip(
            r#"{"type":"model_change","id":"00000001","parentId":"a1b2c3d4","timestamp":"t","provider":"anthropic","modelId":"claude"}"#,
        );
        round_trip(
            r#"{"type":"thinking_level_change","id":"00000002","parentId":"00000001","timestamp":"t","thinkingLevel":"high"}"#,
        );
        round_trip(
            r#"{"type":"compaction","id":"00000003","parentId":"00000002","timestamp":"t","summary":"s","firstKeptEntryId":"00000001","tokensBefore":100,"details":{"readFiles":["a"]}}"#,
        );
        round_trip(
            r#"{"type":"branch_summary","id":"00000004","parentId":"00000003","timestamp":"t","fromId":"00000002","summary":"s"}"#,
        );
        round_trip(
            r#"{"type":"custom","id":"00000005","parentId":"00000004","timestamp":"t","customType":"todo","data":{"items":[]}}"#,
        );
        round_trip(
            r#"{"type":"custom_message","id":"00000006","parentId":"00000005","timestamp":"t","customType":"plan","content":"c","display":true,"details":{"x":1}}"#,
        );
        round_trip(
            r#"{"type":"label","id":"00000007","parentId":"00000006","timestamp":"t","targetId":"00000001","label":"start"}"#,
        );
        round_trip(
            r#"{"type":"session_info","id":"00000008","parentId":"00000007","timestamp":"t","name":"refactor"}"#,
        );
    }

    #[test]
    fn unknown_entries_are_kept_verbatim() {
        let line = r#"{"type":"future_thing","id":"0000000a","parentId":"00000009","timestamp":"t","payload":{"b":2,"a":[1, 2]}}"#;
        let entry = Entry::from_line(line.as_bytes()).unwrap();
        assert_eq!(entry.kind.type_name(), "future_thing");
        assert_eq!(entry.parent_id.as_deref(), Some("00000009"));
        assert_eq!(entry.to_line(), line);
    }

    #[test]
    fn entries_missing_fields_are_errors() {
        assert!(Entry::from_line(br#"{"type":"message","id":"x"}"#).is_err());
        assert!(Entry::from_line(br#"{"id":"x"}"#).is_err());
        assert!(Entry::from_line(br#"{"type":"strange"}"#).is_err());
        assert!(Entry::from_line(b"not json").is_err());
    }
}
