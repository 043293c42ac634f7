// What pi-tui's components import from its `tui.js` (the terminal renderer, which tack is): the
// cursor marker. The runtime's bundle resolves their `../tui.js` here (bin/build-runtime.js).

import { notInTack } from "./api.js";

export const CURSOR_MARKER = "\x1b_pi:c\x07";

export class TUI {
  constructor() {
    throw notInTack("pi-tui's TUI", "tack's terminal UI is the host's; use ctx.ui.custom");
  }
}
