"""Pi's ``examples/extensions/send-user-message.ts`` (pi-coding-agent 0.73.1) as a tack plugin in
Python, on ``tack:plugin@0.2.0``:

- ``/ask <message>`` sends a message that starts a turn (refused while the agent is busy);
- ``/steer <message>`` sends it at once, or, while the agent works, before its next model call;
- ``/followup <message>`` sends it at once, or queues it for when the agent would stop;
- ``/askwith <message>`` sends structured content (Pi's content array of two text blocks).

Pi's ``pi.sendUserMessage(text, {deliverAs})`` is :func:`tack_plugin.v2.send_message`
(``session.send-message`` with the same three deliveries; a steer message starts a turn when the
agent is idle, as Pi's call does). One difference is by design: tack stores the message as this
plugin's, shown under its name, never as words the user typed. Pi's ``ctx.isIdle()`` is
:func:`tack_plugin.v2.is_idle`, and ``ctx.ui.notify`` is :func:`tack_plugin.notify`.
"""

from tack_plugin import (
    Plugin,
    TaskRunner,  # noqa: F401 (componentize-py exports it from this module)
    command,
    export,
    notify,
    registration,
    types,
)
from tack_plugin.v2 import (  # noqa: F401 (componentize-py exports these from this module)
    Completions,
    Editor,
    Observer,
    ProviderHooks,
    Renderers,
    SessionHooks,
    is_idle,
    send_message,
)


def usage(name: str, args: str) -> bool:
    """Pi's guard: an empty argument shows how to call the command."""
    if args.strip():
        return False
    notify("warn", f"Usage: /{name} <message>")
    return True


class SendUserMessage(Plugin):
    def init(self, ctx: types.InitContext) -> types.Registration:
        return registration(
            commands=[
                command("ask", "Send a user message to the agent"),
                command("steer", "Send a steering message (interrupts current processing)"),
                command("followup", "Queue a follow-up message (waits for current processing)"),
                command("askwith", "Send a user message with structured content"),
            ]
        )

    def run_command(self, name: str, args: str):
        if usage(name, args):
            return None
        if name == "ask":
            if not is_idle():
                notify("warn", "Agent is busy. Use /steer or /followup instead.")
                return None
            send_message(args)
        elif name == "steer":
            # Idle: sent normally (it starts a turn); busy: before the agent's next model call.
            send_message(args, deliver_as="steer")
        elif name == "followup":
            if is_idle():
                send_message(args)
            else:
                send_message(args, deliver_as="followUp")
                notify("info", "Follow-up queued")
        elif name == "askwith":
            if not is_idle():
                notify("warn", "Agent is busy")
                return None
            # Pi sends two text blocks; a plugin's message is one text, so they are two
            # paragraphs of it.
            send_message(f"User request: {args}\n\nPlease respond concisely.")
        else:
            return super().run_command(name, args)
        return None


Guest = export(SendUserMessage)
