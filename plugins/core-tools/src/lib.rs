//! core-tools: the tools a coding agent lives on (read, write, edit, ls, find, grep, bash, and
//! bash_output and bash_kill for background commands), as a tack plugin.
//!
//! File tools work through the workspace directory the host preopens at its own path; bash goes
//! through the host's `exec` capability. Each tool lives in its own module with its spec (what
//! the model sees) and its implementation.

mod atomic;
mod background;
mod bash;
mod capture;
mod content;
mod edit;
mod fanout;
mod find;
mod fsys;
mod grep;
mod ls;
mod matching;
mod mode;
mod paths;
mod read;
mod terminal;
#[cfg(test)]
mod testutil;
mod truncate;
mod walk;
mod write;

use tack_sdk::{EventKind, InitContext, Observer, Plugin, Registration, ToolCall, ToolResult};

use crate::paths::Workspace;

#[derive(Default)]
struct CoreTools {
    workspace: Option<Workspace>,
    tasks: fanout::TaskCache,
}

impl Plugin for CoreTools {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        self.workspace = Some(Workspace::new(&ctx.workspace, ctx.data_dir.as_deref())?);
        // A background command that ends while the agent is idle runs none of this plugin's
        // code: the host's event is what brings the footer's count up to date then.
        tack_sdk::events::subscribe(&[background::EXIT_EVENT])?;
        Ok(Registration::new()
            .tool(read::spec())
            .tool(write::spec())
            .tool(edit::spec())
            .tool(ls::spec())
            .tool(find::spec())
            .tool(grep::spec())
            .tool(bash::spec())
            .tool(background::output_spec())
            .tool(background::kill_spec())
            .command(
                "jobs",
                "Background commands: pick one to see its output or stop it (/jobs list, \
                 /jobs kill <id>, /jobs keep <id> to keep one running after tack exits)",
            )
            .event(EventKind::AgentEnd))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        let Some(ws) = &self.workspace else {
            return ToolResult::error("core-tools was called before init; this is a host bug.");
        };
        match call.name.as_str() {
            "read" => read::run(ws, &call),
            "write" => write::run(ws, &call),
            "edit" => edit::run(ws, &call),
            "ls" => ls::run(ws, &call),
            "find" => find::run(ws, &call),
            "grep" => grep::run(ws, &call),
            "bash" => bash::run(ws, &call),
            "bash_output" => background::output(ws, &call),
            "bash_kill" => background::kill(ws, &call),
            other => ToolResult::error(format!("core-tools has no tool named '{other}'.")),
        }
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        match name {
            "jobs" => background::command(args),
            other => Err(format!("core-tools has no command /{other}")),
        }
    }

    /// A background command may end between calls: the footer's count is brought up to date
    /// after every run.
    fn on_event(&mut self, kind: EventKind, _data: &str) {
        if kind == EventKind::AgentEnd {
            background::refresh_status();
        }
    }

    /// Pieces of a grep or find over a large tree, fanned out by the instance running the call.
    fn run_task(&mut self, input: Vec<u8>) -> Result<Vec<u8>, String> {
        let Some(ws) = &self.workspace else {
            return Err("core-tools ran a task before init; this is a host bug.".into());
        };
        fanout::run_task(ws, &mut self.tasks, &input)
    }
}

impl Observer for CoreTools {
    /// One of its background commands ended, perhaps between runs.
    fn on_named_event(&mut self, name: &str, _data: &str) {
        if name == background::EXIT_EVENT {
            background::refresh_status();
        }
    }
}

tack_sdk::export_plugin!(CoreTools);
tack_sdk::export_observer!(CoreTools);
