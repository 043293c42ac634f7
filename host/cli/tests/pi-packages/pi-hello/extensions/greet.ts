/**
 * A greet tool whose words come from an npm dependency of the package.
 */

import { Type } from "@mariozechner/pi-ai";
import { defineTool, type ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { greet } from "tack-test-greeting";

const greetTool = defineTool({
	name: "greet",
	label: "Greet",
	description: "Greets someone by name",
	parameters: Type.Object({
		name: Type.String({ description: "Who to greet" }),
	}),

	async execute(_toolCallId, params) {
		return {
			content: [{ type: "text", text: greet(params.name) }],
			details: { greeted: params.name },
		};
	},
});

export default function (pi: ExtensionAPI) {
	pi.registerTool(greetTool);
}
