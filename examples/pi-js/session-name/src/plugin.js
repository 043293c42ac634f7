// Pi's `examples/extensions/session-name.ts` (pi-coding-agent 0.73.1) as a tack plugin in
// JavaScript on tack:plugin@0.2.0, the same plugin as examples/pi/session-name (Rust):
// `/session-name [name]` names the session, or without a name shows it.
//
// Pi's `pi.setSessionName` / `pi.getSessionName` are `control.setSessionName` /
// `control.sessionName` of ./tack-next.js; Pi shows the outcome with `ctx.ui.notify`, a tack
// command returns the text to show, which every front end (print mode included) displays.

import { definePlugin, registration, command } from "./tack.js";
import { control } from "./tack-next.js";

export const guest = definePlugin({
  init: () =>
    registration({
      commands: [command("session-name", "Set or show session name (usage: /session-name [new name])")],
    }),

  runCommand(_name, args) {
    const name = args.trim();
    if (name) {
      control.setSessionName(name);
      return `Session named: ${name}`;
    }
    const current = control.sessionName();
    return current ? `Session: ${current}` : "No session name set";
  },
});
