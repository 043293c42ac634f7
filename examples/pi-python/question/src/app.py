"""Pi's ``examples/extensions/question.ts`` (pi-coding-agent 0.73.1) as a tack plugin in Python,
on ``tack:plugin@0.2.0``: a ``question`` tool the model calls to ask the user a question with
options; the user picks one, or picks "Type something." and writes an answer; the tool's
result tells the model which.

Pi draws the options with ``ctx.ui.custom``; so does this port, in place of the editor, with
:class:`tack_plugin.v2.Component` (the ``components`` grant): ↑↓ move, Enter picks, Escape
cancels. Where no component can show (RPC mode, or without the grant) the same exchange is the
host's ``ui.select`` dialog over the options (a description follows its label after " — ").
"Type something." asks with the host's ``ui.input`` either way; Escape there goes back to the
options, as in Pi. The results, their ``details`` and the non-interactive error are Pi's, word
for word; ``ctx.hasUI`` is :func:`tack_plugin.v2.has_ui`.
"""

import json

from tack_plugin import (
    Plugin,
    TaskRunner,  # noqa: F401 (componentize-py exports it from this module)
    export,
    registration,
    tool,
    types,
)
from tack_plugin.v2 import (  # noqa: F401 (componentize-py exports these from this module)
    Component,
    Completions,
    Editor,
    Observer,
    ProviderHooks,
    Renderers,
    SessionHooks,
    has_ui,
)
from wit_world.imports import ui

OTHER = "Type something."

PARAMETERS = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "description": "The question to ask the user"},
        "options": {
            "type": "array",
            "description": "Options for the user to choose from",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string", "description": "Display label for the option"},
                    "description": {
                        "type": "string",
                        "description": "Optional description shown below label",
                    },
                },
                "required": ["label"],
            },
        },
    },
    "required": ["question", "options"],
}


def pick(question: str, options: list, shown: list):
    """The option picked in a component (its index, or None when cancelled), or ``"dialog"``
    when no component can show."""
    with Component() as component:
        if not component.visible:
            return "dialog"
        selected = 0
        while True:
            lines = [f" {question}", ""]
            for i, option in enumerate(options + [{"label": OTHER}]):
                lines.append(f"{'>' if i == selected else ' '} {i + 1}. {option['label']}")
                if option.get("description"):
                    lines.append(f"     {option['description']}")
            lines += ["", " ↑↓ navigate • Enter to select • Esc to cancel"]
            kind, key = component.frame(lines, 10_000)
            if kind == "closed" or key == "escape":
                return None
            if key == "up":
                selected = max(0, selected - 1)
            elif key == "down":
                selected = min(len(shown) - 1, selected + 1)
            elif key == "enter":
                return selected


def result(text: str, question: str, options: list, answer, was_custom=None) -> types.ToolResult:
    details = {"question": question, "options": options, "answer": answer}
    if was_custom is not None:
        details["wasCustom"] = was_custom
    return types.ToolResult([types.ContentBlock_Text(text)], json.dumps(details), False)


class Question(Plugin):
    def init(self, ctx: types.InitContext) -> types.Registration:
        return registration(
            tools=[
                tool(
                    "question",
                    "Question",
                    "Ask the user a question and let them pick from options. Use when you need "
                    "user input to proceed.",
                    PARAMETERS,
                )
            ]
        )

    def call_tool(self, call: types.ToolCall) -> types.ToolResult:
        params = json.loads(call.arguments)
        question = params["question"]
        options = params["options"]
        labels = [o["label"] for o in options]
        if not has_ui():
            return result(
                "Error: UI not available (running in non-interactive mode)",
                question,
                labels,
                None,
            )
        if not options:
            return result("Error: No options provided", question, [], None)
        shown = [
            f"{o['label']} — {o['description']}" if o.get("description") else o["label"]
            for o in options
        ] + [OTHER]
        while True:
            picked = pick(question, options, shown)
            if picked == "dialog":
                picked = ui.select(question, shown, None)
            if picked is None:
                return result("User cancelled the selection", question, labels, None)
            if picked < len(options):
                label = labels[picked]
                return result(
                    f"User selected: {picked + 1}. {label}", question, labels, label, False
                )
            # "Type something.": Escape in the editor goes back to the options, as in Pi.
            written = ui.input(question, "Type your answer", None)
            if written is not None and written.strip():
                answer = written.strip()
                return result(f"User wrote: {answer}", question, labels, answer, True)


Guest = export(Question)
