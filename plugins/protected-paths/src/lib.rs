//! protected-paths: a before-tool-call hook that blocks writes to files an agent should not
//! touch: `.env*` files, `.git/`, `node_modules/`, lock files, plus the globs configured in
//! `extra`, minus those in `allow`.
//!
//! `write` and `edit` are judged by their `path`; `bash` by the files its command line obviously
//! writes (see [`bash`]). Paths may be relative (to the workspace) or absolute. Every block names
//! the rule that matched, so the model can tell the user why.

mod bash;
mod rules;

use serde::Deserialize;
use tack_sdk::{
    export_plugin, HookKind, InitContext, Plugin, Registration, ToolCall, ToolDecision,
};

use crate::rules::{Rule, Rules};

#[derive(Default)]
struct ProtectedPaths {
    workspace: String,
    rules: Option<Rules>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    extra: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
}

#[derive(Deserialize)]
struct PathArgs {
    path: String,
}

#[derive(Deserialize)]
struct BashArgs {
    command: String,
}

impl Plugin for ProtectedPaths {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid protected-paths config: {e}"))?;
        self.rules = Some(Rules::new(&config.extra, &config.allow)?);
        self.workspace = ctx.workspace.clone();
        Ok(Registration::new().hook(HookKind::BeforeToolCall))
    }

    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        let Some(rules) = &self.rules else {
            return ToolDecision::Block("protected-paths was called before init".into());
        };
        let ws = self.workspace.as_str();
        match call.name.as_str() {
            "write" | "edit" => match call.args::<PathArgs>() {
                Ok(args) => match rules.protecting(ws, ws, &args.path) {
                    Some(rule) => ToolDecision::Block(reason(&call.name, &args.path, rule)),
                    None => ToolDecision::Allow,
                },
                // The tool reports malformed arguments itself.
                Err(_) => ToolDecision::Allow,
            },
            "bash" => {
                let Ok(args) = call.args::<BashArgs>() else {
                    return ToolDecision::Allow;
                };
                // A line the shell cannot parse does not run at all.
                let Ok(analysis) = policy_common::commands::analyze(&args.command) else {
                    return ToolDecision::Allow;
                };
                for target in bash::write_targets(&analysis, ws) {
                    if let Some(rule) = rules.protecting(ws, &target.base, &target.path) {
                        return ToolDecision::Block(format!(
                            "{} (in `{}`)",
                            reason("bash", &target.path, rule),
                            target.command
                        ));
                    }
                }
                ToolDecision::Allow
            }
            _ => ToolDecision::Allow,
        }
    }
}

fn reason(tool: &str, path: &str, rule: &Rule) -> String {
    format!(
        "protected-paths: {tool} may not write `{path}`: it matches the protected-paths rule \
         `{}` ({}). If the change is really needed, tell the user and let them make it.",
        rule.pattern, rule.why
    )
}

export_plugin!(ProtectedPaths);
