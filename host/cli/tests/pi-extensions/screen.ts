/**
 * What a Pi extension changes and reads of the terminal UI around the conversation: a header
 * and a working indicator of its own and a label for hidden thinking from the session's start;
 * `peek_editor` waits (up to ten seconds) for the user to write something in the editor and
 * returns it (`getEditorText`, which needs the components grant); `/screen-bits` flips tool
 * output's expansion, lists the themes, switches to the light one, tries one that does not
 * exist, and hides the working row; `/own-editor` puts an editor of its own in place of tack's
 * (`setEditorComponent`), reads it back (`getEditorComponent`) and gives tack's back;
 * `/slow-note` sends a message its renderer draws, then keeps its instance busy for a second and
 * a half (tack asks the renderer again once it is free); `/empty-editor` puts an editor that
 * draws nothing in place of tack's (tack gives its own back).
 */

import { CustomEditor, type ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("session_start", async (_event, ctx) => {
		ctx.ui.setHeader((_tui, theme) => ({
			render: () => [theme.fg("accent", "== screen.ts header ==")],
			invalidate() {},
		}));
		ctx.ui.setWorkingIndicator({ frames: ["\x1b[35m<o>\x1b[39m", "<O>"], intervalMs: 120 });
		ctx.ui.setHiddenThinkingLabel("Pondering...");
	});

	pi.registerTool({
		name: "peek_editor",
		label: "Peek at the editor",
		description: "Waits for the user's draft and reads it",
		parameters: { type: "object", properties: {} },
		async execute(_id, _params, _signal, _onUpdate, ctx) {
			for (let i = 0; i < 100; i++) {
				const draft = ctx.ui.getEditorText();
				if (draft.trim()) {
					return { content: [{ type: "text", text: `draft: ${draft}` }], details: {} };
				}
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
			return { content: [{ type: "text", text: "no draft" }], details: {} };
		},
	});

	pi.registerMessageRenderer("slow-note", (message) => ({
		render: () => [`drawn: ${message.content}`],
		invalidate() {},
	}));
	pi.registerCommand("slow-note", {
		handler: async () => {
			pi.sendMessage({ customType: "slow-note", content: "slow note", display: true });
			await new Promise((resolve) => setTimeout(resolve, 1500));
		},
	});
	pi.registerCommand("empty-editor", {
		handler: async (_args, ctx) => {
			ctx.ui.setEditorComponent(() => ({ render: () => [], handleInput() {}, invalidate() {} }));
		},
	});
	pi.registerCommand("own-editor", {
		handler: async (_args, ctx) => {
			const factory = (tui: any, theme: any, keybindings: any) => new CustomEditor(tui, theme, keybindings);
			ctx.ui.setEditorComponent(factory);
			const kept = ctx.ui.getEditorComponent() === factory;
			ctx.ui.setEditorComponent(undefined);
			const back = ctx.ui.getEditorComponent() === undefined;
			ctx.ui.notify(`own editor kept: ${kept}; given back: ${back}`, "info");
		},
	});
	pi.registerCommand("screen-bits", {
		description: "Flips tool expansion, switches the theme and hides the working row",
		handler: async (_args, ctx) => {
			const before = ctx.ui.getToolsExpanded();
			ctx.ui.setToolsExpanded(!before);
			const themes = ctx.ui.getAllThemes().map((theme) => theme.name).join(",");
			const light = ctx.ui.setTheme("light");
			const missing = ctx.ui.setTheme("nope");
			const known = ctx.ui.getTheme("light") !== undefined;
			ctx.ui.setWorkingVisible(false);
			ctx.ui.notify(`expanded ${before} -> ${ctx.ui.getToolsExpanded()}`, "info");
			ctx.ui.notify(`themes ${themes}; light ${light.success} ${known}`, "info");
			ctx.ui.notify(`nope: ${missing.error}`, "info");
		},
	});
}
