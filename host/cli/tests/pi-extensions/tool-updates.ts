// Pi's `tool_execution_update`, as an extension reads it: the running call's `args` and its
// `partialResult` (tests/pi_extensions.rs, `pi_tool_updates_carry_the_calls_args_and_partial_result`).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  let reported = false;
  pi.on("tool_execution_update", async (event, ctx) => {
    const text = (event.partialResult?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");
    if (!reported && text.includes("first")) {
      reported = true;
      ctx.ui.notify(`update of ${event.toolName}: \`${event.args?.command}\` so far ${JSON.stringify(text.trim())}`, "info");
    }
  });
}
