// tack's Pi runtime: one component that runs any Pi extension unchanged. The host hands it the
// extension's bundle (sdk/pi/bin/bundle.js) in its configuration; `init` evaluates it, calls
// its factory with `pi`, and answers with what the factory registered. Pi's events then arrive
// through tack's hooks and named events, translated into the shapes Pi's handlers expect.

// First: the extension's timers are counted from the start (see ./timers.js).
import "./timers.js";
import {
  allow,
  block,
  command,
  currentPlugin,
  definePlugin,
  errorResult,
  log,
  registration,
} from "./tack.js";
import * as agent from "tack:plugin/agent@0.1.0";
import * as hostEvents from "tack:plugin/events@0.2.0";
import * as control from "tack:plugin/control@0.2.0";

import { Extension, piResultOf, specOf, toolResultOf } from "./api.js";
import { Buffer } from "./buffer.js";
import { fetch } from "./fetch.js";
import { process, setDataDir, setWorkspace } from "./node.js";
import { makeRequire } from "./pi-modules.js";

// Pi's events that arrive as tack's named events, and the tack name of each.
const NAMED = {
  session_start: "session_start",
  session_shutdown: "session_shutdown",
  session_tree: "session_tree",
  session_compact: "compaction_end",
  agent_start: "agent_start",
  agent_end: "agent_end",
  turn_start: "turn_start",
  turn_end: "turn_end",
  message_start: "message_start",
  message_update: "message_update",
  message_end: "message_end",
  tool_execution_start: "tool_execution_start",
  tool_execution_update: "tool_execution_update",
  tool_execution_end: "tool_execution_end",
  model_select: "model_select",
  thinking_level_select: "thinking_level_select",
};

// Pi's events that are tack hooks, which a plugin names in its registration.
const HOOKS = {
  tool_call: "before-tool-call",
  tool_result: "after-tool-call",
  input: "input",
  before_agent_start: "before-agent-start",
  context: "context",
  session_before_compact: "before-compact",
};

// Pi's events served by the runtime's own exports (session-hooks, provider-hooks).
const EXPORTS = new Set([
  "session_before_switch",
  "session_before_fork",
  "session_before_tree",
  "before_provider_request",
  "after_provider_response",
]);

const NOT_YET = {
  user_bash:
    "tack's policies see the user's `!cmd` as a bash call; a Pi `user_bash` handler is not called",
  resources_discover:
    "a Pi package's skills, prompts and themes are found when it is installed, not by this event",
};

// Pi's packages read `process` as a global (pi-tui's terminal detection, chalk); `fetch` is
// tack's, through the extension's `http` grant.
globalThis.process ??= process;
globalThis.fetch = fetch;
globalThis.Buffer ??= Buffer;

let ext;

const camel = (key) => key.replace(/_([a-z])/g, (_m, c) => c.toUpperCase());

/** tack's event JSON in Pi's shape: camelCase fields (a turn's `turnIndex` and `timestamp`
 * are the host's), and what Pi adds. */
// Pi's `tool_execution_update` repeats the call's `args`, which tack sends with
// `tool_execution_start` only: an extension that asks for updates hears the starts and ends too,
// and the runtime keeps each running call's arguments (a bounded number, should an end be lost).
const ALSO_HEARD = { tool_execution_update: ["tool_execution_start", "tool_execution_end"] };
const MAX_RUNNING_CALLS = 256;
const runningArgs = new Map();

/** The tack events the runtime subscribes to for the Pi event `event`. */
function tackEventsOf(event) {
  return [NAMED[event], ...(ALSO_HEARD[event] ?? [])];
}

function rememberArgs(name, data) {
  if (name === "tool_execution_start") {
    if (runningArgs.size >= MAX_RUNNING_CALLS) runningArgs.delete(runningArgs.keys().next().value);
    runningArgs.set(data?.tool_call_id, data?.args ?? {});
  }
}

function piEventOf(piName, data) {
  const event = { type: piName };
  for (const [key, value] of Object.entries(data ?? {})) {
    if (key !== "type") event[camel(key)] = value;
  }
  if (piName === "tool_execution_update") {
    event.args = runningArgs.get(data?.tool_call_id) ?? {};
    event.partialResult = event.partial;
  }
  if (piName === "message_update" && !event.assistantMessageEvent && event.delta) {
    // tack's delta in Pi's shape: the same `type` names, camelCase, and the partial message.
    const { type, content_index, delta, id, name } = event.delta;
    event.assistantMessageEvent = { type, contentIndex: content_index, partial: event.message };
    if (delta !== undefined) event.assistantMessageEvent.delta = delta;
    if (id !== undefined) event.assistantMessageEvent.id = id;
    if (name !== undefined) event.assistantMessageEvent.name = name;
  }
  if (piName === "session_compact") {
    // The entry as the session holds it (id, parentId, timestamp and all), read back by id.
    const entries = data?.entry_id ? JSON.parse(control.sessionEntries()) : [];
    const written = entries.find((entry) => entry?.id === data.entry_id);
    event.compactionEntry = written ?? {
      type: "compaction",
      id: data?.entry_id,
      ...compactionResultOf(data),
      fromHook: data?.from_hook === true,
    };
    event.fromExtension = data?.from_hook === true;
  }
  return event;
}

/** Pi's `CompactionResult` from tack's `compaction_end`. */
function compactionResultOf(data) {
  return {
    summary: data?.summary,
    firstKeptEntryId: data?.first_kept_entry_id,
    tokensBefore: data?.tokens_before,
  };
}

function evaluate(bundle, workspace) {
  const require = makeRequire();
  const module = { exports: {} };
  const entry = bundle.entry ?? `${workspace}/extension.ts`;
  const dir = entry.slice(0, entry.lastIndexOf("/")) || "/";
  // The bundle is the extension's own code: it runs in this sandboxed instance only.
  const body = new Function(
    "require",
    "module",
    "exports",
    "__filename",
    "__dirname",
    "process",
    "__tack_import_meta_url",
    bundle.source,
  );
  body(require, module, module.exports, entry, dir, process, `file://${entry}`);
  const factory = module.exports?.default ?? module.exports;
  if (typeof factory !== "function") {
    throw new Error(`${entry} exports no extension factory (a default export taking \`pi\`)`);
  }
  return factory;
}

/** A signal nobody aborts: Pi hands one to tools and hooks, and tack's aborts reach `exec`. */
function freshSignal() {
  return globalThis.AbortController ? new AbortController().signal : undefined;
}

function messageOf(e) {
  if (typeof e === "string") return e;
  if (e && typeof e.payload === "string") return e.payload;
  return String(e?.message ?? e);
}

/**
 * Runs a handler; an error it throws is reported (as Pi reports an extension's error) and
 * gives `fallback` instead, so one failing handler neither traps the instance nor loses its
 * state. A `tool_call` handler's failure blocks the call (see `beforeToolCall`).
 */
async function guarded(what, fn, fallback = undefined) {
  try {
    return await fn();
  } catch (e) {
    log.error(`${what}: ${messageOf(e)}`);
    return fallback;
  }
}

/** Like `guarded`, for what the user started: the error is the command's own. */
async function failing(what, fn) {
  try {
    return await fn();
  } catch (e) {
    throw `${what}: ${messageOf(e)}`;
  }
}

export const guest = definePlugin({
  async init(ctx) {
    const config = JSON.parse(ctx.config || "{}");
    const bundle = config.pi_extension;
    if (!bundle?.source) throw "tack's Pi runtime was started without an extension";
    const settings = { ...config };
    delete settings.pi_extension;
    setWorkspace(ctx.workspace);
    setDataDir(ctx.dataDir);
    ext = new Extension({ workspace: ctx.workspace, config: settings, flags: new Map() });
    await failing(`loading ${bundle.entry ?? "the extension"}`, async () => {
      const factory = evaluate(bundle, ctx.workspace);
      await factory(ext.pi);
    });
    ext.initialized = true;
    ext.onLateSubscription = (event) => {
      if (NAMED[event]) hostEvents.subscribe(tackEventsOf(event));
      else if (HOOKS[event]) {
        log.warn(`a \`${event}\` handler added after load is not called: tack takes hooks at load`);
      }
    };
    const named = [];
    const hooks = [];
    for (const event of ext.handlers.keys()) {
      if (NAMED[event]) named.push(...tackEventsOf(event));
      else if (HOOKS[event]) hooks.push(HOOKS[event]);
      else if (NOT_YET[event]) log.warn(`\`${event}\` handler not called: ${NOT_YET[event]}`);
      else if (!EXPORTS.has(event)) log.warn(`\`${event}\` is not a Pi event tack knows`);
    }
    if (named.length) hostEvents.subscribe([...new Set(named)]);
    return registration({
      tools: [...ext.tools.values()].map(specOf),
      commands: [...ext.commands.entries()].map(([name, options]) =>
        command(name, options?.description ?? ""),
      ),
      hooks: [...new Set(hooks)],
    });
  },

  async callTool(call) {
    const tool = ext.tools.get(call.name);
    if (!tool) return errorResult(`unknown tool \`${call.name}\``);
    try {
      const params = JSON.parse(call.arguments);
      const signal = freshSignal();
      const result = await tool.execute(
        call.id,
        params,
        signal,
        ext.progressOf(call.id),
        ext.context(),
      );
      return toolResultOf(result);
    } catch (e) {
      return errorResult(messageOf(e));
    }
  },

  async runCommand(name, args) {
    const options = ext.commands.get(name);
    if (!options?.handler) throw `unknown command \`/${name}\``;
    // A handler that waits for idle returns to tack here, and goes on once the agent is.
    await ext.untilDoneOrWaiting(() =>
      failing(`/${name}`, () => options.handler(args, ext.context())),
    );
    return undefined;
  },

  async beforeToolCall(call) {
    const input = JSON.parse(call.arguments);
    const before = JSON.stringify(input);
    const event = { type: "tool_call", toolCallId: call.id, toolName: call.name, input };
    for (const handler of ext.handlersOf("tool_call")) {
      const failed = { block: true };
      const result = await guarded("tool_call", () => handler(event, ext.context()), failed);
      if (result === failed)
        return block(`a Pi extension's tool_call handler failed (see the log)`);
      if (result?.block) return block(result.reason ?? "blocked by a Pi extension");
    }
    const after = JSON.stringify(event.input);
    return after === before ? allow() : { tag: "rewrite", val: after };
  },

  async afterToolCall(call, result) {
    const current = piResultOf(result);
    const event = {
      type: "tool_result",
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.parse(call.arguments),
      ...current,
    };
    let changed = false;
    for (const handler of ext.handlersOf("tool_result")) {
      const patch = await guarded("tool_result", () => handler(event, ext.context()));
      if (!patch) continue;
      for (const key of ["content", "details", "isError"]) {
        if (patch[key] !== undefined) {
          event[key] = patch[key];
          changed = true;
        }
      }
    }
    return changed ? toolResultOf(event) : undefined;
  },

  async onInput(text) {
    let current = text;
    for (const handler of ext.handlersOf("input")) {
      const event = { type: "input", text: current, images: [], source: "interactive" };
      const result = await guarded("input", () => handler(event, ext.context()));
      if (result?.action === "handled") return { tag: "handled" };
      if (result?.action === "transform" && typeof result.text === "string") current = result.text;
    }
    return current === text ? { tag: "continue" } : { tag: "transform", val: current };
  },

  async beforeAgentStart(prompt, systemPrompt) {
    let current = systemPrompt;
    let replaced = false;
    const inject = [];
    for (const handler of ext.handlersOf("before_agent_start")) {
      const event = {
        type: "before_agent_start",
        prompt,
        images: [],
        systemPrompt: current,
        systemPromptOptions: {
          cwd: ext.workspace,
          selectedTools: agent.activeTools(),
          skills: [],
          contextFiles: [],
        },
      };
      const result = await guarded("before_agent_start", () => handler(event, ext.context()));
      if (typeof result?.systemPrompt === "string") {
        current = result.systemPrompt;
        replaced = true;
      }
      if (result?.message) {
        const content = result.message.content;
        inject.push({
          customType: result.message.customType ?? "pi-extension",
          text:
            typeof content === "string"
              ? content
              : (content ?? []).map((b) => b.text ?? "").join("\n"),
          display: result.message.display !== false,
        });
      }
    }
    return { systemPrompt: replaced ? current : undefined, appendSystemPrompt: undefined, inject };
  },

  async context(messages) {
    let current = JSON.parse(messages);
    let changed = false;
    for (const handler of ext.handlersOf("context")) {
      const result = await guarded("context", () =>
        handler({ type: "context", messages: current }, ext.context()),
      );
      if (Array.isArray(result?.messages)) {
        current = result.messages;
        changed = true;
      }
    }
    return changed ? JSON.stringify(current) : undefined;
  },

  async beforeCompact(request) {
    const event = {
      type: "session_before_compact",
      preparation: {
        messagesToSummarize: JSON.parse(request.messages),
        turnPrefixMessages: [],
        previousSummary: request.previousSummary,
        tokensBefore: Number(request.tokensBefore),
        isSplitTurn: false,
        fileOps: { read: new Set(), written: new Set(), edited: new Set() },
        settings: {},
      },
      branchEntries: [],
      customInstructions: request.focus,
      signal: freshSignal(),
    };
    for (const handler of ext.handlersOf("session_before_compact")) {
      const result = await guarded("session_before_compact", () => handler(event, ext.context()));
      if (result?.cancel) return { tag: "cancel" };
      if (result?.compaction?.summary)
        return { tag: "summary", val: String(result.compaction.summary) };
    }
    return { tag: "proceed" };
  },

  async onNamedEvent(name, data) {
    // A key the extension bound, pressed in the terminal UI: its handler gets `ctx`, as in Pi.
    if (name === "shortcut") {
      const handler = ext.shortcuts.get(data?.key)?.handler;
      if (typeof handler === "function") {
        try {
          await handler(ext.context());
        } catch (e) {
          // The user pressed the key: they see why nothing happened.
          ext.context().ui.notify(`shortcut ${data.key}: ${messageOf(e)}`, "error");
        }
      }
      return;
    }
    if (name === "idle") {
      await ext.wentIdle((e) => ext.context().ui.notify(messageOf(e), "error"));
      return;
    }
    if (name === "bus_message") {
      await ext.busMessage(data);
      return;
    }
    if (name === "compaction_end" && ext.pendingCompaction) {
      const { onComplete, onError } = ext.pendingCompaction;
      ext.pendingCompaction = undefined;
      if (typeof data?.summary === "string") onComplete?.(compactionResultOf(data));
      else
        onError?.(
          new Error(
            data?.error_message ?? (data?.aborted ? "compaction aborted" : "nothing was compacted"),
          ),
        );
    }
    rememberArgs(name, data);
    for (const [piName, tackName] of Object.entries(NAMED)) {
      if (tackName !== name || !ext.handlers.has(piName)) continue;
      // Pi tells of a compaction that wrote its entry, never of one that failed or was stopped.
      if (piName === "session_compact" && typeof data?.summary !== "string") continue;
      await guarded(piName, () => ext.emit(piName, piEventOf(piName, data)));
    }
    if (name === "tool_execution_end") runningArgs.delete(data?.tool_call_id);
    // `withSession` of `ctx.newSession`, `fork` or `switchSession`: once the session moved to
    // has started, after the extension's own `session_start` handlers, as Pi runs it after the
    // switch.
    if (name === "session_start" && ext.pendingMove && data?.reason === ext.pendingMove.reason) {
      const { withSession } = ext.pendingMove;
      ext.pendingMove = undefined;
      if (typeof withSession === "function") {
        await guarded("withSession", () => withSession(ext.context()));
      }
    }
  },

  async completeArguments(command, prefix) {
    const complete = ext.commands.get(command)?.getArgumentCompletions;
    if (typeof complete !== "function") return undefined;
    return guarded(`/${command} getArgumentCompletions`, () => complete(prefix));
  },

  editorView(input, width) {
    if (!ext.editor) return { lines: [], submitted: undefined };
    return ext.editor.view(input, width);
  },

  renderCall: (call, options) =>
    guarded(`${call.tool} renderCall`, () => ext.renderToolCall(call, options)),
  renderResult: (call, outcome, options) =>
    guarded(`${call.tool} renderResult`, () => ext.renderToolResult(call, outcome, options)),
  renderMessage: (message, options) =>
    guarded(`${message.customType} message renderer`, () => ext.renderMessage(message, options)),

  async completeInput(lines, cursorLine, cursorCol) {
    const provider = ext.autocomplete;
    if (!provider) return undefined;
    return guarded("autocomplete provider", () =>
      provider.getSuggestions(lines, cursorLine, cursorCol, {
        signal: freshSignal(),
        force: false,
      }),
    );
  },

  async beforeSwitch(request) {
    const results = await guarded(
      "session_before_switch",
      () =>
        ext.emit("session_before_switch", {
          type: "session_before_switch",
          reason: request.reason,
          targetSessionFile: request.targetSessionId,
        }),
      [],
    );
    return results.some((r) => r?.cancel) ? false : undefined;
  },

  async beforeFork(request) {
    const results = await guarded(
      "session_before_fork",
      () =>
        ext.emit("session_before_fork", {
          type: "session_before_fork",
          entryId: request.entryId,
          position: request.position,
        }),
      [],
    );
    return results.some((r) => r?.cancel) ? false : undefined;
  },

  async beforeTree(request) {
    const results = await guarded(
      "session_before_tree",
      () =>
        ext.emit("session_before_tree", {
          type: "session_before_tree",
          preparation: {
            targetId: request.targetId,
            oldLeafId: request.oldLeafId ?? null,
            commonAncestorId: null,
            entriesToSummarize: [],
            userWantsSummary: request.userWantsSummary,
            customInstructions: request.focus,
          },
          signal: freshSignal(),
        }),
      [],
    );
    if (results.some((r) => r?.cancel)) return false;
    const summary = results.find((r) => r?.summary?.summary);
    return summary ? String(summary.summary.summary) : undefined;
  },

  async beforeProviderRequest(_request, payload) {
    let current = payload;
    let changed = false;
    for (const handler of ext.handlersOf("before_provider_request")) {
      const result = await guarded("before_provider_request", () =>
        handler({ type: "before_provider_request", payload: current }, ext.context()),
      );
      if (result !== undefined) {
        current = result;
        changed = true;
      }
    }
    return changed ? current : undefined;
  },

  async afterProviderResponse(status, headers) {
    await guarded("after_provider_response", () =>
      ext.emit("after_provider_response", { type: "after_provider_response", status, headers }),
    );
  },
});

// The handlers given to definePlugin, which its `guest` wraps for the WIT shapes.
const guest_ = () => currentPlugin();

const decision = (answer) => (answer === false ? "cancel" : "proceed");

/** The `observer` export: named events, to the extension's handlers. */
export const observer = {
  onEvent: (name, data) => guest_().onNamedEvent(name, JSON.parse(data)),
};

/** The `provider-hooks` export (called only with the `provider_payload` grant). */
export const providerHooks = {
  async beforeProviderRequest(request) {
    const replaced = await guest_().beforeProviderRequest(request, JSON.parse(request.payload));
    if (replaced === undefined || replaced === null) return undefined;
    return typeof replaced === "string" ? replaced : JSON.stringify(replaced);
  },
  afterProviderResponse: (response) =>
    guest_().afterProviderResponse(response.status, Object.fromEntries(response.headers)),
};

const completionItems = (items) =>
  Array.isArray(items)
    ? items.map((item) => ({
        value: String(item?.value ?? ""),
        label: String(item?.label ?? item?.value ?? ""),
        description: item?.description === undefined ? undefined : String(item.description),
      }))
    : undefined;

/** The `completions` export: a command's `getArgumentCompletions`, and the autocomplete
 * providers of `ctx.ui.addAutocompleteProvider`. */
export const completions = {
  commandArguments: async (command, prefix) =>
    completionItems(await guest_().completeArguments(command, prefix)),
  async input(lines, cursorLine, cursorCol) {
    const answer = await guest_().completeInput(lines, cursorLine, cursorCol);
    const items = completionItems(answer?.items);
    return items?.length ? { items, prefix: String(answer.prefix ?? "") } : undefined;
  },
};

/** The `renderers` export: a tool's `renderCall` / `renderResult` and the message renderers
 * of `registerMessageRenderer`, drawn at the width the terminal UI gives. */
export const renderers = {
  renderCall: (call, options) => guest_().renderCall(call, options),
  renderResult: (call, outcome, options) => guest_().renderResult(call, outcome, options),
  renderMessage: (message, options) => guest_().renderMessage(message, options),
};

/** The `editor` export: the extension's editor of `ctx.ui.setEditorComponent`. */
export const editor = {
  view: (width) => guest_().editorView({}, width),
  key: (key, width) => guest_().editorView({ key }, width),
  paste: (text, width) => guest_().editorView({ paste: text }, width),
};

/** The `session-hooks` export: a handler's `{ cancel: true }` cancels the move. */
export const sessionHooks = {
  beforeSwitch: async (request) => decision(await guest_().beforeSwitch(request)),
  beforeFork: async (request) => decision(await guest_().beforeFork(request)),
  async beforeTree(request) {
    const answer = await guest_().beforeTree(request);
    if (answer === false) return { tag: "cancel" };
    if (typeof answer === "string") return { tag: "summary", val: answer };
    return { tag: "proceed" };
  },
};
