/**
 * Pi's `session_compact`, as an extension reads it: the compaction entry the session holds, and
 * whether an extension's `session_before_compact` wrote the summary (`fromExtension`). With
 * `/compact mine` this extension writes it (tests/pi_extensions.rs,
 * `pi_session_compact_carries_the_entry_and_who_summarized`).
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("session_before_compact", async (event) => {
		if (event.customInstructions !== "mine") return;
		return { compaction: { summary: "the extension's summary", firstKeptEntryId: "", tokensBefore: 0 } };
	});
	pi.on("session_compact", async (event, ctx) => {
		const entry = event.compactionEntry;
		const parent = typeof entry.parentId === "string" ? "a parent" : "no parent";
		ctx.ui.notify(
			`compacted: ${entry.type} ${entry.id ? "with an id" : "without an id"}, ${parent}, ` +
				`summary ${JSON.stringify(entry.summary)}, fromExtension ${event.fromExtension}`,
			"info",
		);
	});
}
