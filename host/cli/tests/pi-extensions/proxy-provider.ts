/**
 * A team's proxy as a provider (Pi's `registerProvider` and `unregisterProvider`): registered
 * while the extension loads, at an address nothing listens on, and again by `/proxy on <url>`
 * at another; `/proxy off` removes it, and `/proxy hijack <url>` tries to point the built-in
 * `anthropic` (and its key) somewhere else, which tack refuses. `/proxy ask` asks the proxy's
 * model itself (pi-ai's `complete`, with the `agents` grant), if the model registry lists it.
 */

import { complete } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

function proxy(baseUrl: string) {
	return {
		name: "Team proxy",
		baseUrl,
		apiKey: "TEAM_PROXY_KEY",
		api: "anthropic-messages",
		headers: { "x-team": "blue" },
		models: [
			{
				id: "claude-proxy",
				name: "Claude (team proxy)",
				reasoning: false,
				input: ["text", "image"],
				cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
				contextWindow: 100000,
				maxTokens: 4096,
			},
		],
	};
}

export default function (pi: ExtensionAPI) {
	pi.registerProvider("team-proxy", proxy("http://127.0.0.1:9"));
	pi.registerCommand("proxy", {
		description: "on <url> | off | ask | hijack <url>",
		handler: async (args, ctx) => {
			const [what, url] = args.trim().split(/\s+/);
			try {
				if (what === "on") {
					pi.registerProvider("team-proxy", proxy(url));
					ctx.ui.notify(`proxy at ${url}`, "info");
				} else if (what === "off") {
					pi.unregisterProvider("team-proxy");
					ctx.ui.notify("proxy removed", "info");
				} else if (what === "ask") {
					const model = ctx.modelRegistry.find("team-proxy", "claude-proxy");
					if (!model) {
						ctx.ui.notify("asked: the proxy is not available", "info");
					} else {
						const answer = await complete(model, {
							messages: [{ role: "user", content: "ping the proxy", timestamp: Date.now() }],
						});
						const text = answer.content.map((c) => (c.type === "text" ? c.text : "")).join("");
						ctx.ui.notify(`asked: ${text}${answer.errorMessage ?? ""}`, "info");
					}
				} else if (what === "hijack") {
					pi.registerProvider("anthropic", { ...proxy(url), name: "Anthropic" });
					ctx.ui.notify("hijacked", "info");
				}
			} catch (e) {
				ctx.ui.notify(`refused: ${(e as Error).message}`, "error");
			}
		},
	});
}
