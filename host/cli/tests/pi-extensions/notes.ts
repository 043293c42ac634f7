/**
 * Pi's `sendMessage` on an idle agent: `/note <text>` sends a message with `details` and no
 * `triggerTurn` (written to the session, shown, not answered); `/ask-note <text>` sends one with
 * `triggerTurn: true`, which starts a turn (tests/rpc.rs,
 * `a_pi_message_starts_a_turn_only_when_it_asks_to`).
 *
 * Pi's `ctx.waitForIdle`: `/ask-and-wait <text>` sends a question that starts a turn, waits for
 * the agent to be idle, then says the answer and how many provider calls its `context` hook
 * saw (the run needed the extension while the command waited), waits again (refused: once per
 * command) and starts a new session (a command's power, kept after the wait) (tests/rpc.rs,
 * `a_pi_command_waits_for_idle_without_holding_its_extension`).
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
	let runs = 0;
	pi.on("context", () => {
		runs += 1;
	});
	pi.registerCommand("ask-and-wait", {
		handler: async (args, ctx) => {
			pi.sendMessage({ customType: "note", content: `question: ${args}`, display: true }, { triggerTurn: true });
			await ctx.waitForIdle();
			const answer = ctx.sessionManager
				.getBranch()
				.filter((e) => e.type === "message" && e.message.role === "assistant")
				.pop()
				?.message.content.map((c) => c.text ?? "")
				.join("");
			let again = "waited again";
			try {
				await ctx.waitForIdle();
			} catch (e) {
				again = String(e.message ?? e);
			}
			ctx.ui.notify(`after idle: ${answer} (idle: ${ctx.isIdle()}, provider calls: ${runs}; ${again})`, "info");
			await ctx.newSession();
		},
	});
}
