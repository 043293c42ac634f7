//! Validation of tool-call arguments against each tool's JSON Schema.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::tools::ToolSpec;

/// Compiled validators, by tool name, rebuilt when a tool's schema changes.
#[derive(Default)]
pub(crate) struct SchemaCache {
    validators: Mutex<HashMap<String, (Value, Arc<jsonschema::Validator>)>>,
}

/// Errors listed in a message at most; the model needs the first few to fix its call.
const MAX_REPORTED: usize = 8;

impl SchemaCache {
    /// `Err` holds a message for the model naming each offending field.
    pub fn check(&self, spec: &ToolSpec, arguments: &Value) -> Result<(), String> {
        let validator = self.validator(spec)?;
        let mut problems = String::new();
        let mut count = 0;
        for error in validator.iter_errors(arguments) {
            count += 1;
            if count > MAX_REPORTED {
                continue;
            }
            let path = error.instance_path().as_str();
            if path.is_empty() {
                let _ = write!(problems, "\n- {error}");
            } else {
                let _ = write!(problems, "\n- at {path}: {error}");
            }
        }
        if count == 0 {
            return Ok(());
        }
        if count > MAX_REPORTED {
            let _ = write!(problems, "\n- … and {} more", count - MAX_REPORTED);
        }
        Err(format!(
            "Invalid arguments for tool `{}`:{problems}",
            spec.name
        ))
    }

    fn validator(&self, spec: &ToolSpec) -> Result<Arc<jsonschema::Validator>, String> {
        // Validation runs outside the lock; only lookups and inserts hold it.
        let mut validators = crate::sync::lock(&self.validators);
        if let Some((schema, validator)) = validators.get(&spec.name) {
            if *schema == spec.parameters {
                return Ok(Arc::clone(validator));
            }
        }
        let validator = jsonschema::validator_for(&spec.parameters)
            .map(Arc::new)
            .map_err(|e| {
                format!(
                    "Tool `{}` declares an invalid parameter schema ({e}); it cannot be called.",
                    spec.name
                )
            })?;
        validators.insert(
            spec.name.clone(),
            (spec.parameters.clone(), Arc::clone(&validator)),
        );
        Ok(validator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tools::ExecutionMode;
    use serde_json::json;

    fn spec(parameters: Value) -> ToolSpec {
        ToolSpec {
            name: "read".into(),
            label: "Read".into(),
            description: "d".into(),
            parameters,
            mode: ExecutionMode::Parallel,
            prompt_snippet: None,
        }
    }

    #[test]
    fn names_the_offending_fields() {
        let cache = SchemaCache::default();
        let spec = spec(json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["path"],
            "additionalProperties": false
        }));
        assert!(cache
            .check(&spec, &json!({"path": "a", "limit": 2}))
            .is_ok());
        let err = cache.check(&spec, &json!({"limit": 0})).unwrap_err();
        assert!(
            err.starts_with("Invalid arguments for tool `read`:"),
            "{err}"
        );
        assert!(err.contains("\"path\" is a required property"), "{err}");
        assert!(err.contains("at /limit:"), "{err}");
        let err = cache.check(&spec, &json!({"path": 5})).unwrap_err();
        assert!(err.contains("at /path:"), "{err}");
    }

    #[test]
    fn invalid_schemas_are_reported() {
        let cache = SchemaCache::default();
        let err = cache
            .check(&spec(json!({"type": "no-such-type"})), &json!({}))
            .unwrap_err();
        assert!(err.contains("invalid parameter schema"), "{err}");
    }
}
