//! What plan mode lets through: read-only tools, and `bash` only for read-only command lines.

use policy_common::readonly::{self, Trust};
use serde::Deserialize;
use tack_sdk::{ToolCall, ToolDecision};

/// The tools plan mode keeps active, when they exist.
pub const READ_ONLY_TOOLS: &[&str] = &[
    "read",
    "ls",
    "find",
    "grep",
    "bash",
    "bash_output",
    "bash_kill",
    "todo",
    // Reading the web changes nothing here; permission-gate still asks per domain.
    "web_fetch",
    "web_search",
];

#[derive(Deserialize)]
struct BashArgs {
    command: String,
}

/// The decision for `call` while plan mode is on, in a project the user trusts or not.
pub fn decide(call: &ToolCall, trust: Trust) -> ToolDecision {
    match call.name.as_str() {
        "write" | "edit" => ToolDecision::Block(format!(
            "plan mode: `{}` is blocked because you are planning, not changing anything yet. \
             Finish exploring with read-only tools, then present your plan as numbered steps \
             under a `Plan:` heading; the user will decide whether to execute it.",
            call.name
        )),
        "bash" => match call.args::<BashArgs>() {
            Ok(args) => match readonly::check_line(&args.command, trust) {
                Ok(()) => ToolDecision::Allow,
                Err(why) => ToolDecision::Block(format!(
                    "plan mode: only read-only commands may run while planning ({why}). Use \
                     commands such as ls, cat, head, grep, rg, find, wc or git status/log/diff/show \
                     without redirections, and put the change itself into your plan."
                )),
            },
            Err(e) => ToolDecision::Block(format!("plan mode: {e}")),
        },
        name if READ_ONLY_TOOLS.contains(&name) => ToolDecision::Allow,
        other => ToolDecision::Block(format!(
            "plan mode: `{other}` is not available while planning; only {} may be used.",
            READ_ONLY_TOOLS.join(", ")
        )),
    }
}

/// The active set plan mode asks for: the read-only tools that are registered.
pub fn plan_tools(all: &[String]) -> Vec<String> {
    all.iter()
        .filter(|t| READ_ONLY_TOOLS.contains(&t.as_str()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: args.to_string(),
        }
    }

    fn decide_trusted(call: &ToolCall) -> ToolDecision {
        decide(call, Trust::Trusted)
    }

    #[test]
    fn untrusted_projects_keep_their_git_configuration_out() {
        let status = call("bash", serde_json::json!({"command": "git status"}));
        assert_eq!(decide(&status, Trust::Trusted), ToolDecision::Allow);
        let blocked = decide(&status, Trust::Untrusted);
        assert!(
            matches!(blocked, ToolDecision::Block(ref r) if r.contains("not trusted")),
            "{blocked:?}"
        );
        let escape = call(
            "bash",
            serde_json::json!({"command": "git -C vendor/evil status"}),
        );
        assert!(matches!(
            decide(&escape, Trust::Trusted),
            ToolDecision::Block(_)
        ));
    }

    #[test]
    fn writes_are_blocked_reads_allowed() {
        let edit = decide_trusted(&call("edit", serde_json::json!({"path": "a", "edits": []})));
        assert!(
            matches!(edit, ToolDecision::Block(ref r) if r.contains("Plan:")),
            "{edit:?}"
        );
        assert_eq!(
            decide_trusted(&call("read", serde_json::json!({"path": "a"}))),
            ToolDecision::Allow
        );
        assert_eq!(
            decide_trusted(&call(
                "bash",
                serde_json::json!({"command": "git status && ls"})
            )),
            ToolDecision::Allow
        );
        let rm = decide_trusted(&call(
            "bash",
            serde_json::json!({"command": "ls; rm -rf x"}),
        ));
        assert!(
            matches!(rm, ToolDecision::Block(ref r) if r.contains("rm -rf x")),
            "{rm:?}"
        );
        assert!(matches!(
            decide_trusted(&call("webfetch", serde_json::json!({}))),
            ToolDecision::Block(_)
        ));
    }

    #[test]
    fn plan_tools_keep_only_registered_read_only_tools() {
        let all: Vec<String> = ["read", "write", "bash", "word_count"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(plan_tools(&all), vec!["read", "bash"]);
    }
}
