//! todo: a `todo` tool the model keeps a task list with, and `/todos` to show it.
//!
//! The list lives in the session: each `todo` result carries the whole list in its details, and
//! every call starts from the newest such result on the active branch (see [`branch`]), so the
//! list follows `/tree` and `/fork` and there is no in-memory copy to go stale.

mod branch;
mod list;

use serde_json::json;
use tack_sdk::{
    export_plugin, session, InitContext, Plugin, Registration, ToolCall, ToolResult, ToolSpec,
};

use crate::list::{Request, TodoList};

#[derive(Default)]
struct Todo;

fn spec() -> ToolSpec {
    ToolSpec::new(
        branch::TOOL,
        "Todo list",
        "Keep a todo list for multi-step work. `add` a todo (`text`), `update` its text (`id`, \
         `text`), `complete` it (`id`), `remove` it (`id`), or `list` them. Every call returns \
         the whole list with each todo's id. Add the steps before starting a larger task and \
         complete each as soon as it is done.",
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["add", "update", "complete", "remove", "list"],
                    "description": "What to do."
                },
                "text": {
                    "type": "string",
                    "description": "The todo's text (add, update)."
                },
                "id": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The todo's id as listed (update, complete, remove)."
                }
            },
            "required": ["action"],
            "additionalProperties": false
        }),
    )
    // Each call reads the list the previous one stored; run concurrently they would both start
    // from the same list and one change would be lost.
    .sequential()
    .snippet("todo: keep a todo list of the steps of multi-step work and complete them as you go")
}

fn current() -> Result<TodoList, String> {
    Ok(branch::current(&session::entries()?))
}

impl Plugin for Todo {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new()
            .tool(spec())
            .command("todos", "Show the todo list of this branch"))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        if call.name != branch::TOOL {
            return ToolResult::error(format!("unknown tool `{}`", call.name));
        }
        let request: Request = match call.args() {
            Ok(request) => request,
            Err(e) => return ToolResult::error(e),
        };
        let mut list = match current() {
            Ok(list) => list,
            Err(e) => return ToolResult::error(format!("Cannot read the todo list: {e}")),
        };
        match list.apply(&request) {
            Ok(change) => {
                let text = if change.is_empty() {
                    list.render()
                } else {
                    format!("{change}\n\n{}", list.render())
                };
                match serde_json::to_value(&list) {
                    Ok(details) => ToolResult::text(text).with_details(details),
                    Err(e) => ToolResult::error(format!("Cannot store the todo list: {e}")),
                }
            }
            // An error result is never read back as state, so the list stays as it was.
            Err(problem) => ToolResult::error(format!("{problem}\n\n{}", list.render())),
        }
    }

    fn run_command(&mut self, name: &str, _args: &str) -> Result<Option<String>, String> {
        match name {
            "todos" => Ok(Some(current()?.render())),
            other => Err(format!("unknown command `/{other}`")),
        }
    }
}

export_plugin!(Todo);
