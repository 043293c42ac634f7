"""What ``tack:plugin@0.2.0`` adds, for plugins built against it (``api = "0.2"`` in their
``tack.toml``; the build binds 0.2.0's ``plugin`` world, which includes 0.1.0's
``plugin-extended``). A 0.1.0 plugin never imports this module.

- Pi's ``ctx`` reads and session naming: :func:`model`, :func:`thinking_level`,
  :func:`context_usage`, :func:`is_idle`, :func:`has_pending_messages`, :func:`system_prompt`,
  :func:`session_name`, :func:`set_session_name`, :func:`set_label`,
  :func:`session_entries`, :func:`session_header`, :func:`leaf_id`, :func:`abort`,
  :func:`compact`.
- Providers registered while running: :func:`register_provider`, :func:`unregister_provider`.
- Tools registered while running: :func:`register_tool`, :func:`unregister_tool`,
  :func:`all_tools`.
- Slash commands registered while running: :func:`register_command`,
  :func:`unregister_command`, :func:`all_commands`.
- Events by name: :func:`subscribe`, :func:`unsubscribe`, delivered to
  :meth:`tack_plugin.Plugin.on_named_event` through the ``Observer`` export.
- Provider payloads (the ``provider_payload`` grant):
  :meth:`tack_plugin.Plugin.before_provider_request` and
  :meth:`tack_plugin.Plugin.after_provider_response` through the ``ProviderHooks`` export.
- The screen: :func:`set_widget` (below the editor too), :func:`set_title`,
  :func:`set_editor_text`, :func:`paste_to_editor`, :func:`editor_text`,
  :func:`set_working_message`, :func:`set_working_visible`, :func:`set_working_indicator`,
  :func:`set_hidden_thinking_label`, :func:`set_header`, :func:`set_footer`,
  :func:`git_branch`, :func:`tools_expanded`, :func:`set_tools_expanded`, :func:`themes`,
  :func:`theme`, :func:`set_theme`.
- Components it draws and that take the keyboard (Pi's ``ctx.ui.custom``; the ``components``
  grant): :class:`Component`.
- Model calls of its own (Pi's ``complete``; the ``agents`` grant): :func:`complete`,
  :func:`available_models`.
- Long-lived programs (the ``process`` grant): the generated :mod:`process` module.
- Messages for the agent, with Pi's ``deliverAs``: :func:`send_message`.

- Session moves (Pi's ``session_before_switch``/``_fork``/``_tree``):
  :meth:`tack_plugin.Plugin.before_switch`, ``before_fork`` and ``before_tree`` through the
  ``SessionHooks`` export.

- Completions in the editor: :meth:`tack_plugin.Plugin.complete_arguments` (Pi's
  ``getArgumentCompletions``) and, once :func:`set_input_completion` turned it on (the
  ``components`` grant), :meth:`tack_plugin.Plugin.complete_input` (Pi's autocomplete
  providers), through the ``Completions`` export.

- Its own blocks in the terminal UI (Pi's ``renderCall``, ``renderResult`` and
  ``registerMessageRenderer``): :meth:`tack_plugin.Plugin.render_call`,
  :meth:`tack_plugin.Plugin.render_result` and :meth:`tack_plugin.Plugin.render_message`,
  through the ``Renderers`` export.

- An editor of its own in place of tack's (Pi's ``setEditorComponent``; the ``components``
  grant): :func:`set_editor`, then :meth:`tack_plugin.Plugin.editor_view` through the
  ``Editor`` export.

The app module names the six exports beside ``Guest``, as it names ``TaskRunner``:
``from tack_plugin.v2 import Completions, Editor, Observer, ProviderHooks, Renderers,
SessionHooks``.
"""

import json
from typing import Any, List, Optional

from wit_world import exports
from wit_world.exports import completions as _completions
from wit_world.exports import session_hooks as _session_hooks
from wit_world.imports import bus as _bus
from wit_world.imports import commands as _commands
from wit_world.imports import control as _control
from wit_world.imports import events as _events
from wit_world.imports import models as _models
from wit_world.imports import process  # noqa: F401 (re-exported)
from wit_world.imports import providers as _providers
from wit_world.imports import screen as _screen
from wit_world.imports import session as _session
from wit_world.imports import shortcuts as _shortcuts
from wit_world.imports import tools as _tools
from wit_world.imports import types

from . import _current

__all__ = [
    "Completions",
    "Editor",
    "set_editor",
    "Observer",
    "ProviderHooks",
    "Renderers",
    "SessionHooks",
    "model",
    "thinking_level",
    "context_usage",
    "is_idle",
    "has_ui",
    "has_pending_messages",
    "system_prompt",
    "session_name",
    "set_session_name",
    "session_entries",
    "session_header",
    "leaf_id",
    "abort",
    "set_label",
    "compact",
    "shutdown",
    "reload",
    "wait_for_idle",
    "set_model",
    "set_thinking_level",
    "register_tool",
    "unregister_tool",
    "register_provider",
    "unregister_provider",
    "all_tools",
    "register_command",
    "unregister_command",
    "all_commands",
    "subscribe",
    "unsubscribe",
    "set_widget",
    "set_title",
    "set_editor_text",
    "paste_to_editor",
    "set_working_message",
    "set_footer",
    "git_branch",
    "set_input_completion",
    "send_message",
    "process",
    "Component",
    "complete",
    "available_models",
]


class Observer(exports.Observer):
    """The ``observer`` export, delegating to :meth:`tack_plugin.Plugin.on_named_event`."""

    def on_event(self, name: str, data: str) -> None:
        _current().on_named_event(name, json.loads(data))


class SessionHooks(exports.SessionHooks):
    """The ``session-hooks`` export, delegating to the plugin's
    :meth:`~tack_plugin.Plugin.before_switch`, :meth:`~tack_plugin.Plugin.before_fork` and
    :meth:`~tack_plugin.Plugin.before_tree` (each proceeds unless overridden)."""

    def before_switch(self, request: Any) -> Any:
        return _decision(_current().before_switch(request))

    def before_fork(self, request: Any) -> Any:
        return _decision(_current().before_fork(request))

    def before_tree(self, request: Any) -> Any:
        answer = _current().before_tree(request)
        if answer is None or answer is True:
            return _session_hooks.TreeDecision_Proceed()
        if answer is False:
            return _session_hooks.TreeDecision_Cancel()
        return _session_hooks.TreeDecision_Summary(str(answer))


class Editor(exports.Editor):
    """The ``editor`` export, delegating to the plugin's
    :meth:`~tack_plugin.Plugin.editor_view` (an empty editor unless overridden)."""

    def view(self, width: int) -> Any:
        return _editor_view(_current().editor_view(None, None, width))

    def key(self, key: str, width: int) -> Any:
        return _editor_view(_current().editor_view(key, None, width))

    def paste(self, text: str, width: int) -> Any:
        return _editor_view(_current().editor_view(None, text, width))


def _editor_view(answer: Any) -> Any:
    from wit_world.exports import editor as _editor

    if answer is None:
        return _editor.EditorView([], None)
    lines, submitted = answer
    return _editor.EditorView(
        [str(line) for line in lines], None if submitted is None else str(submitted)
    )


def set_editor(enabled: bool) -> None:
    """Pi's ``setEditorComponent``: puts this plugin's editor (its
    :meth:`tack_plugin.Plugin.editor_view`) in place of tack's, or gives tack's back; needs the
    ``components`` grant (raises ``Err`` without it)."""
    _screen.set_editor(enabled)


class Renderers(exports.Renderers):
    """The ``renderers`` export, delegating to the plugin's
    :meth:`~tack_plugin.Plugin.render_call`, :meth:`~tack_plugin.Plugin.render_result` and
    :meth:`~tack_plugin.Plugin.render_message` (each leaves the block to tack unless
    overridden)."""

    def render_call(self, call: Any, options: Any) -> Optional[List[str]]:
        return _lines(_current().render_call(call, options))

    def render_result(self, call: Any, outcome: Any, options: Any) -> Optional[List[str]]:
        return _lines(_current().render_result(call, outcome, options))

    def render_message(self, message: Any, options: Any) -> Optional[List[str]]:
        return _lines(_current().render_message(message, options))


def _lines(lines: Any) -> Optional[List[str]]:
    return None if lines is None else [str(line) for line in lines]


class Completions(exports.Completions):
    """The ``completions`` export, delegating to the plugin's
    :meth:`~tack_plugin.Plugin.complete_arguments` and
    :meth:`~tack_plugin.Plugin.complete_input` (each offers nothing unless overridden)."""

    def command_arguments(self, command: str, prefix: str) -> Any:
        return _items(_current().complete_arguments(command, prefix))

    def input(self, lines: List[str], cursor_line: int, cursor_col: int) -> Any:
        answer = _current().complete_input(lines, cursor_line, cursor_col)
        if answer is None:
            return None
        items, prefix = answer
        items = _items(items)
        return _completions.InputCompletion(items, str(prefix)) if items else None


def _items(items: Any) -> Any:
    """Dicts (or ``CompletionItem``) as the export's items; None stays None."""
    if items is None:
        return None
    shown = []
    for item in items:
        if isinstance(item, _completions.CompletionItem):
            shown.append(item)
            continue
        value = str(item.get("value", ""))
        description = item.get("description")
        shown.append(
            _completions.CompletionItem(
                value,
                str(item.get("label") or value),
                None if description is None else str(description),
            )
        )
    return shown


def set_input_completion(enabled: bool) -> None:
    """Pi's ``addAutocompleteProvider``: while on, tack asks
    :meth:`tack_plugin.Plugin.complete_input` as the user types (the ``components`` grant;
    raises ``Err`` with the reason without it)."""
    _screen.set_input_completion(enabled)


def _decision(proceed: Optional[bool]) -> Any:
    """None or True proceeds; False cancels."""
    if proceed is False:
        return _session_hooks.SessionDecision.CANCEL
    return _session_hooks.SessionDecision.PROCEED


class ProviderHooks(exports.ProviderHooks):
    """The ``provider-hooks`` export, delegating to the plugin's
    :meth:`~tack_plugin.Plugin.before_provider_request` and
    :meth:`~tack_plugin.Plugin.after_provider_response`."""

    def before_provider_request(self, request: Any) -> Optional[str]:
        replaced = _current().before_provider_request(request, json.loads(request.payload))
        if replaced is None:
            return None
        return replaced if isinstance(replaced, str) else json.dumps(replaced)

    def after_provider_response(self, response: Any) -> None:
        _current().after_provider_response(response.status, dict(response.headers))


def model() -> Optional[_control.ModelInfo]:
    """The model in use (provider, id, name, context window, reasoning, images), or None."""
    return _control.model()


def thinking_level() -> str:
    """"off", "minimal", "low", "medium" or "high"."""
    return _control.thinking_level()


def context_usage() -> Optional[_control.ContextWindowUsage]:
    """Tokens in the context, the window, and the percentage used; None before the first turn."""
    return _control.context_usage()


def is_idle() -> bool:
    """Whether the agent is waiting for the user (Pi's ``ctx.isIdle()``)."""
    return _control.is_idle()


def has_ui() -> bool:
    """Whether a person can answer dialogs now (Pi's ``ctx.hasUI``)."""
    return _control.has_ui()


def has_pending_messages() -> bool:
    return _control.has_pending_messages()


def system_prompt() -> str:
    return _control.system_prompt()


def session_name() -> Optional[str]:
    return _control.session_name()


def set_session_name(name: str) -> None:
    """Names the session as ``/name`` does (one line, at most 200 characters)."""
    _control.set_session_name(name)


def set_label(entry_id: str, label: Optional[str]) -> None:
    _control.set_label(entry_id, label)


def session_entries() -> List[Any]:
    """Every entry of the session, every branch, in the order written (Pi's ``getEntries``)."""
    return json.loads(_control.session_entries())


def session_header() -> Any:
    """The session's header: ``type``, ``version``, ``id`` and ``timestamp``."""
    return json.loads(_control.session_header())


def abort() -> bool:
    """Stops the agent's run now, as the user's Esc would; false when none was going on."""
    return _control.abort()


def leaf_id() -> Optional[str]:
    """The id of the active branch's last entry."""
    return _control.leaf_id()


def compact(instructions: Optional[str] = None) -> None:
    """Asks for a compaction once the agent is idle; ``compaction_end`` says how it went."""
    _control.compact(instructions)


def shutdown() -> None:
    """Pi's ``ctx.shutdown``: tack ends once the agent is idle, as the user's ``/quit`` ends it."""
    _control.shutdown()


def set_model(model: str) -> None:
    """Pi's ``pi.setModel``: ``provider/id`` (or an id of the current provider) for the next
    requests, as ``/model``; raises ``Err`` naming why it cannot be used."""
    _control.set_model(model)


def set_thinking_level(level: str) -> str:
    """Pi's ``pi.setThinkingLevel``; returns the level set (clamped to what the model can)."""
    return _control.set_thinking_level(level)


def reload() -> None:
    """Pi's ``ctx.reload``: tack starts again on this session once the agent is idle, as the
    user's ``/reload``; only the terminal UI reloads (elsewhere ``Err`` says so)."""
    _control.reload()


def wait_for_idle() -> bool:
    """Pi's ``ctx.waitForIdle``, from a command the user ran: True when the run going on will be
    waited for, and :meth:`tack_plugin.Plugin.on_named_event` then hears ``idle`` (with a
    command's powers) once the agent is idle; the command returns meanwhile. False when the
    agent is idle already. Raises ``Err`` outside a command."""
    return _control.wait_for_idle()


def new_session(with_parent: bool = False) -> None:
    """Pi's ``ctx.newSession``, from a command the user ran: a new session once the agent is
    idle, as the user's ``/new``; with ``with_parent`` its header names this one as its parent.
    Only the terminal UI and RPC mode change sessions (elsewhere ``Err`` says so)."""
    _control.new_session(with_parent)


def fork(entry_id: str, at: bool = False) -> None:
    """Pi's ``ctx.fork``, from a command the user ran: once the agent is idle, a fork before the
    user message ``entry_id`` (its text back in the editor), or with the entry when ``at``, as
    the user's ``/fork``. Only the terminal UI and RPC mode change sessions."""
    _control.fork(entry_id, at)


def navigate_tree(entry_id: str, summarize: bool = False, focus: Optional[str] = None) -> None:
    """Pi's ``ctx.navigateTree``, from a command the user ran: once the agent is idle, the move
    the user's ``/tree`` makes to ``entry_id`` (a user message: to before it, its text back in
    the editor), summarizing the branch left when ``summarize`` (with ``focus``)."""
    _control.navigate_tree(entry_id, summarize, focus)


def switch_session(session: str) -> None:
    """Pi's ``ctx.switchSession``, from a command the user ran: once the agent is idle, one of
    tack's sessions (an id, or the path of a session file tack keeps), as the user's
    ``/resume``. Only the terminal UI and RPC mode change sessions."""
    _control.switch_session(session)


def register_tool(spec: types.ToolSpec) -> None:
    """Registers (or replaces) one of this plugin's tools; the model sees it from its next turn.
    Build ``spec`` with :func:`tack_plugin.tool`."""
    _tools.register(spec)


def register_provider(
    id: str,
    base_url: str,
    models: List[types.ModelSpec],
    api: Optional[str] = None,
    secret: Optional[str] = None,
    name: str = "",
    headers: Optional[List[Any]] = None,
    auth: Optional[types.AuthScheme] = None,
) -> None:
    """Registers one of this plugin's LLM providers under a new ``id`` (``tack:plugin/providers``,
    Pi's ``registerProvider``), or replaces one it registered before. ``api`` names the provider
    whose plugin writes its requests (``"anthropic"``, ``"openai"``); ``None``: this plugin's own
    provider functions. It is used only once the user granted this plugin ``secret``
    (``secrets``) and ``base_url`` (``http``). Raises ``Err`` (invalid, taken, limit)."""
    _providers.register(
        _providers.ProviderRegistration(
            id=id,
            name=name,
            api=api,
            base_url=base_url,
            secret=secret,
            auth=auth,
            headers=[(str(k), str(v)) for k, v in (headers or [])],
            models=list(models),
        )
    )


def unregister_provider(id: str) -> bool:
    """Removes a provider this plugin registered; ``False`` when it had none of that id."""
    return _providers.unregister(id)


def unregister_tool(name: str) -> bool:
    return _tools.unregister(name)


def all_tools() -> List[_tools.ToolInfo]:
    """Every plugin's tools with their schemas, owner and whether active (Pi's ``getAllTools``)."""
    return _tools.all()


def register_command(name: str, description: str) -> None:
    """Registers (or re-describes) one of this plugin's slash commands, ``/name``; it reaches
    :meth:`tack_plugin.Plugin.run_command` like the commands ``init`` returned."""
    _commands.register(types.CommandSpec(name=name, description=description))


def unregister_command(name: str) -> bool:
    return _commands.unregister(name)


def all_commands() -> List[_commands.CommandInfo]:
    """Every plugin's slash commands with the plugin serving each (Pi's ``getCommands``)."""
    return _commands.all()


def register_shortcut(key: str, description: str = "") -> None:
    """Pi's ``registerShortcut``: binds ``key`` (``ctrl+shift+p``) in the terminal UI; a press
    arrives at :meth:`tack_plugin.Plugin.on_named_event` as ``shortcut`` with ``{"key": key}``.
    Raises ``Err`` for a malformed key or past 32; a key tack or another plugin holds is not
    bound, and the user is told."""
    _shortcuts.register(key, description)


def unregister_shortcut(key: str) -> bool:
    """Unbinds ``key``; False when the plugin had not bound it."""
    return _shortcuts.unregister(key)


def subscribe(*names: str) -> None:
    """Subscribes to events by their ``type`` (``turn_end``, ``message_update``...)."""
    _events.subscribe(list(names))


def unsubscribe(*names: str) -> None:
    _events.unsubscribe(list(names))


def emit(channel: str, data: Any) -> None:
    """Sends ``data`` (as JSON) on the event bus ``channel`` to the other plugins listening there
    (Pi's ``pi.events.emit``; the ``bus`` grant names each channel). Raises ``Err`` with the
    reason when refused: a channel not granted, data over 64 KiB."""
    _bus.emit(channel, json.dumps(data))


def listen(*channels: str) -> None:
    """Listens on event bus channels, all or none; messages arrive at
    ``Plugin.on_named_event("bus_message", ...)`` as ``{"channel", "from", "data"}``, ``from``
    being the sender's name as the host knows it."""
    _bus.listen(list(channels))


def unlisten(*channels: str) -> None:
    _bus.unlisten(list(channels))


def set_widget(key: str, lines: List[str], placement: str = "above") -> None:
    """Pi's ``setWidget`` with ``placement``: "above" or "below" the editor; no lines remove
    it."""
    where = (
        _screen.WidgetPlacement.BELOW_EDITOR
        if placement == "below"
        else _screen.WidgetPlacement.ABOVE_EDITOR
    )
    _screen.set_widget(key, lines, where)


def set_title(title: str) -> None:
    """Pi's ``setTitle``: the terminal window's title; "" restores tack's."""
    _screen.set_title(title)


def set_editor_text(text: str) -> None:
    """Pi's ``setEditorText``: replaces the editor's text (the user still sends it)."""
    _screen.set_editor_text(text)


def paste_to_editor(text: str) -> None:
    """Pi's ``pasteToEditor``: inserts at the cursor."""
    _screen.paste_to_editor(text)


def set_working_message(message: Optional[str]) -> None:
    """Pi's ``setWorkingMessage``: the text beside the spinner; None restores tack's."""
    _screen.set_working_message(message)


def set_footer(left: Optional[str], right: str = "") -> None:
    """Pi's ``setFooter``: ``left`` and ``right`` parts tack pads to the width; ``left=None``
    gives the footer back to tack."""
    _screen.set_footer(None if left is None else _screen.Footer(left, right))


def set_working_visible(visible: bool) -> None:
    """Pi's ``setWorkingVisible``: shows or hides the spinner and its message."""
    _screen.set_working_visible(visible)


def set_working_indicator(frames: Optional[List[str]], interval_ms: int = 0) -> None:
    """Pi's ``setWorkingIndicator``: ``frames`` in place of the spinner, each for
    ``interval_ms`` (0: the spinner's pace); ``[]`` hides it, None restores tack's."""
    _screen.set_working_indicator(
        None if frames is None else _screen.WorkingIndicator(frames, interval_ms)
    )


def set_hidden_thinking_label(label: Optional[str]) -> None:
    """Pi's ``setHiddenThinkingLabel``: the label of hidden thinking; None restores tack's."""
    _screen.set_hidden_thinking_label(label)


def set_header(lines: List[str]) -> None:
    """Pi's ``setHeader``: lines over the conversation (at most 8); ``[]`` removes them."""
    _screen.set_header(lines)


def editor_text() -> Optional[str]:
    """Pi's ``getEditorText``: the user's unsent text (the ``components`` grant); None without
    the grant or an editor."""
    return _screen.editor_text()


def tools_expanded() -> bool:
    """Pi's ``getToolsExpanded``: whether tool output shows in full."""
    return _screen.tools_expanded()


def set_tools_expanded(expanded: bool) -> None:
    """Pi's ``setToolsExpanded``: tool output in full or collapsed, as Ctrl+O."""
    _screen.set_tools_expanded(expanded)


def themes() -> List[str]:
    """Pi's ``getAllThemes``, by name."""
    return _screen.themes()


def theme() -> Optional[str]:
    """The name of the theme shown; None where nothing is shown."""
    return _screen.theme()


def set_theme(name: str) -> None:
    """Pi's ``setTheme`` by name, for this run; raises ``Err`` with the reason it could not."""
    _screen.set_theme(name)


def git_branch() -> Optional[str]:
    """The workspace's git branch (Pi's ``footerData.getGitBranch``)."""
    return _screen.git_branch()


_DELIVERIES = {
    "steer": _session.Delivery.STEER,
    "followUp": _session.Delivery.FOLLOW_UP,
    "nextTurn": _session.Delivery.NEXT_TURN,
}


def send_message(
    text: str,
    deliver_as: str = "steer",
    custom_type: Optional[str] = None,
    display: bool = True,
    details: Any = None,
    trigger_turn: bool = True,
) -> None:
    """Pi's ``sendMessage`` / ``sendUserMessage``: ``deliver_as`` is Pi's ``deliverAs``
    ("steer": before the next provider call, or a turn of its own when the agent is idle;
    "followUp": when the agent would stop; "nextTurn": with the user's next prompt). The
    message is stored as this plugin's, never as the user's; ``details`` (any JSON value) are
    kept beside its text in the session, and the model reads the text only. Without
    ``trigger_turn`` a message to an idle agent is written to the session and starts no turn."""
    delivery = _DELIVERIES.get(deliver_as)
    if delivery is None:
        raise ValueError(f"deliver_as must be one of {', '.join(_DELIVERIES)}, not {deliver_as!r}")
    message = _session.OutgoingMessage(custom_type, text, display)
    if details is None and trigger_turn:
        _session.send_message(message, delivery)
    else:
        encoded = None if details is None else json.dumps(details)
        _control.send_custom_message(message, encoded, delivery, trigger_turn)


class Component:
    """A component this plugin draws and that takes the keyboard while it is up (Pi's
    ``ctx.ui.custom``; needs the ``components`` grant), in place of the editor (``"editor"``)
    or over the screen (``"overlay"``), driven frame by frame from the tool call or command
    that opened it::

        with Component() as component:
            picked = 0
            while True:
                kind, value = component.frame([f"> {items[picked]}"], wait_ms=1000)
                if kind == "closed" or (kind == "key" and value == "enter"):
                    break

    :meth:`frame` answers ``("key", name)`` (named as Pi's ``matchesKey`` names keys: ``a``,
    ``enter``, ``escape``, ``up``, ``ctrl+shift+up``), ``("paste", text)``, ``("tick", None)``
    after ``wait_ms`` (at most 10 s), or ``("closed", None)``: the user pressed Ctrl+C, or
    nobody can see it (print, JSON and RPC modes, or no grant), which :attr:`visible` tells
    before the first frame.
    """

    def __init__(self, placement: str = "editor") -> None:
        self._placement = (
            _screen.ComponentPlacement.OVERLAY
            if placement == "overlay"
            else _screen.ComponentPlacement.EDITOR
        )
        first = _screen.show_component([], 0, self._placement)
        self.width: int = first.width
        self.height: int = first.height
        self.visible: bool = not isinstance(first.input, _screen.ComponentInput_Closed)

    def frame(self, lines: List[str], wait_ms: int = 0) -> "tuple[str, Optional[str]]":
        """Shows ``lines`` (for :attr:`width` columns) and waits for the next input."""
        shown = _screen.show_component(list(lines), wait_ms, self._placement)
        got = shown.input
        if isinstance(got, _screen.ComponentInput_Closed):
            self.visible = False
            return ("closed", None)
        self.width, self.height = shown.width, shown.height
        if isinstance(got, _screen.ComponentInput_Key):
            return ("key", got.value)
        if isinstance(got, _screen.ComponentInput_Paste):
            return ("paste", got.value)
        return ("tick", None)

    def close(self) -> None:
        _screen.close_component()

    def __enter__(self) -> "Component":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def available_models() -> List[_control.ModelInfo]:
    """The models :func:`complete` may name (Pi's ``modelRegistry.getAvailable``)."""
    return _models.available()


def complete(
    prompt: Any,
    *,
    model: Optional[str] = None,
    system_prompt: Optional[str] = None,
    max_tokens: Optional[int] = None,
    thinking: Optional[str] = None,
) -> _models.Completion:
    """A model call of this plugin's own (Pi's ``complete``; needs the ``agents`` grant): a
    prompt, or a conversation as ``[("user" | "assistant", text), ...]``; ``model`` as
    ``provider/id`` (the session's by default). Returns the whole answer (``.text``,
    ``.model``, ``.input_tokens``, ``.output_tokens``, ``.cost``); a refusal or a failed
    provider raises ``wit_world.types.Err`` holding the ``CompletionError``. The key stays
    with tack, and the call is recorded in the session."""
    turns = [("user", prompt)] if isinstance(prompt, str) else list(prompt)
    messages = [
        _models.Message(
            _models.Role.ASSISTANT if role == "assistant" else _models.Role.USER, text
        )
        for role, text in turns
    ]
    return _models.complete(
        _models.CompletionRequest(model, system_prompt, messages, max_tokens, thinking)
    )
