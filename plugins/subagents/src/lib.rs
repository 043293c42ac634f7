//! subagents: the `task` tool hands a piece of work to a child agent (a sub-agent) that runs in
//! a context of its own and returns only its conclusion, so a long investigation does not flood
//! the main conversation. The child is one of the agents defined as Markdown files (see
//! [`definitions`]) or, without one, a general agent with the parent's tools and model.
//! `/agents` lists the definitions. The host runs the child (`tack:agents`), within its limits
//! and under every policy plugin; this plugin only chooses what to ask for.

mod definitions;
mod listing;

use std::path::PathBuf;

use serde::Deserialize;
use tack_sdk::agents::{self as child, ChildTask};
use tack_sdk::serde_json::json;
use tack_sdk::{
    agent, export_plugin, log, InitContext, Plugin, Registration, ToolCall, ToolResult, ToolSpec,
};

use crate::definitions::AgentDef;

/// The tool's name, also left out of a general child's tools (a child cannot start children
/// unless the host allows deeper nesting, so offering it would only waste a call).
const TASK_TOOL: &str = "task";

#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    enabled: bool,
    #[serde(default)]
    dirs: Vec<Place>,
    /// Claude Code's agent folders (`~/.claude/agents`, a trusted project's `.claude/agents`).
    #[serde(default)]
    claude_dirs: Vec<Place>,
}

#[derive(Deserialize)]
struct Place {
    path: PathBuf,
    scope: String,
}

#[derive(Deserialize)]
struct TaskArgs {
    description: String,
    prompt: String,
    #[serde(default)]
    agent: Option<String>,
}

#[derive(Default)]
struct Subagents {
    agents: Vec<AgentDef>,
}

impl Plugin for Subagents {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = tack_sdk::serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid subagents config: {e}"))?;
        // Agents defined in Claude Code's folders ask for the task tool, as they do there.
        let claude_agents = config.claude_dirs.iter().any(|p| {
            !definitions::load(&[(p.path.clone(), p.scope.clone())])
                .0
                .is_empty()
        });
        if !config.enabled && !claude_agents {
            return Ok(Registration::new());
        }
        let places: Vec<(PathBuf, String)> = config
            .claude_dirs
            .into_iter()
            .chain(config.dirs)
            .map(|p| (p.path, p.scope))
            .collect();
        let (agents, warnings) = definitions::load(&places);
        for warning in warnings {
            log::warn(format!("agent definition {warning}"));
        }
        self.agents = agents;
        let spec = ToolSpec::new(
            TASK_TOOL,
            "Task",
            listing::tool_description(&self.agents),
            listing::schema(&self.agents),
        )
        .snippet("task: hand a self-contained piece of work to a sub-agent and get its answer");
        Ok(Registration::new()
            .tool(spec)
            .command("agents", "List the sub-agents the task tool can start"))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        if call.name != TASK_TOOL {
            return ToolResult::error(format!("unknown tool `{}`", call.name));
        }
        let args: TaskArgs = match call.args() {
            Ok(args) => args,
            Err(e) => return ToolResult::error(e),
        };
        let definition = match &args.agent {
            None => None,
            Some(name) => match self.agents.iter().find(|a| &a.name == name) {
                Some(found) => Some(found),
                None => {
                    let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
                    return ToolResult::error(format!(
                        "no agent named '{name}' (defined: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ));
                }
            },
        };
        let tools = match definition.and_then(|d| d.tools.clone()) {
            Some(tools) => tools,
            None => agent::active_tools()
                .into_iter()
                .filter(|t| t != TASK_TOOL)
                .collect(),
        };
        let mut task = ChildTask::new(args.description.clone(), args.prompt).tools(tools);
        if let Some(prompt) = definition
            .map(|d| d.system_prompt.clone())
            .filter(|p| !p.is_empty())
        {
            task = task.system_prompt(prompt);
        }
        if let Some(model) = definition.and_then(|d| d.model.clone()) {
            task = task.model(model);
        }
        let agent_name = definition.map(|d| d.name.as_str());
        match child::run(&task) {
            Ok(result) => answer(&args.description, agent_name, result),
            Err(e) => ToolResult::error(e.describe()),
        }
    }

    fn run_command(&mut self, name: &str, _args: &str) -> Result<Option<String>, String> {
        match name {
            "agents" => Ok(Some(listing::command_text(&self.agents))),
            other => Err(format!("unknown command /{other}")),
        }
    }
}

/// The tool result: the child's text for the model, what it cost for front ends.
fn answer(description: &str, agent: Option<&str>, result: child::ChildResult) -> ToolResult {
    let status = result.status.as_str();
    let mut text = result.text.clone();
    let failed = !result.status.is_done();
    if !matches!(result.status, child::ChildStatus::Completed) {
        let why = result.error.clone().unwrap_or_else(|| status.to_string());
        let note = format!("[sub-agent {status}: {why}]");
        text = if text.is_empty() {
            note
        } else {
            format!("{text}\n\n{note}")
        };
    }
    if text.is_empty() {
        text = "[the sub-agent gave no answer]".into();
    }
    let u = &result.usage;
    let details = json!({
        "subagent": {
            "description": description,
            "agent": agent,
            "status": status,
            "model": result.model,
            "entryId": result.entry_id,
            "usage": {
                "input": u.input, "output": u.output, "cacheRead": u.cache_read,
                "cacheWrite": u.cache_write, "cost": u.cost, "turns": u.turns,
                "toolCalls": u.tool_calls,
            },
        }
    });
    let result = if failed {
        ToolResult::error(text)
    } else {
        ToolResult::text(text)
    };
    result.with_details(details)
}

export_plugin!(Subagents);
