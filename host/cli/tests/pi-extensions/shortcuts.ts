/**
 * Keys a Pi extension binds (`pi.registerShortcut`): Ctrl+Alt+P says which session it is in,
 * F5's handler fails, Ctrl+T asks for a key tack holds, and `x` for a key people type.
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Key } from "@mariozechner/pi-tui";

export default function (pi: ExtensionAPI) {
	pi.registerShortcut(Key.ctrlAlt("p"), {
		description: "Say which session this is",
		handler: async (ctx) => {
			ctx.ui.notify(`shortcut in session ${ctx.sessionManager.getSessionId().slice(0, 8)}`, "info");
		},
	});
	pi.registerShortcut("f5", {
		description: "Fails",
		handler: async () => {
			throw new Error("the handler broke");
		},
	});
	pi.registerShortcut("ctrl+t", {
		description: "Wants tack's key",
		handler: async (ctx) => ctx.ui.notify("took ctrl+t", "info"),
	});
	pi.registerShortcut("x", {
		description: "A key people type",
		handler: async (ctx) => ctx.ui.notify("took x", "info"),
	});
}
