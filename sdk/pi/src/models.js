// Pi's model calls of its own (`complete` of @mariozechner/pi-ai, `ctx.modelRegistry`) on
// tack:plugin/models@0.2.0. The key never reaches the extension: the registry answers with a
// stand-in that `complete` ignores, and the host's provider plugin sends the request with the
// credentials the user gave it. A call needs the `agents` grant.

import * as models from "tack:plugin/models@0.2.0";

/** What `getApiKeyAndHeaders` answers in place of a key: it means nothing outside tack. */
export const HELD_KEY = "(held by tack)";

/** A model as pi-ai describes one, from tack's `model-info`. */
export function piModel(info) {
  if (!info) return undefined;
  return {
    provider: info.provider,
    id: info.id,
    name: info.name,
    api: info.provider,
    contextWindow: info.contextWindow,
    reasoning: info.reasoning,
    input: info.images ? ["text", "image"] : ["text"],
  };
}

/** Every model a model call may name, as pi-ai models. */
export function availableModels() {
  return models.available().map(piModel);
}

export function findModel(provider, id) {
  return availableModels().find((m) => m.provider === provider && m.id === id);
}

/** `ctx.modelRegistry`: the models tack can call now; keys stay with tack. */
export function modelRegistry() {
  return {
    getAll: () => availableModels(),
    getAvailable: () => availableModels(),
    find: (provider, id) => findModel(provider, id),
    getApiKeyAndHeaders: async (model) =>
      model && findModel(model.provider, model.id)
        ? { ok: true, apiKey: HELD_KEY, headers: {} }
        : { ok: false, error: `tack cannot call ${model?.provider}/${model?.id}` },
    getApiKey: async () => {
      const error = new Error(
        "ctx.modelRegistry.getApiKey is not available in tack: secrets never enter a plugin " +
          "(complete() of @mariozechner/pi-ai sends the request with the key tack holds)",
      );
      error.code = "TACK_NOT_AVAILABLE";
      throw error;
    },
  };
}

/** The text of a pi-ai message's content: a string, or its text parts. */
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part && part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

function turn(message) {
  const role = message.role === "assistant" ? "assistant" : "user";
  let text = textOf(message.content);
  if (message.role === "toolResult") {
    const of = message.toolName ? ` of ${message.toolName}` : "";
    text = `[tool result${of}]\n${text}`;
  }
  return { role, text };
}

const THINKING = { minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "high" };

/**
 * pi-ai's `complete(model, context, options)`: the whole answer as an assistant message. A
 * failed provider call resolves with `stopReason: "error"`, an abort with `"aborted"`, as
 * pi-ai's do; a call tack refuses (no `agents` grant, an unknown model) throws, naming why.
 */
export async function complete(model, context = {}, options = {}) {
  const request = {
    model: model ? `${model.provider}/${model.id}` : undefined,
    systemPrompt: context.systemPrompt,
    messages: (context.messages ?? []).map(turn),
    maxTokens: options.maxTokens,
    thinking: THINKING[options.reasoningEffort ?? options.reasoning],
  };
  const base = {
    role: "assistant",
    api: model?.api ?? model?.provider,
    provider: model?.provider,
    model: model?.id,
    timestamp: Date.now(),
  };
  const noCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: noCost };
  let done;
  try {
    done = models.complete(request);
  } catch (e) {
    const why = e?.payload ?? e;
    if (why?.tag === "aborted") return { ...base, content: [], usage: zero, stopReason: "aborted" };
    if (why?.tag === "failed") {
      return { ...base, content: [], usage: zero, stopReason: "error", errorMessage: why.val };
    }
    const error = new Error(`tack refused the model call: ${why?.val ?? why}`);
    error.code = "TACK_MODEL_CALL";
    throw error;
  }
  const [provider, ...id] = done.model.split("/");
  return {
    ...base,
    provider,
    model: id.join("/"),
    content: done.text ? [{ type: "text", text: done.text }] : [],
    usage: {
      ...zero,
      input: Number(done.inputTokens),
      output: Number(done.outputTokens),
      totalTokens: Number(done.inputTokens) + Number(done.outputTokens),
      cost: { ...noCost, total: done.cost },
    },
    stopReason: "stop",
  };
}
