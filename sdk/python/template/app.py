"""{{name}}: a tack plugin. Add tools, commands and hooks to the registration and override the
matching `Plugin` methods; every method you leave out has a safe default."""

import json

from tack_plugin import Err, Plugin, command, error_result, export, log, registration, text_result, tool, types

# componentize-py looks for the exports in this module: `Guest` (below) and `TaskRunner`, which
# hands the tasks `run_tasks` starts to `Plugin.run_task`.
from tack_plugin import TaskRunner  # noqa: F401


def greeting(who: str) -> str:
    return f"Hello, {who.strip() or 'world'}, from {{name}}!"


class MyPlugin(Plugin):
    def init(self, ctx: types.InitContext) -> types.Registration:
        log("info", "{{name}} ready")
        return registration(
            tools=[
                tool(
                    "{{command}}_greet",
                    "Greet",
                    "Greets someone by name.",
                    {
                        "type": "object",
                        "properties": {"name": {"type": "string", "description": "Who to greet."}},
                        "required": ["name"],
                        "additionalProperties": False,
                    },
                )
            ],
            commands=[command("{{command}}", "Say hello from {{name}}")],
        )

    def call_tool(self, call: types.ToolCall) -> types.ToolResult:
        if call.name != "{{command}}_greet":
            return error_result(f"unknown tool `{call.name}`")
        return text_result(greeting(json.loads(call.arguments)["name"]))

    def run_command(self, name: str, args: str):
        if name != "{{command}}":
            raise Err(f"unknown command `/{name}`")
        return greeting(args)


Guest = export(MyPlugin)
