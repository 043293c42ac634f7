// Pi's `examples/extensions/input-transform.ts` (pi-coding-agent 0.73.1) as a tack plugin in
// JavaScript, the same plugin as examples/pi/input-transform (Rust) and
// examples/pi-python/input-transform: `?quick <question>` becomes a request for a short answer,
// and `ping` and `time` are answered by the plugin without the model.
//
// Pi's `input` event is the 0.1.0 `input` hook, with the same three outcomes (continue,
// transform, handled). tack's hook sees only what the user typed, never a plugin's message, so
// Pi's `event.source === "extension"` check has nothing to do here.

import { definePlugin, notify, registration } from "./tack.js";

// The time in UTC: a plugin has no time zone to show the local time in, as Pi's
// `toLocaleString` does.
const utcNow = () => new Date().toISOString().slice(0, 19).replace("T", " ") + " UTC";

const answers = { ping: () => "pong", time: utcNow };

export const guest = definePlugin({
  init: () => registration({ hooks: ["input"] }),

  onInput(text) {
    if (text.startsWith("?quick ")) {
      const query = text.slice("?quick ".length).trim();
      if (!query) {
        notify.warn("Usage: ?quick <question>");
        return { tag: "handled" };
      }
      return { tag: "transform", val: `Respond briefly in 1-2 sentences: ${query}` };
    }
    const answer = answers[text.toLowerCase()];
    if (!answer) return { tag: "continue" };
    notify.info(answer());
    return { tag: "handled" };
  },
});
