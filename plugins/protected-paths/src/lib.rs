//! protected-paths: a before-tool-call hook that blocks writes to files an agent should not
//! touch: `.env*` files, `.git/`, `.tack/`, `node_modules/`, lock files, plus the globs configured in
//! `extra`, minus those in `allow`.
//!
//! `write` and `edit` are judged by their `path`; `bash` by the files its command line obviously
//! writes (see [`bash`]). Paths may be relative (to the workspace) or absolute, and are judged
//! where they really lead: symlinks inside the workspace are followed (`setup.cfg ->
//! .git/config` is `.git/config`), and a path after a `cd` is judged from every directory the
//! line may be in. A path that cannot be known (`$DIR/x`, or relative after `cd ~`) is judged by
//! its name alone. Every block names the rule that matched, so the model can tell the user why.

mod bash;
mod rules;

use serde::Deserialize;
use tack_sdk::{
    export_plugin, HookKind, InitContext, Plugin, Registration, ToolCall, ToolDecision,
};

use policy_common::place::{self, Place};

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
                Ok(args) => {
                    let lexical = policy_common::paths::absolute(ws, &args.path);
                    let real = place::resolve(ws, &lexical);
                    let found = rules
                        .protecting(ws, &lexical)
                        .or_else(|| rules.protecting(ws, &real));
                    match found {
                        Some(rule) => ToolDecision::Block(reason(
                            &call.name,
                            &shown(&args.path, &lexical, &real),
                            rule,
                        )),
                        None => ToolDecision::Allow,
                    }
                }
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
                for target in bash::write_targets_of(&args.command, &analysis, ws) {
                    let found = match &target.place {
                        Place::Known(paths) => paths
                            .iter()
                            .find_map(|p| rules.protecting(ws, p).map(|r| (r, p.clone()))),
                        Place::Unknown(_) => rules
                            .protecting_name(&target.raw)
                            .map(|r| (r, target.raw.clone())),
                    };
                    if let Some((rule, path)) = found {
                        let lexical = policy_common::paths::absolute(ws, &target.raw);
                        return ToolDecision::Block(format!(
                            "{} (in `{}`)",
                            reason("bash", &shown(&target.raw, &lexical, &path), rule),
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

/// The path as typed, and where it leads when that is elsewhere.
fn shown(raw: &str, lexical: &str, real: &str) -> String {
    if lexical == real || raw == real {
        raw.to_string()
    } else {
        format!("{raw}` (which leads to `{real}")
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
