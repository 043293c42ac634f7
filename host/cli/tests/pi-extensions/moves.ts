/**
 * Session moves from commands, as Pi's command handlers make them: `/fork-last` forks before
 * the last user message (and says so from the fork, through `withSession`), `/fork-at-last`
 * forks with it, `/switch-to <session>` switches to another session.
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	const lastUserEntry = (ctx) =>
		ctx.sessionManager
			.getBranch()
			.filter((entry) => entry.type === "message" && entry.message.role === "user")
			.at(-1);

	for (const [name, position] of [
		["fork-last", "before"],
		["fork-at-last", "at"],
	] as const) {
		pi.registerCommand(name, {
			description: `Forks ${position} the last user message`,
			handler: async (_args, ctx) => {
				const last = lastUserEntry(ctx);
				if (!last) {
					ctx.ui.notify("nothing to fork", "warning");
					return;
				}
				await ctx.fork(last.id, {
					position,
					withSession: async (next) =>
						next.ui.notify(`forked into ${next.sessionManager.getSessionId()}`, "info"),
				});
			},
		});
	}

	pi.registerCommand("switch-to", {
		description: "Switches to another session",
		handler: async (args, ctx) => {
			await ctx.switchSession(args.trim(), {
				withSession: async (next) =>
					next.ui.notify(`switched to ${next.sessionManager.getSessionId()}`, "info"),
			});
		},
	});

	// A tool may not move the session: only a command the user runs may.
	pi.registerTool({
		name: "fork_from_tool",
		label: "Fork from a tool",
		description: "Tries to fork the session from a tool call",
		parameters: { type: "object", properties: {} },
		async execute(_id, _params, _signal, _onUpdate, ctx) {
			try {
				await (ctx as any).fork("anything");
				return { content: [{ type: "text", text: "forked" }], details: {} };
			} catch (e) {
				return { content: [{ type: "text", text: `refused: ${e}` }], details: {} };
			}
		},
	});
}
