// Pi's `examples/extensions/qna.ts` (pi-coding-agent 0.73.1) as a tack plugin in JavaScript on
// tack:plugin@0.2.0: `/qna` asks the session's model for the questions in the last answer and
// puts them in the editor, to be answered and sent.
//
// Pi's `complete` of pi-ai (with `ctx.modelRegistry.getApiKeyAndHeaders`) is `models.complete`
// of ./tack-next.js: the request goes out with the key tack holds (the `agents` grant), on the
// session's model. Pi shows a loader while the model works; here the questions found are shown
// in a component (the `components` grant) before they go to the editor: Enter loads them, Esc
// drops them. Where no component can show (RPC mode, no grant) they go to the editor at once.

import { definePlugin, registration, command } from "./tack.js";
import { Component, models, screen } from "./tack-next.js";
import { branch } from "tack:plugin/session@0.1.0";

const SYSTEM_PROMPT = `You are a question extractor. Given text from a conversation, extract any questions that need answering and format them for the user to fill in.

Output format:
- List each question on its own line, prefixed with "Q: "
- After each question, add a blank line for the answer prefixed with "A: "
- If no questions are found, output "No questions found in the last message."

Keep questions in the order they appeared. Be concise.`;

/** The text of the newest assistant message on the active branch that has any. */
function lastAnswer() {
  const entries = JSON.parse(branch());
  for (let i = entries.length - 1; i >= 0; i--) {
    const message = entries[i]?.message;
    if (message?.role !== "assistant" || !Array.isArray(message.content)) continue;
    const text = message.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n");
    if (text.trim()) return text;
  }
  return undefined;
}

/** Shows `questions`; true when the user takes them (Enter), false when dropped (Esc). */
function offer(questions) {
  const component = new Component("overlay");
  try {
    if (!component.visible) return true;
    const lines = [
      "Questions found:",
      "",
      ...questions.split("\n"),
      "",
      "Enter: load into the editor · Esc: drop",
    ];
    for (;;) {
      const input = component.frame(lines, 10_000);
      if (input.tag === "closed") return false;
      if (input.tag === "key" && input.val === "enter") return true;
      if (input.tag === "key" && input.val === "escape") return false;
    }
  } finally {
    component.close();
  }
}

export const guest = definePlugin({
  init: () =>
    registration({
      commands: [command("qna", "Extract questions from the last assistant message into the editor")],
    }),

  runCommand() {
    const answer = lastAnswer();
    if (!answer) throw new Error("No assistant messages found");
    const found = models.complete(answer, { systemPrompt: SYSTEM_PROMPT });
    if (!offer(found.text)) return "Cancelled";
    screen.setEditorText(found.text);
    return "Questions loaded. Edit and submit when ready.";
  },
});
