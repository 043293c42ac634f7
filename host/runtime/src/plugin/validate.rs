//! What a plugin registers is checked before anything is called: tool names and their schemas,
//! and no tool or command twice.

use crate::api::{Registration, ToolSpec};
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
        check_tool_spec(tool).map_err(conflict)?;
        if !seen.insert(tool.name.as_str()) {
            return Err(conflict(format!("registers tool '{}' twice", tool.name)));
        }
    }
    let mut commands = std::collections::HashSet::new();
    for command in &registration.commands {
        crate::plugin_set::check_command_name(&command.name).map_err(conflict)?;
        if !commands.insert(command.name.as_str()) {
            return Err(conflict(format!(
                "registers command '/{}' twice",
                command.name
            )));
        }
    }
    Ok(())
}

/// A tool's name is `[a-zA-Z0-9_-]{1,64}` and its parameters a JSON Schema object; the message
/// names the tool and what is wrong.
pub(crate) fn check_tool_spec(tool: &ToolSpec) -> Result<(), String> {
    let name_ok = !tool.name.is_empty()
        && tool.name.len() <= 64
        && tool
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !name_ok {
        return Err(format!(
            "tool name '{}' must be 1-64 of [a-zA-Z0-9_-]",
            tool.name
        ));
    }
    match serde_json::from_str::<serde_json::Value>(&tool.parameters) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        Ok(_) => Err(format!(
            "tool '{}': parameters must be a JSON Schema object",
            tool.name
        )),
        Err(e) => Err(format!(
            "tool '{}': parameters are not valid JSON: {e}",
            tool.name
        )),
    }
}
