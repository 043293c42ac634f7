/**
 * One side of Pi's event bus across extensions (with `bus-b.ts`): its `announce` tool emits on
 * channel `x`, which reaches `bus-b` only when both extensions were granted `bus = ["x"]`. Its
 * own listener on `x` hears every emit, granted or not, as Pi's in-process bus does.
 */

import { Type } from "typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	let heardSelf = 0;
	pi.events.on("x", () => {
		heardSelf += 1;
	});
	pi.registerTool({
		name: "announce",
		label: "Announce",
		description: "Emits on the event bus",
		parameters: Type.Object({ text: Type.String() }),
		async execute(_id, params) {
			pi.events.emit("x", { text: params.text });
			return { content: [{ type: "text", text: `announced; heard myself ${heardSelf} time(s)` }] };
		},
	});
}
