//! Running a command outside the command sandbox. A tool call asks with `"unsandboxed": true`
//! (core-tools' `bash` documents it, for a command the sandbox blocked); the host honours it only
//! when a plugin with the `escalation` grant (this one) judged the call and every hook allowed
//! it. So this is where the user decides: never in read-only mode, always in yolo, and otherwise
//! asked, with "always for this project" remembered.
//!
//! What "always" remembers lives in the plugin's data directory, keyed by project, never in the
//! project's own files: a repository must not be able to approve its commands leaving the
//! sandbox. An approval is for the exact call (the command line, or the arguments of another
//! tool), so approving `npm install` approves nothing else.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Whether a tool call asks to leave the sandbox.
pub fn asked(args: &Value) -> bool {
    args.get("unsandboxed") == Some(&Value::Bool(true))
}

/// What an approval is for: a bash call's command line, or another call's arguments without the
/// request itself.
pub fn subject(tool: &str, args: &Value) -> String {
    if tool == "bash" {
        return args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
    }
    let mut rest = args.clone();
    if let Some(fields) = rest.as_object_mut() {
        fields.remove("unsandboxed");
    }
    rest.to_string()
}

#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalFile {
    #[serde(default)]
    allow: Vec<Approval>,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Approval {
    tool: String,
    command: String,
}

/// The user's "always allow outside the sandbox" answers for one project.
pub struct Approvals {
    /// `None` without a data directory: nothing is remembered.
    path: Option<String>,
}

impl Approvals {
    /// Kept at `<data dir>/outside-sandbox/<project key>.toml`.
    pub fn new(data_dir: Option<&str>, project_key: &str) -> Self {
        Approvals {
            path: data_dir.map(|dir| {
                format!(
                    "{}/outside-sandbox/{project_key}.toml",
                    dir.trim_end_matches('/')
                )
            }),
        }
    }

    fn load(&self) -> Result<ApprovalFile, String> {
        let Some(path) = &self.path else {
            return Ok(ApprovalFile::default());
        };
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| format!("{path}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ApprovalFile::default()),
            Err(e) => Err(format!("cannot read {path}: {e}")),
        }
    }

    /// Whether the user approved exactly this call before. An unreadable file approves nothing.
    pub fn allows(&self, tool: &str, command: &str) -> bool {
        self.load().is_ok_and(|file| {
            file.allow
                .iter()
                .any(|a| a.tool == tool && a.command == command)
        })
    }

    pub fn remember(&self, tool: &str, command: &str) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Err("the plugin has no data directory to keep it in".into());
        };
        let mut file = self.load()?;
        let approval = Approval {
            tool: tool.to_string(),
            command: command.to_string(),
        };
        if !file.allow.contains(&approval) {
            file.allow.push(approval);
        }
        if let Some(dir) = std::path::Path::new(path).parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let text = toml::to_string(&file).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_approval_is_for_the_exact_call_and_survives_a_reload() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().to_str().expect("utf8");
        let approvals = Approvals::new(Some(data), "abc-proj");
        let args = json!({ "command": "npm install", "unsandboxed": true });
        assert!(asked(&args));
        assert!(!asked(&json!({ "command": "npm install" })));
        let subject = subject("bash", &args);
        assert_eq!(subject, "npm install");
        assert!(!approvals.allows("bash", &subject));
        approvals.remember("bash", &subject).expect("remember");
        let again = Approvals::new(Some(data), "abc-proj");
        assert!(again.allows("bash", "npm install"));
        assert!(!again.allows("bash", "npm install left-pad"));
        assert!(!Approvals::new(Some(data), "other").allows("bash", "npm install"));
        assert!(!Approvals::new(None, "abc-proj").allows("bash", "npm install"));
    }
}
