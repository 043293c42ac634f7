//! hooks: Claude Code's hooks, run by tack. The shell commands that `~/.claude/settings.json`
//! and a trusted project's `.claude/settings.json` / `.claude/settings.local.json` attach to
//! events (see [`settings`]) run through the `exec` capability with the JSON Claude Code gives
//! them on standard input ([`claude`], [`run`]), and what they answer means what it means there:
//!
//! | event | tack hook | exit 2 / `decision: "block"` | context |
//! |---|---|---|---|
//! | PreToolUse | before-tool-call | the call is blocked; stderr (or the reason) goes to the model | |
//! | PostToolUse | after-tool-call | stderr (or the reason) is added to the result the model reads | `additionalContext` too |
//! | UserPromptSubmit | input | the prompt is dropped; stderr (or the reason) is shown to you | stdout, `additionalContext` |
//! | Stop | agent-end event | the agent goes on, told stderr (or the reason) | |
//! | SessionStart | session-start event | stderr is shown to you | stdout, `additionalContext` |
//! | SessionEnd | session-end event | | |
//! | PreCompact | compaction_start event (0.2.0), matcher `manual` or `auto` | | |
//! | SubagentStop | tool-execution-end event of the `task` tool | | |
//!
//! `hookSpecificOutput.permissionDecision` of PreToolUse: `deny` blocks, `ask` asks you, `allow`
//! lets the call go on to the other policies (it does not overrule permission-gate, as it would
//! overrule Claude Code's own permission check). `hookSpecificOutput.updatedInput` replaces the
//! call's arguments (in Claude Code's shape, mapped back to tack's: `file_path` is `path`,
//! `old_string`/`new_string` an edit's texts); the host has every policy judge the new
//! arguments, as for any rewrite. PreCompact and SubagentStop are told, as in Claude Code, and
//! cannot stop what they are about. `continue: false` stops what the event is about:
//! the call, the prompt, the result (with `stopReason`). Any other exit code is an error shown to
//! you, and the agent carries on. Context reaches the model as a message of this plugin when the
//! next run starts.

mod claude;
mod run;
mod settings;
mod transcript;

use serde::Deserialize;
use serde_json::{json, Value};
use tack_sdk::session::{self, Delivery, OutgoingMessage};
use tack_sdk::{
    events, export_observer, export_plugin, log, ui, AgentStartPatch, ContentBlock, EventKind,
    HookKind, InitContext, InjectedMessage, InputAction, Level, Observer, Plugin, Registration,
    ToolCall, ToolDecision, ToolResult,
};

use crate::run::{clip, Outcome};
use crate::settings::Hook;

/// The custom type of the messages this plugin adds (context, Stop feedback).
const MESSAGE_TYPE: &str = "hook";

/// How many times in a row Stop hooks may send the agent back to work on one prompt, so two
/// hooks that disagree cannot keep it running forever.
const MAX_STOP_CONTINUATIONS: u32 = 8;

#[derive(Deserialize)]
struct Config {
    #[serde(default = "yes")]
    enabled: bool,
    /// The settings files the host found, user first.
    #[serde(default)]
    settings: Vec<Place>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
struct Place {
    path: String,
}

#[derive(Default)]
struct Hooks {
    hooks: Vec<Hook>,
    workspace: String,
    data_dir: String,
    /// The session as Claude Code's transcript, for `transcript_path`.
    transcript: std::cell::RefCell<transcript::Transcript>,
    /// Claude Code's name of the tool call judged last: the one a permission dialog is about.
    last_tool: String,
}

impl Plugin for Hooks {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config =
            serde_json::from_str(&ctx.config).map_err(|e| format!("invalid hooks config: {e}"))?;
        let mut registration = Registration::new();
        if !config.enabled {
            return Ok(registration);
        }
        let paths: Vec<String> = config.settings.into_iter().map(|p| p.path).collect();
        let (files, mut warnings) = settings::read(&paths);
        let (hooks, more) = settings::parse(&files);
        warnings.extend(more);
        for warning in warnings {
            log::warn(format!("hooks: {warning}"));
        }
        if hooks.is_empty() {
            return Ok(registration);
        }
        let Some(data_dir) = ctx.data_dir.clone() else {
            return Err("hooks needs its data directory to hand hooks their input".into());
        };
        self.workspace = ctx.workspace.trim_end_matches('/').to_string();
        self.data_dir = data_dir.trim_end_matches('/').to_string();
        let has = |event: &str| hooks.iter().any(|h| h.event == event);
        // A Notification names the tool a permission dialog is about.
        if has("PreToolUse") || has("Notification") {
            registration = registration.hook(HookKind::BeforeToolCall);
        }
        if has("PostToolUse") {
            registration = registration.hook(HookKind::AfterToolCall);
        }
        if has("UserPromptSubmit") {
            registration = registration.hook(HookKind::Input);
        }
        if has("UserPromptSubmit") || has("SessionStart") {
            registration = registration.hook(HookKind::BeforeAgentStart);
        }
        if has("SessionStart") {
            registration = registration.event(EventKind::SessionStart);
        }
        if has("SessionEnd") {
            registration = registration.event(EventKind::SessionEnd);
        }
        if has("Stop") {
            registration = registration.event(EventKind::AgentEnd);
        }
        if has("SubagentStop") {
            registration = registration.event(EventKind::ToolExecutionEnd);
        }
        if has("PreCompact") {
            events::subscribe(&["compaction_start"])?;
        }
        if has("Notification") {
            events::subscribe(&["dialog_open"])?;
        }
        self.hooks = hooks;
        Ok(registration.command("hooks", "List the Claude Code hooks tack runs"))
    }

    fn run_command(&mut self, name: &str, _args: &str) -> Result<Option<String>, String> {
        if name != "hooks" {
            return Err(format!("unknown command `/{name}`"));
        }
        let mut out = String::from("Claude Code hooks (they run as you):");
        for hook in &self.hooks {
            let matcher = match &hook.matcher {
                settings::Matcher::Any => String::new(),
                settings::Matcher::Exact(name) => format!(" [{name}]"),
                settings::Matcher::Regex(re) => format!(" [{}]", re.as_str()),
            };
            out.push_str(&format!(
                "\n  {}{matcher}: {} (timeout {} s; {})",
                hook.event, hook.command, hook.timeout_secs, hook.source
            ));
        }
        Ok(Some(out))
    }

    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        let tool = claude::tool_name(&call.name);
        self.last_tool = tool.to_string();
        let args = call.args_value().unwrap_or(Value::Null);
        let mut input = self.base("PreToolUse");
        input["tool_name"] = json!(tool);
        input["tool_input"] = claude::tool_input(&call.name, &args, &self.workspace);
        input["tool_use_id"] = json!(call.id);
        let mut blocks: Vec<String> = Vec::new();
        let mut asks: Vec<String> = Vec::new();
        let mut updated: Option<Value> = None;
        for (hook, outcome) in self.run_matching("PreToolUse", &[tool, &call.name], &input) {
            if outcome.blocks() {
                blocks.push(feedback(&outcome.stderr, &hook));
                continue;
            }
            let Some(answer) = outcome.json() else {
                continue;
            };
            let specific = &answer["hookSpecificOutput"];
            let reason = text(&specific["permissionDecisionReason"])
                .or_else(|| text(&answer["reason"]))
                .unwrap_or_default();
            match (
                text(&specific["permissionDecision"]).as_deref(),
                text(&answer["decision"]).as_deref(),
            ) {
                (Some("deny"), _) | (None, Some("block")) => blocks.push(or_named(reason, &hook)),
                (Some("ask"), _) => asks.push(or_named(reason, &hook)),
                _ => {}
            }
            if specific["updatedInput"].is_object() {
                updated = Some(claude::tack_arguments(
                    &call.name,
                    &args,
                    &specific["updatedInput"],
                    &self.workspace,
                ));
            }
            if answer["continue"] == json!(false) {
                blocks.push(or_named(
                    text(&answer["stopReason"]).unwrap_or_default(),
                    &hook,
                ));
            }
        }
        if !blocks.is_empty() {
            return ToolDecision::Block(format!(
                "Blocked by a PreToolUse hook: {}",
                blocks.join("\n")
            ));
        }
        if !asks.is_empty() {
            let title = format!("Allow {tool}? A hook asks");
            if ui::confirm(&title, &asks.join("\n"), None) {
                return rewrite_or_allow(&args, updated);
            }
            return ToolDecision::Block(format!(
                "A PreToolUse hook asked the user about this call, who did not allow it: {}",
                asks.join("\n")
            ));
        }
        rewrite_or_allow(&args, updated)
    }

    fn after_tool_call(&mut self, call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        let tool = claude::tool_name(&call.name);
        let args = call.args_value().unwrap_or(Value::Null);
        let tool_input = claude::tool_input(&call.name, &args, &self.workspace);
        let mut input = self.base("PostToolUse");
        input["tool_name"] = json!(tool);
        input["tool_response"] = claude::tool_response(
            &call.name,
            &tool_input,
            &result.text_content(),
            result.is_error,
        );
        input["tool_input"] = tool_input;
        input["tool_use_id"] = json!(call.id);
        let mut notes: Vec<String> = Vec::new();
        for (hook, outcome) in self.run_matching("PostToolUse", &[tool, &call.name], &input) {
            if outcome.blocks() {
                notes.push(feedback(&outcome.stderr, &hook));
                continue;
            }
            let Some(answer) = outcome.json() else {
                continue;
            };
            if text(&answer["decision"]).as_deref() == Some("block") {
                notes.push(or_named(text(&answer["reason"]).unwrap_or_default(), &hook));
            }
            if let Some(context) = text(&answer["hookSpecificOutput"]["additionalContext"]) {
                notes.push(context);
            }
            if answer["continue"] == json!(false) {
                notes.push(or_named(
                    text(&answer["stopReason"]).unwrap_or_default(),
                    &hook,
                ));
            }
        }
        if notes.is_empty() {
            return None;
        }
        let mut replaced = result.clone();
        replaced.content.push(ContentBlock::Text(format!(
            "\n\nPostToolUse hook feedback:\n{}",
            notes.join("\n")
        )));
        Some(replaced)
    }

    fn on_input(&mut self, text_in: &str) -> InputAction {
        // A prompt of the user's own ends any run of Stop continuations.
        let _ = std::fs::remove_file(self.stop_file());
        let mut input = self.base("UserPromptSubmit");
        input["prompt"] = json!(text_in);
        let mut context: Vec<String> = Vec::new();
        for (hook, outcome) in self.run_matching("UserPromptSubmit", &[], &input) {
            if outcome.blocks() {
                ui::notify(
                    Level::Warn,
                    &format!(
                        "A UserPromptSubmit hook blocked your prompt: {}",
                        feedback(&outcome.stderr, &hook)
                    ),
                );
                return InputAction::Handled;
            }
            match outcome.json() {
                Some(answer) => {
                    let stop = answer["continue"] == json!(false);
                    if stop || text(&answer["decision"]).as_deref() == Some("block") {
                        let reason = text(&answer["reason"])
                            .or_else(|| text(&answer["stopReason"]))
                            .unwrap_or_default();
                        ui::notify(
                            Level::Warn,
                            &format!(
                                "A UserPromptSubmit hook blocked your prompt: {}",
                                or_named(reason, &hook)
                            ),
                        );
                        return InputAction::Handled;
                    }
                    if let Some(more) = text(&answer["hookSpecificOutput"]["additionalContext"]) {
                        context.push(more);
                    }
                }
                None if outcome.code == Some(0) && !outcome.stdout.trim().is_empty() => {
                    context.push(clip(outcome.stdout.trim()));
                }
                None => {}
            }
        }
        self.add_context(&context);
        InputAction::Continue
    }

    fn before_agent_start(&mut self, _prompt: &str, _system_prompt: &str) -> AgentStartPatch {
        let file = self.context_file();
        let pending = std::fs::read_to_string(&file).unwrap_or_default();
        let _ = std::fs::remove_file(&file);
        let mut patch = AgentStartPatch::default();
        if !pending.trim().is_empty() {
            patch.inject.push(InjectedMessage {
                custom_type: MESSAGE_TYPE.into(),
                text: format!("Context from hooks:\n{}", pending.trim()),
                display: true,
            });
        }
        patch
    }

    fn on_event(&mut self, kind: EventKind, data: &str) {
        match kind {
            EventKind::SessionStart => self.session_start(data),
            EventKind::SessionEnd => {
                let mut input = self.base("SessionEnd");
                // Claude Code's reasons: `/clear` is tack's `/new`; the rest is "other".
                input["reason"] = json!(match reason(data).as_deref() {
                    Some("new") => "clear",
                    _ => "other",
                });
                let _ = self.run_matching("SessionEnd", &[], &input);
            }
            EventKind::AgentEnd => self.stop(),
            EventKind::ToolExecutionEnd => {
                let ended: Value = serde_json::from_str(data).unwrap_or(Value::Null);
                if ended["tool_name"] == json!("task") {
                    let mut input = self.base("SubagentStop");
                    input["stop_hook_active"] = json!(false);
                    let _ = self.run_matching("SubagentStop", &[], &input);
                }
            }
            _ => {}
        }
    }
}

impl Observer for Hooks {
    fn on_named_event(&mut self, name: &str, data: &str) {
        match name {
            "compaction_start" => self.pre_compact(data),
            "dialog_open" => self.notification(data),
            _ => {}
        }
    }
}

impl Hooks {
    /// Claude Code's Notification for a dialog that waits for the user: a permission prompt
    /// when the permission gate asks (about the tool call it judges), else a question of
    /// another plugin's. The dialog's own text is not given to plugins, so it is not here.
    fn notification(&self, data: &str) {
        let event: Value = serde_json::from_str(data).unwrap_or(Value::Null);
        let plugin = event["plugin"].as_str().unwrap_or("a plugin");
        let (kind, message) = if plugin == "permission-gate" {
            let tool = match self.last_tool.as_str() {
                "" => "a tool",
                tool => tool,
            };
            (
                "permission_prompt",
                format!("tack needs your permission to use {tool}"),
            )
        } else {
            (
                "elicitation_dialog",
                format!("tack is waiting for your answer to {plugin}"),
            )
        };
        let mut input = self.base("Notification");
        input["message"] = json!(message);
        input["notification_type"] = json!(kind);
        let _ = self.run_matching("Notification", &[kind], &input);
    }

    fn pre_compact(&self, data: &str) {
        let event: Value = serde_json::from_str(data).unwrap_or(Value::Null);
        let trigger = match event["reason"].as_str() {
            Some("manual") => "manual",
            _ => "auto",
        };
        let mut input = self.base("PreCompact");
        input["trigger"] = json!(trigger);
        // What `/compact <focus>` asked for, as Claude Code passes `/compact <instructions>`.
        input["custom_instructions"] =
            json!(event["custom_instructions"].as_str().unwrap_or_default());
        let _ = self.run_matching("PreCompact", &[trigger], &input);
    }
}

/// The hooks' new arguments when they differ from the call's, else the call as it is.
fn rewrite_or_allow(args: &Value, updated: Option<Value>) -> ToolDecision {
    match updated {
        Some(new) if &new != args => ToolDecision::Rewrite(new.to_string()),
        _ => ToolDecision::Allow,
    }
}

impl Hooks {
    /// The fields every event's input has.
    fn base(&self, event: &str) -> Value {
        json!({
            "session_id": session::id(),
            // Filled in when a hook is about to run (`with_transcript`).
            "transcript_path": "",
            "cwd": self.workspace,
            "permission_mode": "default",
            "hook_event_name": event,
        })
    }

    /// Runs the hooks of `event` whose matcher takes one of `names` (every hook when `names` is
    /// empty: those events have no matcher), in order. Errors are shown to the user.
    fn run_matching(&self, event: &str, names: &[&str], input: &Value) -> Vec<(Hook, Outcome)> {
        let mut done = Vec::new();
        let matching: Vec<&Hook> = self
            .hooks
            .iter()
            .filter(|hook| hook.event == event)
            .filter(|hook| names.is_empty() || hook.matcher.matches(names))
            .collect();
        if matching.is_empty() {
            return done;
        }
        let input = &self.with_transcript(input);
        for hook in matching {
            let outcome = run::run(hook, input, &self.workspace, &self.data_dir);
            if let Some(error) = outcome.error(hook) {
                log::warn(error.clone());
                ui::notify(Level::Warn, &error);
            }
            if let Some(answer) = outcome.json() {
                if let Some(message) = text(&answer["systemMessage"]) {
                    ui::notify(Level::Info, &message);
                }
            }
            done.push((hook.clone(), outcome));
        }
        done
    }

    /// `input` with `transcript_path` naming the session as Claude Code's transcript, brought
    /// up to date now; without it (a session the host would not show, a full disk) hooks get an
    /// empty path, as when Claude Code has none.
    fn with_transcript(&self, input: &Value) -> Value {
        let mut input = input.clone();
        let id = session::id();
        let path = format!("{}/transcript-{}.jsonl", self.data_dir, safe(&id));
        let refreshed = session::entries().and_then(|entries| {
            self.transcript
                .borrow_mut()
                .refresh(&path, &id, &entries, &self.workspace)
                .map_err(|e| format!("{path}: {e}"))
        });
        match refreshed {
            Ok(()) => input["transcript_path"] = json!(path),
            Err(e) => log::warn(format!("hooks: no transcript for the hooks: {e}")),
        }
        input
    }

    fn session_start(&self, data: &str) {
        let _ = std::fs::remove_file(self.stop_file());
        let resumed = session::entries()
            .map(|entries| entries.iter().any(|entry| entry["type"] == "message"))
            .unwrap_or(false);
        let mut input = self.base("SessionStart");
        // Claude Code's sources: `/clear` is tack's `/new`; a session with messages (resumed,
        // forked, reloaded or continued) is a resume.
        input["source"] = json!(match reason(data).as_deref() {
            Some("new") => "clear",
            _ if resumed => "resume",
            _ => "startup",
        });
        let mut context = Vec::new();
        for (hook, outcome) in self.run_matching("SessionStart", &[], &input) {
            if outcome.blocks() {
                ui::notify(Level::Warn, &feedback(&outcome.stderr, &hook));
            } else if let Some(answer) = outcome.json() {
                if let Some(more) = text(&answer["hookSpecificOutput"]["additionalContext"]) {
                    context.push(more);
                }
            } else if outcome.code == Some(0) && !outcome.stdout.trim().is_empty() {
                context.push(clip(outcome.stdout.trim()));
            }
        }
        self.add_context(&context);
    }

    /// Stop hooks: one that blocks sends the agent back to work with its reason.
    fn stop(&self) {
        let file = self.stop_file();
        let count: u32 = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let mut input = self.base("Stop");
        input["stop_hook_active"] = json!(count > 0);
        let mut reasons = Vec::new();
        for (hook, outcome) in self.run_matching("Stop", &[], &input) {
            if outcome.blocks() {
                reasons.push(feedback(&outcome.stderr, &hook));
            } else if let Some(answer) = outcome.json() {
                if answer["continue"] != json!(false)
                    && text(&answer["decision"]).as_deref() == Some("block")
                {
                    reasons.push(or_named(text(&answer["reason"]).unwrap_or_default(), &hook));
                }
            }
        }
        if reasons.is_empty() || count >= MAX_STOP_CONTINUATIONS {
            if !reasons.is_empty() {
                ui::notify(
                    Level::Warn,
                    &format!(
                        "Stop hooks sent the agent back {MAX_STOP_CONTINUATIONS} times in a row; it stops here"
                    ),
                );
            }
            let _ = std::fs::remove_file(&file);
            return;
        }
        let _ = std::fs::write(&file, (count + 1).to_string());
        session::send_message(
            &OutgoingMessage {
                custom_type: Some(MESSAGE_TYPE.into()),
                text: format!("A Stop hook asks you to continue: {}", reasons.join("\n")),
                display: true,
            },
            Delivery::Steer,
        );
    }

    /// Keeps context for the next run's start. A file, not a field: the input hook and the
    /// agent-start hook may run on different instances of the plugin.
    fn add_context(&self, context: &[String]) {
        if context.is_empty() {
            return;
        }
        let file = self.context_file();
        let mut pending = std::fs::read_to_string(&file).unwrap_or_default();
        for piece in context {
            pending.push_str(piece);
            pending.push('\n');
        }
        if let Err(e) = std::fs::write(&file, pending) {
            log::warn(format!("hooks: cannot keep hook context in {file}: {e}"));
        }
    }

    fn context_file(&self) -> String {
        format!("{}/context-{}.txt", self.data_dir, safe(&session::id()))
    }

    fn stop_file(&self) -> String {
        format!("{}/stop-{}.txt", self.data_dir, safe(&session::id()))
    }
}

/// A session id as a file name part.
fn safe(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(80)
        .collect()
}

/// A JSON string, trimmed, when it is one and not empty.
fn text(value: &Value) -> Option<String> {
    value
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// What a hook printed to stderr, or its command when it printed nothing.
fn feedback(stderr: &str, hook: &Hook) -> String {
    or_named(clip(stderr.trim()), hook)
}

fn or_named(reason: String, hook: &Hook) -> String {
    if reason.is_empty() {
        format!("hook `{}` said no", hook.command)
    } else {
        reason
    }
}

export_plugin!(Hooks);
export_observer!(Hooks);

/// The `reason` tack's session-start and session-end events carry (startup, reload, new,
/// resume, fork, quit).
fn reason(data: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(data)
        .ok()?
        .get("reason")?
        .as_str()
        .map(str::to_string)
}
