/**
 * The other side of Pi's event bus across extensions (with `bus-a.ts`): what it hears on
 * channel `x` it keeps as session state (`heard` entries) and tells the user.
 */

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	let ctx: ExtensionContext | undefined;
	pi.on("session_start", async (_event, c) => {
		ctx = c;
	});
	pi.events.on("x", (data) => {
		pi.appendEntry("heard", data);
		ctx?.ui.notify(`bus-b heard: ${(data as { text: string }).text}`, "info");
	});
}
