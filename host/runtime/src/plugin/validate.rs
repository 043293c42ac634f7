//! What a plugin registers is checked before anything is called: tool names and their schemas,
//! and no tool or command twice.

use crate::api::Registration;
use crate::error::LoadError;

pub(super) fn validate_registration(
    plugin: &str,
    registration: &Registration,
) -> Result<(), LoadError> {
    let conflict = |message: String| LoadError::InvalidRegistration {
        plugin: plugin.into(),
        message,
    };
    let mut seen = std::collections::HashSet::new();
    for tool in &registration.tools {
        let name_ok = !tool.name.is_empty()
            && tool.name.len() <= 64
            && tool
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            return Err(conflict(format!(
                "tool name '{}' must be 1-64 of [a-zA-Z0-9_-]",
                tool.name
            )));
        }
        if !seen.insert(tool.name.as_str()) {
            return Err(conflict(format!("registers tool '{}' twice", tool.name)));
        }
        match serde_json::from_str::<serde_json::Value>(&tool.parameters) {
            Ok(serde_json::Value::Object(_)) => {}
            Ok(_) => {
                return Err(conflict(format!(
                    "tool '{}': parameters must be a JSON Schema object",
                    tool.name
                )))
            }
            Err(e) => {
                return Err(conflict(format!(
                    "tool '{}': parameters are not valid JSON: {e}",
                    tool.name
                )))
            }
        }
    }
    let mut commands = std::collections::HashSet::new();
    for command in &registration.commands {
        if !commands.insert(command.name.as_str()) {
            return Err(conflict(format!(
                "registers command '/{}' twice",
                command.name
            )));
        }
    }
    Ok(())
}
