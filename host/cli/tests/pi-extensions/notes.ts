/**
 * Pi's `sendMessage` on an idle agent: `/note <text>` sends a message with `details` and no
 * `triggerTurn` (written to the session, shown, not answered); `/ask-note <text>` sends one with
 * `triggerTurn: true`, which starts a turn (tests/rpc.rs,
 * `a_pi_message_starts_a_turn_only_when_it_asks_to`).
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("note", {
		handler: async (args) => {
			pi.sendMessage({
				customType: "note",
				content: `note: ${args}`,
				display: true,
				details: { length: args.length },
			});
		},
	});
	pi.registerCommand("ask-note", {
		handler: async (args) => {
			pi.sendMessage({ customType: "note", content: `question: ${args}`, display: true }, { triggerTurn: true });
		},
	});
}
