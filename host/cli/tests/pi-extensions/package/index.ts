// A Pi package's extension, as Pi's docs/packages.md lays a package out: package.json's `pi` key
// names it beside the package's skills and prompt templates.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("demo", {
		description: "Shows that the package's extension runs",
		handler: async (_args, ctx) => ctx.ui.notify("demo ran", "info"),
	});
}
