// Pi's `ExtensionAPI` (`pi`) and `ExtensionContext` (`ctx`), written on tack:plugin@0.2.0.
//
// What tack has no call for yet is not faked: it throws an Error naming Pi's method and saying
// so, which the host reports as the hook's or command's failure.

import { log as hostLog } from "tack:plugin/host@0.1.0";
import { toolProgress } from "tack:plugin/host@0.1.0";
import * as ui from "tack:plugin/ui@0.1.0";
import * as agent from "tack:plugin/agent@0.1.0";
import * as session from "tack:plugin/session@0.1.0";
import * as control from "tack:plugin/control@0.2.0";
import * as screen from "tack:plugin/screen@0.2.0";
import * as hostTools from "tack:plugin/tools@0.2.0";
import * as hostCommands from "tack:plugin/commands@0.2.0";
import * as hostEvents from "tack:plugin/events@0.2.0";
import * as hostShortcuts from "tack:plugin/shortcuts@0.2.0";
import * as hostBus from "tack:plugin/bus@0.2.0";
import * as hostProviders from "tack:plugin/providers@0.2.0";

import { runCommand, shellQuote } from "./node.js";
import { tackTheme } from "./theme.js";
import { custom, editorDialog, PluginEditor } from "./components.js";
import { modelRegistry, piModel } from "./models.js";

/** Thrown by Pi methods tack has no call for yet. */
export function notInTack(method, why) {
  return new Error(`${method} is not available in tack${why ? `: ${why}` : ""}`);
}

/** Pi's `api` names, as the tack providers that speak them. */
const PI_APIS = {
  "anthropic-messages": "anthropic",
  "openai-completions": "openai",
  "openai-responses": "openai-responses",
  "google-generative-ai": "google",
  "bedrock-converse-stream": "bedrock",
};

/** A Pi model definition as tack's `model-spec`. */
function modelSpec(model) {
  const cost = model.cost ?? {};
  const number = (value, fallback) => (Number.isFinite(value) ? value : fallback);
  return {
    id: String(model.id),
    name: String(model.name ?? model.id),
    contextWindow: Math.max(0, Math.round(number(model.contextWindow, 128000))),
    maxOutputTokens: Math.max(0, Math.round(number(model.maxTokens, 8192))),
    reasoning: Boolean(model.reasoning),
    input: (model.input ?? ["text"]).includes("image") ? ["text", "image"] : ["text"],
    cost: {
      input: number(cost.input, 0),
      output: number(cost.output, 0),
      cacheRead: number(cost.cacheRead, 0),
      cacheWrite: number(cost.cacheWrite, 0),
    },
  };
}

/**
 * Pi's `registerProvider` config as tack's `provider-registration`. What tack cannot do is
 * refused by name: a provider's own streaming code and OAuth login (the host sends every
 * request, and keeps every key), and changing a provider that is there already.
 */
function providerRegistration(name, config) {
  const method = `pi.registerProvider(${name})`;
  if (config.streamSimple)
    throw notInTack(`${method} with streamSimple`, "the host sends a provider's requests; `api` names the API it speaks");
  if (config.oauth)
    throw notInTack(`${method} with oauth`, "the host keeps every login; name the key as a secret with `apiKey`");
  if (!Array.isArray(config.models))
    throw notInTack(
      `${method} without models`,
      "a provider that is there already keeps its endpoint and key; register a proxy under a new name",
    );
  const api = config.api === undefined ? undefined : PI_APIS[config.api] ?? String(config.api);
  if (api === undefined) throw new Error(`${method}: \`api\` must name the API the provider speaks`);
  if (config.models.some((m) => m?.baseUrl !== undefined && m.baseUrl !== config.baseUrl))
    throw notInTack(`${method} with a model's own baseUrl`, "a provider has one endpoint");
  const headers = Object.entries(config.headers ?? {}).map(([k, v]) => [String(k), String(v)]);
  return {
    id: name,
    name: String(config.name ?? name),
    api,
    baseUrl: String(config.baseUrl ?? ""),
    // Pi takes an env var's name or the key itself; in tack it is always the name of a secret
    // the user holds (and granted this extension), never a value the extension carries.
    secret: config.apiKey ? String(config.apiKey) : undefined,
    auth: config.authHeader ? { tag: "bearer" } : undefined,
    headers,
    models: config.models.map(modelSpec),
  };
}

const levels = { info: "info", warning: "warn", warn: "warn", error: "error", debug: "debug" };

/** The width Pi's components are rendered at when tack shows them as lines. */
const RENDER_WIDTH = 80;

/** A Pi tool result as tack's `tool-result`. */
export function toolResultOf(result, isError = false) {
  const blocks = Array.isArray(result?.content) ? result.content : [];
  const content = blocks.map((block) => {
    if (block?.type === "image") {
      const bytes = Uint8Array.from(atob(block.data ?? ""), (c) => c.charCodeAt(0));
      return { tag: "image", val: { mimeType: block.mimeType, data: bytes } };
    }
    return { tag: "text", val: String(block?.text ?? "") };
  });
  return {
    content,
    details: result?.details === undefined ? undefined : JSON.stringify(result.details),
    isError: Boolean(result?.isError ?? isError),
  };
}

/** tack's `tool-result` as Pi's. */
export function piResultOf(result) {
  return {
    content: result.content.map((block) =>
      block.tag === "text"
        ? { type: "text", text: block.val }
        : {
            type: "image",
            mimeType: block.val.mimeType,
            data: btoa(String.fromCharCode(...block.val.data)),
          },
    ),
    details: result.details === undefined ? undefined : JSON.parse(result.details),
    isError: result.isError,
  };
}

/** A message's content (a string or Pi's content array) as the text tack sends. */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter((block) => block?.type === "text")
      .map((block) => block.text)
      .join("\n");
  }
  return String(content ?? "");
}

const deliveries = { steer: "steer", followUp: "follow-up", nextTurn: "next-turn" };

/**
 * Lines of a Pi component (or a factory of one, called with `tui`, `theme` and `extra`: the
 * footer's data provider, say) as tack shows them.
 */
function linesOf(factory, theme, extra = {}) {
  const tui = { requestRender: () => undefined, terminal: { columns: RENDER_WIDTH, rows: 24 } };
  const component = typeof factory === "function" ? factory(tui, theme, extra) : factory;
  if (component && typeof component.then === "function") {
    throw notInTack("a component factory returning a Promise");
  }
  const lines = component?.render ? component.render(RENDER_WIDTH) : [];
  component?.dispose?.();
  return lines;
}


/** A component's lines at `width` (a renderer's answer); `undefined` leaves the block to tack. */
function linesAt(component, width) {
  if (!component || typeof component.render !== "function") return undefined;
  const lines = component.render(width);
  return Array.isArray(lines) ? lines.map(String) : undefined;
}

/**
 * The extension as tack loaded it: what `pi.on` and `pi.register*` collected, and the `ctx`
 * handed to every handler.
 */
/** The provider under an extension's: tack's editor completes on its own when none answers. */
const tackAutocomplete = {
  getSuggestions: async () => null,
  applyCompletion(lines, cursorLine, cursorCol, item, prefix) {
    const line = lines[cursorLine] ?? "";
    const start = Math.max(0, cursorCol - prefix.length);
    const next = [...lines];
    next[cursorLine] = line.slice(0, start) + item.value + line.slice(cursorCol);
    return { lines: next, cursorLine, cursorCol: start + item.value.length };
  },
  shouldTriggerFileCompletion: () => true,
};

export class Extension {
  constructor({ workspace, config, flags }) {
    this.workspace = workspace;
    this.config = config;
    this.handlers = new Map();
    this.tools = new Map();
    this.commands = new Map();
    /** Keys bound with `registerShortcut`, to their options (the handler). */
    this.shortcuts = new Map();
    /** The autocomplete providers `ctx.ui.addAutocompleteProvider` stacked, newest outermost. */
    this.autocomplete = undefined;
    /** `waitForIdle`'s promises, resolved when tack says the agent is idle. */
    this.idleWaiters = [];
    /** Commands that wait for idle, each the promise of its handler, to go on with then. */
    this.waitingCommands = [];
    /** Lets the command running now return to tack while its handler waits for idle. */
    this.parkCommand = undefined;
    /** `registerMessageRenderer`'s renderers, by custom type. */
    this.messageRenderers = new Map();
    /** Each tool call's renderer state and last components (Pi's `context.state` and
     * `lastComponent`), by call id, the oldest dropped past a few hundred calls. */
    this.renderSlots = new Map();
    this.flags = flags;
    this.initialized = false;
    // Pi's event bus: handlers by channel. The host's bus (`tack:plugin/bus`) carries what
    // crosses to other extensions, on the channels the user granted.
    this.bus = new Map();
    // Channels whose refusal by the host was logged, so an extension that only talks to itself
    // says so once, not on every emit.
    this.busRefused = new Set();
    this.theme = tackTheme();
    this.pi = this.makePi();
  }

  /**
   * Pi's `ctx.waitForIdle`: at once when the agent is idle. Otherwise tack tells the extension
   * once it is (`control.wait-for-idle`), and meanwhile the command returns to tack, so the run
   * it waits for can call the extension's hooks and tools (one instance serves them all).
   */
  waitForIdle() {
    let waiting;
    try {
      waiting = control.waitForIdle();
    } catch (e) {
      return Promise.reject(new Error(`ctx.waitForIdle: ${e?.payload ?? e}`));
    }
    if (!waiting) return Promise.resolve();
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.parkCommand?.();
    });
  }

  /**
   * Runs a command's handler (`start`) until it ends, or waits for idle: then it is kept to go
   * on with when tack says the agent is idle (see `wentIdle`), and this returns.
   */
  async untilDoneOrWaiting(start) {
    // Set before the handler starts: it may wait for idle before its first `await` returns.
    const waiting = new Promise((resolve) => {
      this.parkCommand = resolve;
    });
    try {
      const running = start();
      const outcome = await Promise.race([
        running.then(() => "done"),
        waiting.then(() => "waiting"),
      ]);
      if (outcome === "waiting") this.waitingCommands.push(running);
    } finally {
      this.parkCommand = undefined;
    }
  }

  /**
   * The agent is idle: the commands that waited go on, in this call (which has a command's
   * powers; a second wait is refused there), until each ends. A failure is the user's to see,
   * as the command's.
   */
  async wentIdle(report) {
    const waiters = this.idleWaiters.splice(0);
    const commands = this.waitingCommands.splice(0);
    for (const resolve of waiters) resolve();
    for (const outcome of await Promise.allSettled(commands)) {
      if (outcome.status === "rejected") report(outcome.reason);
    }
  }

  /** The lines of a tool call's heading (the tool's `renderCall`), `width` columns wide. */
  renderToolCall(call, options) {
    const render = this.tools.get(call.tool)?.renderCall;
    if (typeof render !== "function") return undefined;
    const args = JSON.parse(call.arguments);
    const slot = this.renderSlot(call.callId);
    const context = this.renderContext(call, args, slot.call, slot.state, options, {
      partial: false,
      isError: false,
    });
    slot.call = render(args, this.theme, context);
    return linesAt(slot.call, options.width);
  }

  /** The lines of what a tool call returned so far (the tool's `renderResult`). */
  renderToolResult(call, outcome, options) {
    const render = this.tools.get(call.tool)?.renderResult;
    if (typeof render !== "function") return undefined;
    const args = JSON.parse(call.arguments);
    const slot = this.renderSlot(call.callId);
    const context = this.renderContext(call, args, slot.result, slot.state, options, outcome);
    const result = {
      content: [{ type: "text", text: outcome.text }],
      details: outcome.details === undefined ? undefined : JSON.parse(outcome.details),
      isError: outcome.isError,
    };
    slot.result = render(
      result,
      { expanded: options.expanded, isPartial: outcome.partial },
      this.theme,
      context,
    );
    return linesAt(slot.result, options.width);
  }

  /** The lines of a message this extension sent, by its type's renderer. */
  renderMessage(message, options) {
    const render = this.messageRenderers.get(message.customType);
    if (!render) return undefined;
    const component = render(
      {
        role: "custom",
        customType: message.customType,
        content: message.content,
        display: true,
        details: message.details === undefined ? undefined : JSON.parse(message.details),
        timestamp: Date.now(),
      },
      { expanded: options.expanded },
      this.theme,
    );
    return linesAt(component, options.width);
  }

  renderSlot(callId) {
    let slot = this.renderSlots.get(callId);
    if (!slot) {
      slot = { state: {}, call: undefined, result: undefined };
      this.renderSlots.set(callId, slot);
      if (this.renderSlots.size > 256) {
        this.renderSlots.delete(this.renderSlots.keys().next().value);
      }
    }
    return slot;
  }

  renderContext(call, args, lastComponent, state, options, outcome) {
    return {
      args,
      toolCallId: call.callId,
      // tack asks again whenever the call changes; a redraw of its own has nothing to add.
      invalidate: () => undefined,
      lastComponent,
      state,
      cwd: this.workspace,
      executionStarted: call.started,
      argsComplete: true,
      isPartial: Boolean(outcome.partial),
      expanded: options.expanded,
      showImages: false,
      isError: Boolean(outcome.isError),
    };
  }

  handlersOf(event) {
    return this.handlers.get(event) ?? [];
  }

  /** Calls every handler of `event` in order; the results that are not undefined. */
  async emit(event, data) {
    const results = [];
    for (const handler of this.handlersOf(event)) {
      const result = await handler(data, this.context());
      if (result !== undefined) results.push(result);
    }
    return results;
  }

  /** Logs the host's refusal of `what` on `channel`, once per channel and kind. */
  busRefusal(what, channel, e) {
    const key = `${what} ${channel}`;
    if (this.busRefused.has(key)) return;
    this.busRefused.add(key);
    hostLog(
      "warn",
      `pi.events.${what}("${channel}") reaches this extension only: ${e?.payload ?? e}`,
    );
  }

  busOn(channel, handler) {
    // Pi's bus catches a handler's error and logs it: one failing listener stops no other.
    const safe = async (data) => {
      try {
        await handler(data);
      } catch (e) {
        hostLog("error", `event handler error (${channel}): ${e?.message ?? e}`);
      }
    };
    const handlers = this.bus.get(channel) ?? [];
    this.bus.set(channel, [...handlers, safe]);
    if (handlers.length === 0) {
      try {
        hostBus.listen([channel]);
      } catch (e) {
        this.busRefusal("on", channel, e);
      }
    }
    return () => {
      const left = (this.bus.get(channel) ?? []).filter((h) => h !== safe);
      if (left.length > 0) {
        this.bus.set(channel, left);
        return;
      }
      this.bus.delete(channel);
      hostBus.unlisten([channel]);
    };
  }

  busEmit(channel, data) {
    // Pi's emit returns before its handlers finish and never throws.
    for (const handler of this.bus.get(channel) ?? []) handler(data);
    let json;
    try {
      json = JSON.stringify(data ?? null);
    } catch (e) {
      this.busRefusal("emit", channel, `its data is not JSON: ${e?.message ?? e}`);
      return;
    }
    try {
      hostBus.emit(channel, json ?? "null");
    } catch (e) {
      this.busRefusal("emit", channel, e);
    }
  }

  /** A message from another extension (the host's `bus_message`), to this channel's handlers. */
  async busMessage(event) {
    for (const handler of this.bus.get(event?.channel) ?? []) await handler(event.data);
  }

  makePi() {
    const ext = this;
    return {
      on(event, handler) {
        if (!ext.handlers.has(event)) ext.handlers.set(event, []);
        ext.handlers.get(event).push(handler);
        if (ext.initialized) ext.onLateSubscription?.(event);
      },
      registerTool(definition) {
        ext.tools.set(definition.name, definition);
        if (ext.initialized) {
          try {
            hostTools.register(specOf(definition));
          } catch (e) {
            throw new Error(
              `registerTool(${definition.name}): ${e?.payload?.val ?? e?.payload ?? e}`,
            );
          }
        }
      },
      registerCommand(name, options) {
        if (ext.initialized) {
          try {
            hostCommands.register({ name, description: options?.description ?? "" });
          } catch (e) {
            throw new Error(`registerCommand(${name}): ${e?.payload?.val ?? e?.payload ?? e}`);
          }
        }
        ext.commands.set(name, options);
      },
      // The terminal UI binds the key, or tells the user why not (a key tack or another plugin
      // holds); the press arrives as the `shortcut` event.
      registerShortcut(shortcut, options) {
        const key = String(shortcut);
        try {
          hostShortcuts.register(key, String(options?.description ?? ""));
          ext.shortcuts.set(key, options);
        } catch (e) {
          hostLog("warn", `shortcut ${key} not registered: ${e?.payload ?? e}`);
        }
      },
      registerFlag(name, options) {
        ext.flags.set(name, options?.default);
      },
      getFlag(name) {
        return Object.hasOwn(ext.config, name) ? ext.config[name] : ext.flags.get(name);
      },
      // The terminal UI asks for the lines of each message of this type the extension sent
      // (tack's `renderers` export), inside tack's frame naming the type and the extension.
      registerMessageRenderer(customType, renderer) {
        if (typeof renderer !== "function")
          throw new Error("registerMessageRenderer: the renderer must be a function");
        ext.messageRenderers.set(String(customType), renderer);
      },
      sendMessage(message, options = {}) {
        const delivery = deliveries[options.deliverAs ?? "steer"];
        if (!delivery)
          throw new Error(`deliverAs must be one of ${Object.keys(deliveries).join(", ")}`);
        const outgoing = {
          customType: message.customType,
          text: textOf(message.content),
          display: message.display !== false,
        };
        // As Pi's: on an idle agent only `triggerTurn: true` starts a turn; otherwise the
        // message is written to the session at once. Details go beside the text.
        const details = message.details === undefined ? undefined : JSON.stringify(message.details);
        control.sendCustomMessage(outgoing, details, delivery, options.triggerTurn === true);
      },
      sendUserMessage(content, options = {}) {
        const delivery = deliveries[options.deliverAs ?? "steer"];
        if (!delivery)
          throw new Error(`deliverAs must be one of ${Object.keys(deliveries).join(", ")}`);
        session.sendMessage(
          { customType: undefined, text: textOf(content), display: true },
          delivery,
        );
      },
      appendEntry(customType, data) {
        session.appendCustom(customType, JSON.stringify(data ?? null));
      },
      setSessionName(name) {
        control.setSessionName(name);
      },
      getSessionName() {
        return control.sessionName();
      },
      setLabel(entryId, label) {
        control.setLabel(entryId, label);
      },
      async exec(command, args = [], options = {}) {
        const line = [command, ...args].map(shellQuote).join(" ");
        const result = runCommand(line, { cwd: options.cwd, timeout: options.timeout });
        return {
          stdout: result.stdout,
          stderr: result.stderr,
          code: result.code ?? 1,
          killed: result.killed,
        };
      },
      getActiveTools() {
        return agent.activeTools();
      },
      getAllTools() {
        return hostTools.all().map((info) => ({
          name: info.spec.name,
          description: info.spec.description,
          parameters: JSON.parse(info.spec.parameters),
          sourceInfo: { source: info.plugin },
        }));
      },
      setActiveTools(names) {
        agent.setActiveTools(names);
      },
      getCommands() {
        // tack's skills and prompt templates are its `skills` and `prompt-templates` plugins'
        // commands; everything else a plugin serves is, to Pi, an extension's.
        const SOURCES = { skills: "skill", "prompt-templates": "prompt" };
        // Pi's order (as RPC `get_commands`): extensions first, then templates, then skills.
        const RANK = { extension: 0, prompt: 1, skill: 2 };
        const commands = hostCommands.all().map(({ spec, plugin }) => ({
          name: spec.name,
          description: spec.description || undefined,
          source: SOURCES[plugin] ?? "extension",
          sourceInfo: { path: `plugin:${plugin}`, source: plugin, scope: "user", origin: "package" },
        }));
        return commands.sort((a, b) => RANK[a.source] - RANK[b.source]);
      },
      // As Pi's: false when the model cannot be used (no key, not listed); the reason is logged.
      async setModel(model) {
        try {
          control.setModel(model?.provider ? `${model.provider}/${model.id}` : String(model));
          return true;
        } catch (e) {
          hostLog("warn", `pi.setModel: ${e?.payload ?? e}`);
          return false;
        }
      },
      getThinkingLevel() {
        return control.thinkingLevel();
      },
      setThinkingLevel(level) {
        try {
          control.setThinkingLevel(String(level));
        } catch (e) {
          hostLog("warn", `pi.setThinkingLevel: ${e?.payload ?? e}`);
        }
      },
      // A provider of a new id, written by the tack provider that speaks its API (Pi's
      // `api`); its key and endpoint are used only with the user's grants (`secrets`, `http`).
      registerProvider(name, config = {}) {
        const registration = providerRegistration(String(name), config);
        try {
          hostProviders.register(registration);
        } catch (e) {
          const why = e?.payload?.val ?? e?.message ?? e;
          throw new Error(`pi.registerProvider(${registration.id}): ${why}`);
        }
      },
      unregisterProvider(name) {
        hostProviders.unregister(String(name));
      },
      // Pi's event bus between extensions: this extension's own handlers always hear it, as in
      // Pi; other extensions only on channels granted to both (`bus = ["channel"]`).
      events: {
        on: (channel, handler) => ext.busOn(String(channel), handler),
        emit: (channel, data) => ext.busEmit(String(channel), data),
      },
    };
  }

  /** Pi's `ExtensionUIContext` on tack's dialogs and screen. */
  makeUi() {
    const ext = this;
    const timeoutOf = (opts) => (opts?.timeout ? Math.round(opts.timeout) : undefined);
    return {
      async select(title, options, opts) {
        const index = ui.select(title, options, timeoutOf(opts));
        return index === undefined ? undefined : options[index];
      },
      async confirm(title, message, opts) {
        return ui.confirm(title, message ?? "", timeoutOf(opts));
      },
      async input(title, placeholder, opts) {
        return ui.input(title, placeholder ?? "", timeoutOf(opts));
      },
      async editor(title, prefill) {
        return editorDialog(title, prefill, ext.theme, (t, p) => ui.input(t, p, undefined));
      },
      notify(message, type = "info") {
        ui.notify(levels[type] ?? "info", String(message));
      },
      setStatus(key, text) {
        ui.setStatus(key, text === undefined ? undefined : String(text));
      },
      setWorkingMessage(message) {
        screen.setWorkingMessage(message);
      },
      setWorkingVisible(visible) {
        screen.setWorkingVisible(visible !== false);
      },
      setWorkingIndicator(options) {
        if (options === undefined) {
          screen.setWorkingIndicator(undefined);
          return;
        }
        const frames = Array.isArray(options?.frames) ? options.frames.map(String) : [];
        const intervalMs = Math.max(0, Math.min(Math.round(Number(options?.intervalMs) || 0), 0xffffffff));
        screen.setWorkingIndicator({ frames, intervalMs });
      },
      setHiddenThinkingLabel(label) {
        screen.setHiddenThinkingLabel(label === undefined ? undefined : String(label));
      },
      setWidget(key, content, options) {
        const placement = options?.placement === "belowEditor" ? "below-editor" : "above-editor";
        const lines =
          content === undefined
            ? []
            : Array.isArray(content)
              ? content.map(String)
              : linesOf(content, ext.theme);
        screen.setWidget(key, lines, placement);
      },
      setFooter(factory) {
        if (factory === undefined) {
          screen.setFooter(undefined);
          return;
        }
        const footerData = {
          getGitBranch: () => screen.gitBranch(),
          getExtensionStatuses: () => new Map(),
          onBranchChange: () => () => undefined,
        };
        const lines = linesOf(factory, ext.theme, footerData);
        screen.setFooter({ left: lines.join(" "), right: "" });
      },
      setHeader(factory) {
        screen.setHeader(factory === undefined ? [] : linesOf(factory, ext.theme));
      },
      setTitle(title) {
        screen.setTitle(String(title));
      },
      custom(factory, options) {
        return custom(factory, options, ext.theme);
      },
      pasteToEditor(text) {
        screen.pasteToEditor(String(text));
      },
      setEditorText(text) {
        screen.setEditorText(String(text));
      },
      // The user's draft needs the components grant; without it, as in Pi's RPC mode, "".
      getEditorText() {
        return screen.editorText() ?? "";
      },
      // Pi wraps its editor's provider; here the innermost `current` answers null, which leaves
      // the draft to tack's own completions (commands after `/`, files after `@`). The draft is
      // what the user types, so the host asks only with the components grant.
      addAutocompleteProvider(factory) {
        try {
          screen.setInputCompletion(true);
        } catch (e) {
          throw new Error(`ctx.ui.addAutocompleteProvider: ${e?.payload ?? e}`);
        }
        ext.autocomplete = factory(ext.autocomplete ?? tackAutocomplete);
      },
      onTerminalInput() {
        throw notInTack("ctx.ui.onTerminalInput", "a plugin never reads the user's terminal");
      },
      // The extension's editor in place of tack's, with the components grant: it sees what the
      // user types there and sends it for them. `undefined` gives tack's back.
      setEditorComponent(factory) {
        ext.editor?.dispose();
        ext.editor = undefined;
        ext.editorFactory = undefined;
        try {
          screen.setEditor(factory !== undefined);
        } catch (e) {
          throw new Error(`ctx.ui.setEditorComponent: ${e?.payload ?? e}`);
        }
        if (factory !== undefined) {
          ext.editorFactory = factory;
          ext.editor = new PluginEditor(factory);
        }
      },
      getEditorComponent() {
        return ext.editorFactory;
      },
      get theme() {
        return ext.theme;
      },
      // Names only: a theme's file stays tack's (Pi gives its path).
      getAllThemes() {
        return screen.themes().map((name) => ({ name, path: undefined }));
      },
      // Styles are plain in tack (a plugin's lines carry no colours), so every theme reads as the
      // plain theme; one tack does not have is undefined, as in Pi.
      getTheme(name) {
        return screen.themes().includes(String(name)) ? tackTheme() : undefined;
      },
      setTheme(theme) {
        if (typeof theme !== "string") {
          return { success: false, error: "tack shows a theme by its name, not a Theme object" };
        }
        try {
          screen.setTheme(theme);
          return { success: true };
        } catch (e) {
          return { success: false, error: String(e?.payload ?? e?.message ?? e) };
        }
      },
      getToolsExpanded() {
        return screen.toolsExpanded();
      },
      setToolsExpanded(expanded) {
        screen.setToolsExpanded(Boolean(expanded));
      },
    };
  }

  /** Pi's `ctx` (with the command-only members, which throw where tack has no call). */
  context() {
    if (this.ctx) return this.ctx;
    const ext = this;
    const branch = () => {
      try {
        return JSON.parse(session.branch());
      } catch {
        return [];
      }
    };
    const entries = () => {
      try {
        return JSON.parse(control.sessionEntries());
      } catch {
        return [];
      }
    };
    // Pi's label resolution: the newest `label` entry naming an entry wins; a cleared label
    // (no `label`) removes it.
    const labelsOf = (all) => {
      const byTarget = new Map();
      for (const entry of all) {
        if (entry.type === "label") byTarget.set(entry.targetId, entry);
      }
      return byTarget;
    };
    const sessionManager = {
      getCwd: () => ext.workspace,
      getSessionId: () => session.id(),
      getSessionFile: () => undefined,
      getSessionDir: () => undefined,
      getBranch: () => branch(),
      getEntries: () => entries(),
      getLeafId: () => control.leafId() ?? null,
      getLeafEntry: () => {
        const leaf = control.leafId();
        return leaf === undefined ? undefined : entries().find((entry) => entry.id === leaf);
      },
      getEntry: (id) => entries().find((entry) => entry.id === id),
      getLabel: (id) => labelsOf(entries()).get(id)?.label,
      getHeader: () => {
        try {
          return { ...JSON.parse(control.sessionHeader()), cwd: ext.workspace };
        } catch {
          return null;
        }
      },
      getSessionName: () => control.sessionName(),
      // Pi's tree: each entry under its parent in file order; an entry whose parent is missing
      // (left out, or a broken chain) is a root, as Pi returns orphans.
      getTree: () => {
        // One read of the session serves the nodes and their labels.
        const all = entries();
        const byTarget = labelsOf(all);
        const nodes = new Map();
        for (const entry of all) {
          const node = { entry, children: [] };
          const label = byTarget.get(entry.id);
          if (label?.label !== undefined) {
            node.label = label.label;
            node.labelTimestamp = label.timestamp;
          }
          nodes.set(entry.id, node);
        }
        const roots = [];
        for (const entry of all) {
          const parent = entry.parentId == null ? undefined : nodes.get(entry.parentId);
          (parent ? parent.children : roots).push(nodes.get(entry.id));
        }
        return roots;
      },
    };
    // A move takes effect once the agent is idle (after the command that asked has returned);
    // `withSession` runs with the new session's `ctx` when it starts, after the extension's own
    // `session_start` handlers. Listening starts before asking: an idle agent may make the move
    // before the call returns (the event then waits for this instance).
    const moveTo = (method, reason, options, ask) => {
      ext.pendingMove = { reason, withSession: options.withSession };
      hostEvents.subscribe(["session_start"]);
      try {
        ask();
      } catch (e) {
        ext.pendingMove = undefined;
        throw new Error(`ctx.${method}: ${e?.payload ?? e}`);
      }
      return { cancelled: false };
    };
    this.ctx = {
      ui: this.makeUi(),
      get hasUI() {
        return control.hasUi();
      },
      cwd: this.workspace,
      sessionManager,
      modelRegistry: modelRegistry(),
      get model() {
        return piModel(control.model());
      },
      isIdle: () => control.isIdle(),
      signal: undefined,
      abort: () => {
        control.abort();
      },
      hasPendingMessages: () => control.hasPendingMessages(),
      shutdown: () => control.shutdown(),
      getContextUsage: () => {
        const usage = control.contextUsage();
        return (
          usage && {
            tokens: usage.tokens,
            contextWindow: usage.contextWindow,
            percent: usage.percent,
          }
        );
      },
      compact: (options = {}) => {
        // Listening starts before asking: an idle agent may compact, and end, before the
        // import returns.
        const listening = Boolean(options.onComplete || options.onError);
        if (listening) {
          ext.pendingCompaction = options;
          hostEvents.subscribe(["compaction_end"]);
        }
        try {
          control.compact(options.customInstructions);
        } catch (e) {
          if (listening) ext.pendingCompaction = undefined;
          const error = new Error(String(e?.payload ?? e));
          if (options.onError) options.onError(error);
          else throw error;
        }
      },
      getSystemPrompt: () => control.systemPrompt(),
      waitForIdle: () => ext.waitForIdle(),
      // Takes effect once the agent is idle (after the command that asked has returned), as
      // `/new`; `withSession` runs with the new session's `ctx` when it starts. The session
      // file Pi names as `parentSession` is always this one's (an extension never learns where
      // session files are, so any value means "this session").
      newSession: async (options = {}) => {
        if (typeof options.setup === "function") {
          throw notInTack(
            "ctx.newSession's `setup`",
            "a plugin cannot write another session's entries; use `withSession`",
          );
        }
        return moveTo("newSession", "new", options, () =>
          control.newSession(options.parentSession !== undefined),
        );
      },
      // Pi's position `before` (the default): the conversation before the user message, its
      // text back in the editor; `at`: up to and with the entry.
      fork: async (entryId, options = {}) =>
        moveTo("fork", "fork", options, () =>
          control.fork(String(entryId), options.position === "at"),
        ),
      // Takes effect once the agent is idle, as the user's pick in `/tree`: a user message is
      // moved before, its text back in the editor. Pi's `replaceInstructions` and `label` have
      // no place in tack's branch summary.
      navigateTree: async (targetId, options = {}) => {
        if (options.replaceInstructions || options.label !== undefined) {
          hostLog("warn", "ctx.navigateTree: replaceInstructions and label are not used in tack");
        }
        const focus =
          options.customInstructions === undefined ? undefined : String(options.customInstructions);
        try {
          control.navigateTree(String(targetId), Boolean(options.summarize), focus);
        } catch (e) {
          throw new Error(`ctx.navigateTree: ${e?.payload ?? e}`);
        }
        return { cancelled: false };
      },
      // One of tack's sessions: an id (Pi's `SessionManager` paths are tack's session files).
      switchSession: async (sessionPath, options = {}) =>
        moveTo("switchSession", "resume", options, () =>
          control.switchSession(String(sessionPath)),
        ),
      // Takes effect once the agent is idle, as /reload: terminal for the handler, as in Pi.
      reload: async () => {
        try {
          control.reload();
        } catch (e) {
          throw new Error(`ctx.reload: ${e?.payload ?? e}`);
        }
      },
    };
    return this.ctx;
  }

  /** `onUpdate` for a running tool: partial results go to the host as progress. */
  progressOf(callId) {
    return (partial) => {
      try {
        toolProgress(callId, toolResultOf(partial));
      } catch {
        // Progress is best effort: a malformed partial result must not fail the tool.
      }
    };
  }
}

/** Pi's tool definition as tack's `tool-spec`. */
export function specOf(definition) {
  return {
    name: definition.name,
    label: definition.label ?? definition.name,
    description: definition.description ?? "",
    parameters: JSON.stringify(definition.parameters ?? { type: "object", properties: {} }),
    mode: definition.executionMode === "sequential" ? "sequential" : "parallel",
    promptSnippet: definition.promptSnippet,
  };
}
