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
import { notify as hostNotify } from "tack:plugin/ui@0.1.0";
import { parallelism as hostParallelism, run as hostRunTasks } from "tack:plugin/tasks@0.1.0";
import {
  permissions as hostPermissions,
  setPermissions as hostSetPermissions,
} from "tack:plugin/files@0.1.0";

/** Writes a line to tack's log at `level` ("debug", "info", "warn", "error"). */
export const log = {
  debug: (message) => hostLog("debug", String(message)),
  info: (message) => hostLog("info", String(message)),
  warn: (message) => hostLog("warn", String(message)),
  error: (message) => hostLog("error", String(message)),
};

/**
 * Shows a message to the user at `level` ("debug", "info", "warn", "error"): a toast in the
 * terminal UI, an `extension_ui_request` in RPC mode, a line on stderr in print mode.
 */
export const notify = {
  debug: (message) => hostNotify("debug", String(message)),
  info: (message) => hostNotify("info", String(message)),
  warn: (message) => hostNotify("warn", String(message)),
  error: (message) => hostNotify("error", String(message)),
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

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** The bytes of `value`: a Uint8Array as it is, anything else as the UTF-8 of `String(value)`. */
function bytesOf(value) {
  return value instanceof Uint8Array ? value : utf8Encoder.encode(String(value));
}

/** The message of an error an import threw for its `result`'s `err` (jco puts it in `payload`). */
function messageOf(e) {
  if (typeof e === "string") return e;
  if (e && typeof e.payload === "string") return e.payload;
  return String(e?.message ?? e);
}

/**
 * Fan-out: one call split into tasks the host runs at the same time on other instances of this
 * plugin, each handled by the `runTask` handler given to `definePlugin`. Tasks share the calling
 * call's deadline, have this plugin's grants, and cannot start tasks themselves.
 */
export const tasks = {
  /** How many tasks the host runs at the same time: size the split by it. */
  parallelism: () => hostParallelism(),
  /**
   * Runs every input (a string or a Uint8Array) as a task and waits for all of them. Returns, in
   * input order, `{ ok: true, value }` (the Uint8Array `runTask` returned) or
   * `{ ok: false, error }`; throws an Error when the host refuses the whole run (from `init` or
   * a task, more than 4096 inputs).
   */
  run(inputs) {
    let results;
    try {
      results = hostRunTasks(inputs.map(bytesOf));
    } catch (e) {
      throw new Error(messageOf(e));
    }
    return results.map((r) =>
      r.tag === "ok" ? { ok: true, value: r.val } : { ok: false, error: r.val },
    );
  },
  /** Like `run`, with each successful `value` decoded from UTF-8 into a string. */
  runText(inputs) {
    return tasks
      .run(inputs)
      .map((r) => (r.ok ? { ok: true, value: utf8Decoder.decode(r.value) } : r));
  },
};

/**
 * Unix permission bits, which WASI cannot read or set. Paths are absolute and checked against
 * the plugin's `fs` grants like every filesystem call: outside them the call throws an Error
 * saying so.
 */
export const files = {
  /** The permission bits of the file at `path` (`0o644`, say). */
  permissions(path) {
    try {
      return hostPermissions(path);
    } catch (e) {
      throw new Error(messageOf(e));
    }
  },
  /** Sets them (only the `0o777` bits; needs a read-write grant). */
  setPermissions(path, mode) {
    try {
      hostSetPermissions(path, mode);
    } catch (e) {
      throw new Error(messageOf(e));
    }
  },
};

/** A UTF-8 Uint8Array as a string (a task's input, say). */
export function textOf(bytes) {
  return utf8Decoder.decode(bytes);
}

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

// The handler of tasks started with `tasks.run`, set by `definePlugin`.
let taskHandler;

// The handlers `definePlugin` was given, for the 0.2.0 exports of ./tack-next.js.
let current;

/** The handlers passed to `definePlugin` (for ./tack-next.js). */
export function currentPlugin() {
  return current;
}

/**
 * The `task-runner` export: runs one task on this instance through the plugin's `runTask`. The
 * build exports it beside `guest` (see bin/build.js); plugins do not export it themselves.
 */
export const taskRunner = {
  runTask(input) {
    if (!taskHandler) throw "this plugin runs no tasks";
    try {
      return bytesOf(taskHandler(input));
    } catch (e) {
      throw messageOf(e);
    }
  },
};

/**
 * Builds the `guest` export from the handlers you write. `impl.init(ctx)` is required; every
 * other handler is optional. `impl.runTask(input)` handles the tasks `tasks.run` starts: it gets
 * a Uint8Array and returns a Uint8Array or a string (or throws the task's error).
 * `impl.decoder(provider, model)` returns an object with `push(event)` and `finish()` for
 * provider plugins.
 */
export function definePlugin(impl) {
  if (typeof impl?.init !== "function") {
    throw new Error("definePlugin: `init` is required");
  }
  taskHandler = typeof impl.runTask === "function" ? impl.runTask : undefined;
  current = impl;
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
