//! A plugin whose hooks do what its configuration says, so the host's chaining of several
//! plugins (first block wins, rewrites and replacements chain, failures fail closed or open) can
//! be tested with real components. Load it several times under different names.
//!
//! Configuration: one key per hook it should subscribe to, each an object whose `do` picks the
//! behaviour; `tag` (default "hooks") marks what it adds.
//! ```json
//! {
//!   "tag": "A",
//!   "before_tool_call": {"do": "allow" | "trap" | "not_an_object"}
//!                     | {"do": "block"}            // reason names the tag and the arguments seen
//!                     | {"do": "block_path", "path": "x"}  // blocks only calls with that path
//!                     | {"do": "rewrite", "set": {"path": "x"}},  // merged into the arguments
//!   "after_tool_call": {"do": "append"} | {"do": "trap"},   // appends " [tag]" to the text
//!   "input": {"do": "append"} | {"do": "handled"} | {"do": "trap"},
//!   "before_agent_start": {"do": "append"} | {"do": "inject"} | {"do": "trap"},
//!   "context": {"do": "append"} | {"do": "trap"}   // appends " [tag]" to the last user text
//! }
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};
use tack_sdk::{
    export_plugin, AgentStartPatch, ContentBlock, HookKind, InitContext, InjectedMessage,
    InputAction, Plugin, Registration, ToolCall, ToolDecision, ToolResult,
};

#[derive(Default)]
struct Hooks {
    config: Config,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    tag: Option<String>,
    before_tool_call: Option<Behaviour>,
    after_tool_call: Option<Behaviour>,
    input: Option<Behaviour>,
    before_agent_start: Option<Behaviour>,
    context: Option<Behaviour>,
}

#[derive(Clone, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
enum Behaviour {
    Allow,
    Block,
    BlockPath { path: String },
    Rewrite { set: Map<String, Value> },
    NotAnObject,
    Append,
    Handled,
    Inject,
    Trap,
}

impl Hooks {
    fn tag(&self) -> String {
        self.config.tag.clone().unwrap_or_else(|| "hooks".into())
    }
}

fn trap(hook: &str) -> ! {
    panic!("tack-test-hooks: deliberate trap in {hook}")
}

impl Plugin for Hooks {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        self.config = serde_json::from_str(&ctx.config).map_err(|e| e.to_string())?;
        let mut reg = Registration::new();
        let c = &self.config;
        for (present, hook) in [
            (c.before_tool_call.is_some(), HookKind::BeforeToolCall),
            (c.after_tool_call.is_some(), HookKind::AfterToolCall),
            (c.input.is_some(), HookKind::Input),
            (c.before_agent_start.is_some(), HookKind::BeforeAgentStart),
            (c.context.is_some(), HookKind::Context),
        ] {
            if present {
                reg = reg.hook(hook);
            }
        }
        Ok(reg)
    }

    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        match self.config.before_tool_call.clone() {
            Some(Behaviour::Block) => ToolDecision::Block(format!(
                "blocked by {} after seeing {}",
                self.tag(),
                call.arguments
            )),
            Some(Behaviour::BlockPath { path })
                if call
                    .args_value()
                    .ok()
                    .and_then(|a| a["path"].as_str().map(str::to_owned))
                    == Some(path.clone()) =>
            {
                ToolDecision::Block(format!("blocked by {} on path {path}", self.tag()))
            }
            Some(Behaviour::Rewrite { set }) => {
                let mut args = match call.args_value() {
                    Ok(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                args.extend(set);
                ToolDecision::Rewrite(Value::Object(args).to_string())
            }
            Some(Behaviour::NotAnObject) => ToolDecision::Rewrite("[1, 2]".into()),
            Some(Behaviour::Trap) => trap("before-tool-call"),
            _ => ToolDecision::Allow,
        }
    }

    fn after_tool_call(&mut self, _call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        match self.config.after_tool_call {
            Some(Behaviour::Append) => Some(ToolResult {
                content: vec![ContentBlock::Text(format!(
                    "{} [{}]",
                    result.text_content(),
                    self.tag()
                ))],
                details: result.details.clone(),
                is_error: result.is_error,
            }),
            Some(Behaviour::Trap) => trap("after-tool-call"),
            _ => None,
        }
    }

    fn on_input(&mut self, text: &str) -> InputAction {
        match self.config.input {
            Some(Behaviour::Append) => InputAction::Transform(format!("{text} [{}]", self.tag())),
            Some(Behaviour::Handled) => InputAction::Handled,
            Some(Behaviour::Trap) => trap("input"),
            _ => InputAction::Continue,
        }
    }

    fn before_agent_start(&mut self, _prompt: &str, system_prompt: &str) -> AgentStartPatch {
        match self.config.before_agent_start {
            Some(Behaviour::Append) => AgentStartPatch {
                append_system_prompt: Some(format!(
                    "[{}] saw {} characters",
                    self.tag(),
                    system_prompt.chars().count()
                )),
                ..AgentStartPatch::default()
            },
            Some(Behaviour::Inject) => AgentStartPatch {
                inject: vec![InjectedMessage {
                    custom_type: "tack-test-hooks".into(),
                    text: format!("injected by {}", self.tag()),
                    display: false,
                }],
                ..AgentStartPatch::default()
            },
            Some(Behaviour::Trap) => trap("before-agent-start"),
            _ => AgentStartPatch::default(),
        }
    }

    fn context(&mut self, messages: &str) -> Option<String> {
        match self.config.context {
            Some(Behaviour::Append) => {
                let mut list: Vec<Value> = serde_json::from_str(messages).ok()?;
                let tag = self.tag();
                let user = list
                    .iter_mut()
                    .rev()
                    .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
                let block = user.get_mut("content")?.as_array_mut()?.last_mut()?;
                let text = block.get("text").and_then(Value::as_str)?.to_string();
                block["text"] = Value::String(format!("{text} [{tag}]"));
                serde_json::to_string(&list).ok()
            }
            Some(Behaviour::Trap) => trap("context"),
            _ => None,
        }
    }
}

export_plugin!(Hooks);
