// Pi's `tool_execution_update`, as an extension reads it: the running call's `args` and its
// `partialResult`; and `turn_start` / `turn_end` with their `turnIndex` and `timestamp`
// (tests/pi_extensions.rs, `pi_tool_updates_carry_the_calls_args_and_partial_result`).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  const turns: string[] = [];
  pi.on("turn_start", async (event) => {
    const dated = Math.abs(Date.now() - event.timestamp) < 60_000 ? "" : " (no time)";
    turns.push(`start ${event.turnIndex}${dated}`);
  });
  pi.on("turn_end", async (event, ctx) => {
    turns.push(`end ${event.turnIndex}`);
    ctx.ui.notify(`turns: ${turns.join(", ")}`, "info");
  });
  // Pi's streamed deltas: the first text delta, as an extension reads it.
  let streamed = false;
  pi.on("message_update", async (event, ctx) => {
    const update = event.assistantMessageEvent;
    if (streamed || update?.type !== "text_delta") return;
    streamed = true;
    const partial = update.partial?.role === "assistant" ? "the partial answer" : "no partial answer";
    ctx.ui.notify(`streamed: ${update.type} at ${update.contentIndex} with ${partial}`, "info");
  });
  let reported = false;
  pi.on("tool_execution_update", async (event, ctx) => {
    const text = (event.partialResult?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");
    if (!reported && text.includes("first")) {
      reported = true;
      ctx.ui.notify(`update of ${event.toolName}: \`${event.args?.command}\` so far ${JSON.stringify(text.trim())}`, "info");
    }
  });
}
