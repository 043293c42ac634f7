//! The session part of [`HostServices`](super::HostServices): what a plugin reads of the
//! session, and the state it keeps there.

use std::sync::OnceLock;

use tack_core::session::{EntryKind, SessionHandle};

/// A plugin's view of the session. Every method answers for `plugin` only: it sees no other
/// plugin's state and appends entries it owns.
pub trait PluginSession: Send + Sync + 'static {
    fn session_id(&self) -> String;

    /// The active branch as a JSON array of session entries, without other plugins' custom
    /// state (see `Session::branch_json_for`).
    fn session_branch(&self, plugin: &str) -> String;

    /// Every entry of every branch as a JSON array, filtered as [`session_branch`]
    /// (`tack:plugin/control`, 0.2.0).
    ///
    /// [`session_branch`]: Self::session_branch
    fn session_entries(&self, plugin: &str) -> String;

    /// The session's header without its host paths (`cwd`, `parentSession`), as a JSON object.
    fn session_header(&self) -> String;

    /// The id of the active branch's last entry.
    fn leaf_id(&self) -> Option<String>;

    /// The data of `plugin`'s own newest `custom` entry of `custom_type` on the active branch.
    fn latest_custom(&self, plugin: &str, custom_type: &str) -> Option<String>;

    /// Appends a `custom` entry owned by `plugin`; returns its id.
    fn append_custom(&self, plugin: &str, custom_type: &str, data: &str) -> Result<String, String>;

    /// The host's own record of what `plugin` did, as a `custom` entry the plugin owns but could
    /// not have written itself (`custom_type` is one `append_custom` refuses).
    fn record_for(
        &self,
        plugin: &str,
        custom_type: &str,
        data: serde_json::Value,
    ) -> Result<String, String>;

    /// The session's name (`tack:plugin/control`, 0.2.0).
    fn session_name(&self) -> Option<String>;

    /// Names the session as `/name` does.
    fn set_session_name(&self, name: &str) -> Result<(), String>;

    /// Labels entry `entry_id` (or clears its label) as `/label` does.
    fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), String>;
}

/// The longest session name or entry label a plugin may write: what a session list or `/tree`
/// shows on one line.
pub const MAX_LABEL_CHARS: usize = 200;

/// A name or label a plugin gives: one line, not empty, at most [`MAX_LABEL_CHARS`].
fn one_line(what: &str, text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    if text.contains(['\n', '\r']) {
        return Err(format!("the {what} must be one line"));
    }
    let chars = text.chars().count();
    if chars > MAX_LABEL_CHARS {
        return Err(format!(
            "the {what} has {chars} characters; at most {MAX_LABEL_CHARS} are allowed"
        ));
    }
    Ok(text.to_string())
}

/// The session a run has open, attached once it exists (plugins are loaded before it).
#[derive(Default)]
pub struct SessionServices {
    session: OnceLock<SessionHandle>,
}

impl SessionServices {
    pub fn attach(&self, session: SessionHandle) {
        let _ = self.session.set(session);
    }
}

impl PluginSession for SessionServices {
    fn session_id(&self) -> String {
        self.session
            .get()
            .map(|s| s.lock().id().to_string())
            .unwrap_or_default()
    }

    fn session_branch(&self, plugin: &str) -> String {
        let Some(session) = self.session.get() else {
            return "[]".into();
        };
        session.lock().branch_json_for(plugin).to_string()
    }

    fn session_entries(&self, plugin: &str) -> String {
        let Some(session) = self.session.get() else {
            return "[]".into();
        };
        session.lock().entries_json_for(plugin).to_string()
    }

    fn session_header(&self) -> String {
        let Some(session) = self.session.get() else {
            return "null".into();
        };
        let session = session.lock();
        let header = session.header();
        serde_json::json!({
            "type": "session",
            "version": header.version,
            "id": header.id,
            "timestamp": header.timestamp,
        })
        .to_string()
    }

    fn leaf_id(&self) -> Option<String> {
        self.session.get()?.lock().leaf_id().map(str::to_string)
    }

    fn latest_custom(&self, plugin: &str, custom_type: &str) -> Option<String> {
        let session = self.session.get()?.lock();
        session
            .plugin_state(plugin, custom_type)
            .map(|data| data.to_string())
    }

    fn append_custom(&self, plugin: &str, custom_type: &str, data: &str) -> Result<String, String> {
        if custom_type == crate::children::TRANSCRIPT_ENTRY_TYPE {
            // The host writes these for the children it ran; the session's stats trust them.
            return Err(format!(
                "custom type '{custom_type}' is reserved for the host's sub-agent transcripts"
            ));
        }
        if custom_type == crate::bridge::REPLACED_REQUEST_ENTRY_TYPE {
            return Err(format!(
                "custom type '{custom_type}' is reserved for the host's record of replaced \
                 provider requests"
            ));
        }
        let data: serde_json::Value = serde_json::from_str(data)
            .map_err(|e| format!("custom entry data is not JSON: {e}"))?;
        self.record_for(plugin, custom_type, data)
    }

    fn record_for(
        &self,
        plugin: &str,
        custom_type: &str,
        data: serde_json::Value,
    ) -> Result<String, String> {
        let session = self.session.get().ok_or("no session is open")?;
        let mut session = session.lock();
        let entry = session
            .append_plugin_state(plugin, custom_type, data)
            .map_err(|e| e.to_string())?;
        Ok(entry.id.clone())
    }

    fn session_name(&self) -> Option<String> {
        self.session.get()?.lock().name().map(str::to_string)
    }

    fn set_session_name(&self, name: &str) -> Result<(), String> {
        let name = one_line("session name", name)?;
        let session = self.session.get().ok_or("no session is open")?;
        session
            .lock()
            .append(EntryKind::SessionInfo { name: Some(name) })
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), String> {
        let label = label.map(|l| one_line("label", l)).transpose()?;
        let session = self.session.get().ok_or("no session is open")?;
        let mut session = session.lock();
        if session.entry(entry_id).is_none() {
            return Err(format!("no entry '{entry_id}' in this session"));
        }
        session
            .append(EntryKind::Label {
                target_id: entry_id.to_string(),
                label,
            })
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
