"""The tack plugin SDK for Python (componentize-py).

Subclass :class:`Plugin`, override what your registration lists, and export it with
``Guest = export(MyPlugin)`` in your app module. Every other function of the ``tack:plugin``
world gets a safe default (allow, continue, proceed, "unknown tool"); the host calls only what the
plugin registered, so the defaults exist to satisfy the component's type.

Fan-out and file permission bits, the optional extensions, are :func:`run_tasks` (each task
handled by :meth:`Plugin.run_task` on another instance) and :func:`file_permissions`. The app
module also names ``TaskRunner`` (``from tack_plugin import TaskRunner``), the export that hands
tasks to the plugin.

The classes of the world (``ToolResult``, ``ToolDecision_Block``, ...) come from the ``wit_world``
bindings componentize-py generates at build time; the helpers below cover the common cases.
"""

import json
from typing import Any, Callable, Iterable, List, Optional, Type, Union

from componentize_py_types import Err, Ok, Result
from wit_world import exports
from wit_world.exports import guest
from wit_world.imports import files as _files, host, session as _session, tasks as _tasks, types
from wit_world.imports import ui as _ui

__all__ = [
    "Plugin",
    "export",
    "TaskRunner",
    "task_parallelism",
    "run_tasks",
    "file_permissions",
    "set_file_permissions",
    "log",
    "notify",
    "latest_state",
    "append_state",
    "tool",
    "command",
    "registration",
    "text_result",
    "error_result",
    "allow",
    "block",
    "rewrite",
    "Err",
    "Ok",
    "types",
    "guest",
]


class Plugin:
    """Base class with a default for every export but :meth:`init`."""

    def init(self, ctx: types.InitContext) -> types.Registration:
        raise Err("this plugin does not implement init")

    def call_tool(self, call: types.ToolCall) -> types.ToolResult:
        return error_result(f"unknown tool `{call.name}`")

    def run_command(self, name: str, args: str) -> Optional[str]:
        raise Err(f"unknown command `/{name}`")

    def before_tool_call(self, call: types.ToolCall) -> guest.ToolDecision:
        return allow()

    def after_tool_call(
        self, call: types.ToolCall, result: types.ToolResult
    ) -> Optional[types.ToolResult]:
        return None

    def on_input(self, text: str) -> guest.InputAction:
        return guest.InputAction_Continue()

    def before_agent_start(self, prompt: str, system_prompt: str) -> guest.AgentStartPatch:
        return guest.AgentStartPatch(None, None, [])

    def context(self, messages: str) -> Optional[str]:
        return None

    def before_compact(self, request: guest.CompactRequest) -> guest.CompactDecision:
        return guest.CompactDecision_Proceed()

    def on_event(self, kind: types.EventKind, data: str) -> None:
        pass

    def build_request(self, request: guest.ProviderRequest) -> guest.RequestPlan:
        raise Err(_not_a_provider("build-request"))

    def decode_error(self, provider: str, status: int, headers: Any, body: bytes) -> guest.ProviderError:
        return guest.ProviderError(guest.ErrorKind.OTHER, f"HTTP {status}", None)

    def decoder(self, provider: str, model: str) -> Any:
        """Provider plugins return an object with ``push(event)`` and ``finish()``."""
        return None

    def on_named_event(self, name: str, data: Any) -> None:
        """An event subscribed to with :func:`tack_plugin.v2.subscribe` (0.2.0): ``name`` is its
        ``type``, ``data`` the event, parsed."""

    def before_provider_request(self, request: Any, payload: Any) -> Any:
        """Pi's ``before_provider_request`` (0.2.0, the ``provider_payload`` grant): ``payload``
        is the body about to be sent, parsed; return None to send it, or the body to send instead
        (a dict, or JSON text; needs ``provider_payload = "replace"``)."""
        return None

    def after_provider_response(self, status: int, headers: dict) -> None:
        """Pi's ``after_provider_response``: the answer's status and headers (credential
        headers left out)."""

    def before_switch(self, request: Any) -> Optional[bool]:
        """Pi's ``session_before_switch`` (0.2.0): ``request.reason`` (new or resume) and
        ``request.target_session_id``; return False to cancel."""
        return None

    def before_fork(self, request: Any) -> Optional[bool]:
        """Pi's ``session_before_fork``: ``request.entry_id`` and ``request.position``; False
        cancels."""
        return None

    def before_tree(self, request: Any) -> Any:
        """Pi's ``session_before_tree``: None proceeds, False cancels, a string is the summary
        of the branch left behind."""
        return None

    def complete_arguments(self, command: str, prefix: str) -> Any:
        """Pi's ``getArgumentCompletions`` (0.2.0's ``completions`` export): items for the
        argument of one of this plugin's commands, given what follows ``/command `` so far, as
        dicts (``value``, ``label``, ``description``) or ``CompletionItem``; None offers none."""
        return None

    def complete_input(self, lines: List[str], cursor_line: int, cursor_col: int) -> Any:
        """Pi's autocomplete provider, once :func:`tack_plugin.v2.set_input_completion` turned it
        on: ``(items, prefix)`` at the cursor, ``prefix`` being the text before the cursor the
        items replace; None leaves it to tack's own completions."""
        return None

    def render_call(self, call: Any, options: Any) -> Optional[List[str]]:
        """Pi's ``renderCall`` (0.2.0's ``renderers`` export): the lines of the heading of a call
        of this plugin's tool (``call.tool``, ``call.call_id``, ``call.arguments`` as JSON,
        ``call.started``), at most ``options.width`` columns; None leaves it to tack."""
        return None

    def render_result(self, call: Any, outcome: Any, options: Any) -> Optional[List[str]]:
        """Pi's ``renderResult``: the lines under the call's heading for what it returned so far
        (``outcome.text``, ``outcome.details`` as JSON, ``outcome.is_error``,
        ``outcome.partial``), shorter unless ``options.expanded``; None leaves it to tack."""
        return None

    def render_message(self, message: Any, options: Any) -> Optional[List[str]]:
        """Pi's ``registerMessageRenderer``: the lines of a custom message this plugin sent
        (``message.custom_type``, ``message.content``, ``message.details`` as JSON); None leaves
        it to tack."""
        return None

    def editor_view(
        self, key: Optional[str], paste: Optional[str], width: int
    ) -> Optional[tuple]:
        """Pi's ``setEditorComponent`` (0.2.0's ``editor`` export, once
        :func:`tack_plugin.v2.set_editor` put it in place): handle ``key`` (named as a
        component's keys) or ``paste`` if given, then return ``(lines, submitted)`` for
        ``width`` columns, ``submitted`` being the text sent as the user's prompt or None."""
        return None

    def run_task(self, input: bytes) -> Union[bytes, str]:
        """Runs one task started by :func:`run_tasks` (on another instance of this plugin).
        Returns the task's output (a ``str`` is sent as UTF-8); raise ``Err(message)`` to fail it."""
        raise Err("this plugin runs no tasks")


def _not_a_provider(what: str) -> guest.ProviderError:
    return guest.ProviderError(
        guest.ErrorKind.INVALID_REQUEST, f"this plugin is not a provider ({what})", None
    )


# One plugin object per component instance: componentize-py may create a fresh `Guest` for each
# call, so state lives here rather than on the `Guest`.
_plugin: Optional[Plugin] = None


def _current() -> Plugin:
    if _plugin is None:
        raise RuntimeError("tack_plugin.export() was never called")
    return _plugin


def export(cls: Type[Plugin]) -> type:
    """Instantiates ``cls`` and returns the ``Guest`` class componentize-py looks for."""
    global _plugin
    _plugin = cls()

    class Guest(exports.Guest):
        def init(self, ctx):
            return _current().init(ctx)

        def call_tool(self, call):
            return _current().call_tool(call)

        def run_command(self, name, args):
            return _current().run_command(name, args)

        def before_tool_call(self, call):
            return _current().before_tool_call(call)

        def after_tool_call(self, call, result):
            return _current().after_tool_call(call, result)

        def on_input(self, text):
            return _current().on_input(text)

        def before_agent_start(self, prompt, system_prompt):
            return _current().before_agent_start(prompt, system_prompt)

        def context(self, messages):
            return _current().context(messages)

        def before_compact(self, request):
            return _current().before_compact(request)

        def on_event(self, kind, data):
            _current().on_event(kind, data)

        def build_request(self, request):
            return _current().build_request(request)

        def decode_error(self, provider, status, headers, body):
            return _current().decode_error(provider, status, headers, body)

    return Guest


class TaskRunner(exports.TaskRunner):
    """The ``task-runner`` export, delegating to :meth:`Plugin.run_task`. Import it into the app
    module beside ``Guest``: componentize-py looks for both there."""

    def run_task(self, input: bytes) -> bytes:
        output = _current().run_task(input)
        return output.encode("utf-8") if isinstance(output, str) else bytes(output)


def task_parallelism() -> int:
    """How many tasks the host runs at the same time: size a split by it."""
    return _tasks.parallelism()


def run_tasks(inputs: Iterable[Union[bytes, str]]) -> List[Result[bytes, str]]:
    """Runs every input (``str`` as UTF-8) through :meth:`Plugin.run_task` on other instances of
    this plugin, at the same time, and waits for all of them. Returns, in input order, ``Ok``
    (``.value``: the task's bytes) or ``Err`` (``.value``: why it failed). Raises ``Err`` when
    the host refuses the whole run (from ``init`` or a task, more than 4096 inputs)."""
    return _tasks.run([i.encode("utf-8") if isinstance(i, str) else bytes(i) for i in inputs])


def file_permissions(path: str) -> int:
    """The Unix permission bits of the file at the absolute ``path`` (``0o644``, say). Raises
    ``Err(message)`` when the path lies outside the plugin's ``fs`` grants."""
    return _files.permissions(path)


def set_file_permissions(path: str, mode: int) -> None:
    """Sets them (only the ``0o777`` bits; needs a read-write grant)."""
    _files.set_permissions(path, mode)


class Decoder(guest.Decoder):
    """The `decoder` resource, delegating to :meth:`Plugin.decoder`."""

    def __init__(self, provider: str, model: str) -> None:
        self._inner = _current().decoder(provider, model)

    def push(self, event: guest.SseEvent) -> List[guest.StreamEvent]:
        if self._inner is None:
            raise Err(_not_a_provider("decoder.push"))
        return self._inner.push(event)

    def finish(self) -> List[guest.StreamEvent]:
        if self._inner is None:
            raise Err(_not_a_provider("decoder.finish"))
        return self._inner.finish()


def log(level: str, message: str) -> None:
    """Writes a line to tack's log; ``level`` is "debug", "info", "warn" or "error"."""
    host.log(types.Level[level.upper()], message)


def notify(level: str, message: str) -> None:
    """Shows ``message`` to the user (a toast in the terminal UI, an ``extension_ui_request`` in
    RPC mode, a line on stderr in print mode); ``level`` is "debug", "info", "warn" or
    "error"."""
    _ui.notify(types.Level[level.upper()], message)


def latest_state(custom_type: str) -> Any:
    """The newest state of ``custom_type`` on the session's active branch, parsed, or None."""
    data = _session.latest_custom(custom_type)
    return None if data is None else json.loads(data)


def append_state(custom_type: str, value: Any) -> str:
    """Appends ``value`` as the newest state of ``custom_type``; returns the entry id."""
    return _session.append_custom(custom_type, json.dumps(value))


def tool(
    name: str,
    label: str,
    description: str,
    parameters: Any,
    mode: types.ExecutionMode = types.ExecutionMode.PARALLEL,
    prompt_snippet: Optional[str] = None,
) -> types.ToolSpec:
    """A tool spec; ``parameters`` is a JSON Schema as a dict (serialised for you)."""
    return types.ToolSpec(name, label, description, json.dumps(parameters), mode, prompt_snippet)


def command(name: str, description: str) -> types.CommandSpec:
    return types.CommandSpec(name, description)


def registration(
    tools: Optional[List[types.ToolSpec]] = None,
    commands: Optional[List[types.CommandSpec]] = None,
    hooks: Optional[List[types.HookKind]] = None,
    events: Optional[List[types.EventKind]] = None,
    providers: Optional[List[types.ProviderSpec]] = None,
) -> types.Registration:
    return types.Registration(tools or [], commands or [], hooks or [], events or [], providers or [])


def text_result(text: str, details: Any = None) -> types.ToolResult:
    """A successful result: ``text`` for the model, ``details`` (JSON-able) for front ends."""
    return types.ToolResult(
        [types.ContentBlock_Text(text)],
        None if details is None else json.dumps(details),
        False,
    )


def error_result(message: str) -> types.ToolResult:
    return types.ToolResult([types.ContentBlock_Text(message)], None, True)


def allow() -> guest.ToolDecision:
    return guest.ToolDecision_Allow()


def block(reason: str) -> guest.ToolDecision:
    return guest.ToolDecision_Block(reason)


def rewrite(arguments: Any) -> guest.ToolDecision:
    return guest.ToolDecision_Rewrite(json.dumps(arguments))
