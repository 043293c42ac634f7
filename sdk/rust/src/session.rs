//! The current session: read the active branch, keep plugin state in `custom` entries, queue
//! messages for the agent.
//!
//! Besides the generated functions ([`id`], [`branch`], [`append_custom`], [`send_message`]) this
//! module has typed helpers for the usual pattern: append a state snapshot after each change
//! with [`append_state`], and on start read the newest one on the branch with [`latest_state`].
//! Because entries live in the session tree, state found this way follows `/tree` and `/fork`.

pub use crate::bindings::tack::plugin::session::*;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Appends a `custom` entry of type `custom_type` holding `data` as JSON; returns its id.
pub fn append_state(custom_type: &str, data: &impl Serialize) -> Result<String, String> {
    let json = serde_json::to_string(data)
        .map_err(|e| format!("cannot serialize `{custom_type}` state: {e}"))?;
    append_custom(custom_type, &json)
}

/// The entries of the active branch, root first, as stored in the session file.
pub fn entries() -> Result<Vec<Value>, String> {
    serde_json::from_str(&branch()).map_err(|e| format!("malformed session branch from host: {e}"))
}

/// The `data` of every `custom` entry of type `custom_type` on the active branch, oldest first.
pub fn custom_entries(custom_type: &str) -> Result<Vec<Value>, String> {
    Ok(custom_data(&entries()?, custom_type))
}

/// The newest `custom` entry of type `custom_type` on the active branch, deserialized. `Ok(None)`
/// when there is none; an error when the host's answer or the entry is malformed.
pub fn latest_state<T: DeserializeOwned>(custom_type: &str) -> Result<Option<T>, String> {
    // One host lookup instead of serializing the whole branch: hooks read state on every call.
    match latest_custom(custom_type) {
        None => Ok(None),
        Some(data) => serde_json::from_str(&data)
            .map(Some)
            .map_err(|e| format!("malformed `{custom_type}` state in the session: {e}")),
    }
}

/// Picks the `data` of the `custom` entries of one type out of a list of session entries (the
/// shape is `{"type": "custom", "customType": ..., "data": ...}`).
pub fn custom_data(entries: &[Value], custom_type: &str) -> Vec<Value> {
    entries
        .iter()
        .filter(|entry| entry.get("type").and_then(Value::as_str) == Some("custom"))
        .filter(|entry| entry.get("customType").and_then(Value::as_str) == Some(custom_type))
        .map(|entry| entry.get("data").cloned().unwrap_or(Value::Null))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn custom_data_filters_by_type() {
        let entries = vec![
            json!({"type": "message", "id": "1", "message": {}}),
            json!({"type": "custom", "id": "2", "customType": "a", "data": {"n": 1}}),
            json!({"type": "custom", "id": "3", "customType": "b", "data": {"n": 2}}),
            json!({"type": "custom", "id": "4", "customType": "a", "data": {"n": 3}}),
        ];
        assert_eq!(
            custom_data(&entries, "a"),
            vec![json!({"n": 1}), json!({"n": 3})]
        );
    }
}
