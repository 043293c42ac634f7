"""Pi's ``examples/extensions/input-transform.ts`` (pi-coding-agent 0.73.1) as a tack plugin in
Python, the same plugin as ``examples/pi/input-transform`` in Rust: ``?quick <question>``
becomes a request for a short answer, and ``ping`` and ``time`` are answered by the plugin
without the model.

Pi's ``input`` event is the 0.1.0 ``input`` hook, with the same three outcomes (continue,
transform, handled). tack's hook sees only what the user typed, never a plugin's message, so
Pi's ``event.source === "extension"`` check has nothing to do here.
"""

import time

from tack_plugin import (
    Plugin,
    TaskRunner,  # noqa: F401 (componentize-py exports it from this module)
    export,
    notify,
    registration,
    types,
)
from wit_world.exports import guest


def utc_now() -> str:
    """The time in UTC: a plugin has no time zone to show the local time in, as Pi's
    ``toLocaleString`` does."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


class InputTransform(Plugin):
    def init(self, ctx: types.InitContext) -> types.Registration:
        return registration(hooks=[types.HookKind.INPUT])

    def on_input(self, text: str) -> guest.InputAction:
        if text.startswith("?quick "):
            query = text[len("?quick "):].strip()
            if not query:
                notify("warn", "Usage: ?quick <question>")
                return guest.InputAction_Handled()
            return guest.InputAction_Transform(f"Respond briefly in 1-2 sentences: {query}")
        answer = {"ping": lambda: "pong", "time": utc_now}.get(text.lower())
        if answer is None:
            return guest.InputAction_Continue()
        notify("info", answer())
        return guest.InputAction_Handled()


Guest = export(InputTransform)
