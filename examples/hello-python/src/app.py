"""The conformance plugin in Python: same behaviour as examples/hello-{rust,js,c}
(see examples/README.md)."""

import json
import re

from tack_plugin import (
    Err,
    Plugin,
    allow,
    append_state,
    block,
    command,
    error_result,
    export,
    latest_state,
    log,
    registration,
    text_result,
    tool,
    types,
)

COUNTER_TYPE = "hello-counter"
# ASCII whitespace, the same set in every language of the conformance suite.
WORDS = re.compile(r"[^ \t\n\r\f]+")


class Hello(Plugin):
    def __init__(self) -> None:
        self.blocked_word = "forbidden"

    def init(self, ctx: types.InitContext) -> types.Registration:
        config = json.loads(ctx.config)
        word = config.get("blocked_word")
        if isinstance(word, str) and word != "":
            self.blocked_word = word
        log("info", f'hello: blocking bash commands containing "{self.blocked_word}"')
        return registration(
            tools=[
                tool(
                    "word_count",
                    "Word count",
                    "Counts the words (whitespace-separated) and characters of a text.",
                    {
                        "type": "object",
                        "properties": {
                            "text": {"type": "string", "description": "The text to count."}
                        },
                        "required": ["text"],
                        "additionalProperties": False,
                    },
                )
            ],
            commands=[command("hello", "Greet someone (and count greetings in this session)")],
            hooks=[types.HookKind.BEFORE_TOOL_CALL],
        )

    def call_tool(self, call: types.ToolCall) -> types.ToolResult:
        if call.name != "word_count":
            return error_result(f"unknown tool `{call.name}`")
        text = json.loads(call.arguments)["text"]
        words = len(WORDS.findall(text))
        noun = "word" if words == 1 else "words"
        return text_result(f"{words} {noun}", {"words": words, "chars": len(text)})

    def run_command(self, name: str, args: str):
        if name != "hello":
            raise Err(f"unknown command `/{name}`")
        who = args.strip(" \t\n\r\f") or "world"
        previous = latest_state(COUNTER_TYPE) or {}
        count = previous.get("count", 0) + 1
        append_state(COUNTER_TYPE, {"count": count})
        return f"Hello, {who}! (greeting {count} in this session)"

    def before_tool_call(self, call: types.ToolCall):
        if call.name != "bash":
            return allow()
        command_line = json.loads(call.arguments).get("command")
        if isinstance(command_line, str) and self.blocked_word in command_line:
            return block(
                f'bash commands containing "{self.blocked_word}" are blocked by the hello plugin'
            )
        return allow()


Guest = export(Hello)
