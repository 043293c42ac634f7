// The tack plugin SDK for JavaScript.
//
// `definePlugin({...})` returns the complete `guest` export of the `tack:plugin` world: every
// function the WIT declares exists, and the ones the author did not write fall back to a safe
// default (allow, continue, proceed, "unknown tool"). The host only calls what the plugin lists
// in its registration, so the defaults exist to satisfy the component's type, not to be used.
//
// Types for every record, variant and import are in ../types (generated from the WIT by jco).

import { log as hostLog } from "tack:plugin/host@0.1.0";
import { latestCustom, appendCustom } from "tack:plugin/session@0.1.0";

/** Writes a line to tack's log at `level` ("debug", "info", "warn", "error"). */
export const log = {
  debug: (message) => hostLog("debug", String(message)),
  info: (message) => hostLog("info", String(message)),
  warn: (message) => hostLog("warn", String(message)),
  error: (message) => hostLog("error", String(message)),
};

/** Plugin state kept in `custom` session entries, so it follows the session's branches. */
export const session = {
  /** The newest state of `customType` on the active branch, parsed, or `undefined`. */
  latestState(customType) {
    const data = latestCustom(customType);
    return data === undefined || data === null ? undefined : JSON.parse(data);
  },
  /** Appends `value` (any JSON-serialisable value) as the newest state of `customType`. */
  appendState(customType, value) {
    return appendCustom(customType, JSON.stringify(value));
  },
};

/** A tool the model can call; `parameters` is a JSON Schema object (serialised for you). */
export function tool({ name, label, description, parameters, mode, promptSnippet }) {
  return {
    name,
    label: label ?? name,
    description,
    parameters: JSON.stringify(parameters ?? { type: "object" }),
    mode: mode ?? "parallel",
    promptSnippet,
  };
}

/** A slash command. */
export function command(name, description) {
  return { name, description };
}

/** What `init` returns: only the lists you need, the rest default to empty. */
export function registration({ tools, commands, hooks, events, providers } = {}) {
  return {
    tools: tools ?? [],
    commands: commands ?? [],
    hooks: hooks ?? [],
    events: events ?? [],
    providers: providers ?? [],
  };
}

/** A successful tool result with `text` for the model and optional `details` for front ends. */
export function textResult(text, details) {
  return {
    content: [{ tag: "text", val: text }],
    details: details === undefined ? undefined : JSON.stringify(details),
    isError: false,
  };
}

/** A failed tool result the model sees as an error. */
export function errorResult(message) {
  return { content: [{ tag: "text", val: message }], details: undefined, isError: true };
}

/** before-tool-call decisions. */
export const allow = () => ({ tag: "allow" });
export const block = (reason) => ({ tag: "block", val: reason });
export const rewrite = (args) => ({ tag: "rewrite", val: JSON.stringify(args) });

function unsupported(what) {
  return { kind: "invalid-request", message: `this plugin is not a provider (${what})` };
}

/**
 * Builds the `guest` export from the handlers you write. `impl.init(ctx)` is required; every
 * other handler is optional. `impl.decoder(provider, model)` returns an object with `push(event)`
 * and `finish()` for provider plugins.
 */
export function definePlugin(impl) {
  if (typeof impl?.init !== "function") {
    throw new Error("definePlugin: `init` is required");
  }
  class Decoder {
    constructor(provider, model) {
      this.inner = impl.decoder ? impl.decoder(provider, model) : undefined;
    }
    push(event) {
      if (!this.inner) throw unsupported("decoder.push");
      return this.inner.push(event);
    }
    finish() {
      if (!this.inner) throw unsupported("decoder.finish");
      return this.inner.finish();
    }
  }
  return {
    init: (ctx) => impl.init(ctx),
    callTool: (call) =>
      impl.callTool ? impl.callTool(call) : errorResult(`unknown tool \`${call.name}\``),
    runCommand: (name, args) => {
      if (!impl.runCommand) throw `unknown command \`/${name}\``;
      return impl.runCommand(name, args);
    },
    beforeToolCall: (call) => (impl.beforeToolCall ? impl.beforeToolCall(call) : allow()),
    afterToolCall: (call, result) =>
      impl.afterToolCall ? impl.afterToolCall(call, result) : undefined,
    onInput: (text) => (impl.onInput ? impl.onInput(text) : { tag: "continue" }),
    beforeAgentStart: (prompt, systemPrompt) =>
      impl.beforeAgentStart
        ? impl.beforeAgentStart(prompt, systemPrompt)
        : { systemPrompt: undefined, appendSystemPrompt: undefined, inject: [] },
    context: (messages) => (impl.context ? impl.context(messages) : undefined),
    beforeCompact: (request) =>
      impl.beforeCompact ? impl.beforeCompact(request) : { tag: "proceed" },
    onEvent: (kind, data) => {
      if (impl.onEvent) impl.onEvent(kind, data);
    },
    buildRequest: (request) => {
      if (!impl.buildRequest) throw unsupported("build-request");
      return impl.buildRequest(request);
    },
    decodeError: (provider, status, headers, body) =>
      impl.decodeError
        ? impl.decodeError(provider, status, headers, body)
        : { kind: "other", message: `HTTP ${status}`, retryAfterMs: undefined },
    Decoder,
  };
}
