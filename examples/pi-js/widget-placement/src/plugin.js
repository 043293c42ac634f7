// Pi's `examples/extensions/widget-placement.ts` (pi-coding-agent 0.73.1) as a tack plugin in
// JavaScript on tack:plugin@0.2.0, the same plugin as examples/pi/widget-placement (Rust): when
// the session starts, one widget above the editor and one below it.
//
// Pi's `ctx.ui.setWidget(key, lines, { placement })` is `screen.setWidget` of ./tack-next.js,
// and its `ctx.hasUI` check is `control.hasUi()`.

import { definePlugin, registration } from "./tack.js";
import { control, screen } from "./tack-next.js";

export const guest = definePlugin({
  init: () => registration({ events: ["session-start"] }),

  onEvent(kind) {
    if (kind !== "session-start" || !control.hasUi()) return;
    screen.setWidget("widget-above", ["Above editor widget"], "aboveEditor");
    screen.setWidget("widget-below", ["Below editor widget"], "belowEditor");
  },
});
