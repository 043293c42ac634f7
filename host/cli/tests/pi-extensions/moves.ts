/**
 * Session moves from commands, as Pi's command handlers make them: `/fork-last` forks before
 * the last user message (and says so from the fork, through `withSession`), `/fork-at-last`
 * forks with it, `/switch-to <session>` switches to another session. `/session-summary` labels the
 * first entry and says what `ctx.sessionManager`'s reads of the whole session return. The
 * `stop_run` tool stops the run it is part of (`ctx.abort`). `/tree-to-last` moves in the session
 * tree to the last user message (`ctx.navigateTree`).
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

	pi.registerCommand("tree-to-last", {
		description: "Moves in the tree to the last user message (so, to before it)",
		handler: async (_args, ctx) => {
			const last = lastUserEntry(ctx);
			const result = await ctx.navigateTree(last.id, { summarize: false });
			ctx.ui.notify(`tree move asked: cancelled=${result.cancelled}`, "info");
		},
	});

	pi.registerCommand("session-summary", {
		description: "Labels the first entry and summarizes the session tree",
		handler: async (_args, ctx) => {
			const sm = ctx.sessionManager;
			const first = sm.getEntries()[0];
			pi.setLabel(first.id, "start");
			const depth = (nodes) =>
				nodes.length === 0 ? 0 : 1 + Math.max(...nodes.map((node) => depth(node.children)));
			const tree = sm.getTree();
			const summary = {
				entries: sm.getEntries().length,
				branch: sm.getBranch().length,
				roots: tree.length,
				depth: depth(tree),
				rootLabel: tree[0]?.label,
				label: sm.getLabel(first.id),
				leafIsBranchEnd: sm.getLeafId() === sm.getBranch().at(-1).id,
				leafEntryType: sm.getLeafEntry()?.type,
				found: sm.getEntry(first.id)?.id === first.id,
				header: sm.getHeader(),
			};
			ctx.ui.notify(`summary ${JSON.stringify(summary)}`, "info");
		},
	});

	pi.registerTool({
		name: "stop_run",
		label: "Stop the run",
		description: "Stops the agent's run",
		parameters: { type: "object", properties: {} },
		async execute(_id, _params, _signal, _onUpdate, ctx) {
			ctx.abort();
			return { content: [{ type: "text", text: "stopping" }], details: {} };
		},
	});

	// A tool may not move the session, nor wait for idle to go on with a command's powers: only
	// a command the user runs may.
	pi.registerTool({
		name: "fork_from_tool",
		label: "Fork from a tool",
		description: "Tries to fork the session from a tool call",
		parameters: { type: "object", properties: {} },
		async execute(_id, _params, _signal, _onUpdate, ctx) {
			const refusals: string[] = [];
			try {
				await (ctx as any).fork("anything");
			} catch (e) {
				refusals.push(String(e));
			}
			try {
				await (ctx as any).waitForIdle();
			} catch (e) {
				refusals.push(String(e));
			}
			const text = refusals.length ? `refused: ${refusals.join("; ")}` : "forked";
			return { content: [{ type: "text", text }], details: {} };
		},
	});
}
