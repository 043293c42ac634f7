"""The conformance plugin in Python: same behaviour as examples/hello-{rust,js,c,zig}
(see examples/README.md)."""

import json
import re

from tack_plugin import (
    Err,
    Plugin,
    TaskRunner,  # noqa: F401 (componentize-py exports it from this module)
    allow,
    append_state,
    block,
    command,
    error_result,
    export,
    file_permissions,
    latest_state,
    log,
    registration,
    run_tasks,
    text_result,
    tool,
    types,
)

COUNTER_TYPE = "hello-counter"
# ASCII whitespace, the same set in every language of the conformance suite.
WORDS = re.compile(r"[^ \t\n\r\f]+")

TEXT_PARAMETER = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "The text to count."}},
    "required": ["text"],
    "additionalProperties": False,
}


def count_words(text: str) -> int:
    return len(WORDS.findall(text))


def count_lines(text: str) -> types.ToolResult:
    """One task per line: the input is the line, the output its word count in decimal."""
    try:
        results = run_tasks(text.split("\n"))
    except Err as e:
        return error_result(f"tasks failed: {e.value}")
    words = []
    for i, result in enumerate(results):
        if isinstance(result, Err):
            return error_result(f"task {i} failed: {result.value}")
        words.append(int(result.value.decode("ascii")))
    total = sum(words)
    return text_result(f"{total} words in {len(words)} lines", {"words": words, "total": total})


def file_mode(path: str) -> types.ToolResult:
    try:
        mode = file_permissions(path)
    except Err as e:
        return error_result(e.value)
    return text_result(f"{mode:04o}", {"mode": mode})


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
                    TEXT_PARAMETER,
                ),
                tool(
                    "count_lines",
                    "Count lines",
                    "Counts the words of each line of a text, one task per line.",
                    TEXT_PARAMETER,
                ),
                tool(
                    "file_mode",
                    "File mode",
                    "The Unix permission bits of a file, in octal.",
                    {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "description": "The file's absolute path."}
                        },
                        "required": ["path"],
                        "additionalProperties": False,
                    },
                ),
            ],
            commands=[command("hello", "Greet someone (and count greetings in this session)")],
            hooks=[types.HookKind.BEFORE_TOOL_CALL],
        )

    def call_tool(self, call: types.ToolCall) -> types.ToolResult:
        args = json.loads(call.arguments)
        if call.name == "count_lines":
            return count_lines(args["text"])
        if call.name == "file_mode":
            return file_mode(args["path"])
        if call.name != "word_count":
            return error_result(f"unknown tool `{call.name}`")
        text = args["text"]
        words = count_words(text)
        noun = "word" if words == 1 else "words"
        return text_result(f"{words} {noun}", {"words": words, "chars": len(text)})

    def run_task(self, input: bytes) -> str:
        return str(count_words(input.decode("utf-8")))

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
