// What `tack:plugin@0.2.0` adds, for plugins whose tack.toml says `api = "0.2"` (bin/build.js
// then builds against 0.2.0's `plugin` world). A 0.1.0 plugin never imports this module.
//
//   import { control, events, screen, sendMessage, Component, models, bus } from "./tack-next.js";
//
// The handlers for 0.2.0's exports are the plugin's own, passed to `definePlugin` beside the
// 0.1.0 ones: `onNamedEvent(name, data)` (events subscribed to with `events.subscribe`),
// `beforeProviderRequest(request, payload)` / `afterProviderResponse(status, headers)` (the
// `provider_payload` grant), and `beforeSwitch(request)` / `beforeFork(request)` /
// `beforeTree(request)` (return false to cancel; `beforeTree` may return the summary text), and
// `completeArguments(command, prefix)` (items for one of its commands' arguments) /
// `completeInput(lines, cursorLine, cursorCol)` (`{items, prefix}` at the cursor, once
// `screen.setInputCompletion(true)` turned it on) for the `completions` export, with items
// `{value, label, description}`, and `renderCall(call, options)` / `renderResult(call, result,
// options)` / `renderMessage(message, options)` (lines, an array of strings, for its own tools'
// calls and results and its own messages in the terminal UI; `undefined` leaves them to tack)
// for the `renderers` export, and `editorView(input, width)` for the `editor` export (its own
// editor in place of tack's, once `screen.setEditor(true)` put it there).

import * as hostControl from "tack:plugin/control@0.2.0";
import * as hostEvents from "tack:plugin/events@0.2.0";
import * as hostScreen from "tack:plugin/screen@0.2.0";
import * as hostTools from "tack:plugin/tools@0.2.0";
import * as hostCommands from "tack:plugin/commands@0.2.0";
import * as hostProcess from "tack:plugin/process@0.2.0";
import * as hostModels from "tack:plugin/models@0.2.0";
import * as hostShortcuts from "tack:plugin/shortcuts@0.2.0";
import * as hostBus from "tack:plugin/bus@0.2.0";
import * as hostProviders from "tack:plugin/providers@0.2.0";
import { sendMessage as hostSendMessage } from "tack:plugin/session@0.1.0";
import { currentPlugin } from "./tack.js";

/** Pi's `ctx` reads and session naming (`tack:plugin/control`). */
export const control = hostControl;

/** Events by name: `events.subscribe("turn_end", …)`; they arrive at `onNamedEvent`. */
export const events = {
  subscribe: (...names) => hostEvents.subscribe(names),
  unsubscribe: (...names) => hostEvents.unsubscribe(names),
};

/**
 * Keys the plugin binds in the terminal UI (Pi's `registerShortcut`): `register(key,
 * description)` (throws the reason for a malformed key or past 32), `unregister(key)`. A press
 * arrives at `onNamedEvent("shortcut", { type, key })`; a key tack or another plugin holds is
 * not bound, and the user is told.
 */
export const shortcuts = {
  register: (key, description = "") => hostShortcuts.register(key, description),
  unregister: (key) => hostShortcuts.unregister(key),
};

/**
 * The event bus between plugins (Pi's `pi.events`; the `bus` grant names each channel):
 * `bus.emit(channel, data)` sends `data` as JSON to the other plugins listening there,
 * `bus.listen(...channels)` / `bus.unlisten(...channels)`. A message arrives at
 * `onNamedEvent("bus_message", { channel, from, data })`, `from` being the sender's name as the
 * host knows it. Refusals (a channel not granted, data over 64 KiB) throw the reason.
 */
export const bus = {
  emit: (channel, data) => hostBus.emit(channel, JSON.stringify(data ?? null)),
  listen: (...channels) => hostBus.listen(channels),
  unlisten: (...channels) => hostBus.unlisten(channels),
};

/**
 * Widgets below the editor, the title, the editor's text (`editorText()` with the components
 * grant), the working message and indicator (`setWorkingIndicator({frames, intervalMs})`,
 * `setWorkingVisible`), the hidden-thinking label, a header (`setHeader(lines)`), a footer,
 * tool output's expansion (`toolsExpanded()`, `setToolsExpanded`) and the theme (`themes()`,
 * `theme()`, `setTheme(name)`, which throws the reason it could not).
 */
export const screen = {
  ...hostScreen,
  /** Pi's `setWidget` with `placement`: "aboveEditor" or "belowEditor". */
  setWidget: (key, lines, placement = "aboveEditor") =>
    hostScreen.setWidget(key, lines, placement === "belowEditor" ? "below-editor" : "above-editor"),
  /** Pi's `setFooter`: a left and a right part; `undefined` gives the footer back to tack. */
  setFooter: (left, right = "") =>
    hostScreen.setFooter(left === undefined ? undefined : { left, right }),
};

/**
 * A component the plugin draws and that takes the keyboard while it is up (Pi's
 * `ctx.ui.custom`; the `components` grant), in place of the editor ("editor") or over the
 * screen ("overlay"), driven frame by frame from the tool call or command that opened it:
 *
 *   const component = new Component();
 *   try {
 *     for (;;) {
 *       const input = component.frame([`> ${items[picked]}`], 1000);
 *       if (input.tag === "closed" || (input.tag === "key" && input.val === "enter")) break;
 *     }
 *   } finally {
 *     component.close();
 *   }
 *
 * `frame` answers `{tag: "key", val}` (keys named as Pi's `matchesKey` names them: "a",
 * "enter", "escape", "up", "ctrl+shift+up"), `{tag: "paste", val}`, `{tag: "tick"}` after
 * `waitMs` (at most 10 s), or `{tag: "closed"}`: the user pressed Ctrl+C, or nobody can see it
 * (print, JSON and RPC modes, or no grant), which `visible` tells before the first frame.
 */
export class Component {
  constructor(placement = "editor") {
    this.placement = placement === "overlay" ? "overlay" : "editor";
    const first = hostScreen.showComponent([], 0, this.placement);
    this.width = first.width;
    this.height = first.height;
    this.visible = first.input.tag !== "closed";
  }

  /** Shows `lines` (for `width` columns) and waits for the next input. */
  frame(lines, waitMs = 0) {
    const shown = hostScreen.showComponent(lines, waitMs, this.placement);
    if (shown.input.tag === "closed") {
      this.visible = false;
    } else {
      this.width = shown.width;
      this.height = shown.height;
    }
    return shown.input;
  }

  close() {
    hostScreen.closeComponent();
  }
}

/**
 * Model calls of the plugin's own (Pi's `complete`; the `agents` grant). `complete` takes a
 * prompt or a conversation (`[{role: "user" | "assistant", text}]`) and returns the whole
 * answer (`text`, `model`, `inputTokens`, `outputTokens`, `cost`, `entryId`); a refusal or a
 * failed provider throws, its `payload` the `completion-error`. The key stays with tack.
 */
export const models = {
  available: () => hostModels.available(),
  complete(prompt, { model, systemPrompt, maxTokens, thinking } = {}) {
    const messages = typeof prompt === "string" ? [{ role: "user", text: prompt }] : prompt;
    return hostModels.complete({ model, systemPrompt, messages, maxTokens, thinking });
  },
};

/** Tools registered while running (`tack:plugin/tools`). */
export const tools = hostTools;

/** LLM providers registered while running (`tack:plugin/providers`, Pi's `registerProvider`):
 * `register({ id, name, api, baseUrl, secret, auth, headers, models })` (a new id, its requests
 * written by the provider `api` names, e.g. `"anthropic"`, or by this plugin's own provider
 * functions; used only with the user's `secrets` and `http` grants), `unregister(id)`. */
export const providers = {
  register: ({ id, name = "", api, baseUrl, secret, auth, headers = [], models }) =>
    hostProviders.register({ id, name, api, baseUrl, secret, auth, headers, models }),
  unregister: (id) => hostProviders.unregister(id),
};

/** Slash commands registered while running (`tack:plugin/commands`): `register({name,
 * description})`, `unregister(name)`, `all()`. */
export const commands = hostCommands;

/** Long-lived programs (`tack:plugin/process`, the `process` grant). */
export const process = hostProcess;

const deliveries = { steer: "steer", followUp: "follow-up", nextTurn: "next-turn" };

/**
 * Pi's `sendMessage` / `sendUserMessage`: `deliverAs` is "steer" (the default; a turn of its own
 * when the agent is idle), "followUp" or "nextTurn". Stored as this plugin's message.
 */
export function sendMessage(
  text,
  { deliverAs = "steer", customType, display = true, details, triggerTurn = true } = {},
) {
  const delivery = deliveries[deliverAs];
  if (!delivery) throw new Error(`deliverAs must be one of ${Object.keys(deliveries).join(", ")}`);
  // `details` (any JSON) are kept beside the text in the session; the model reads the text.
  // Without `triggerTurn`, a message to an idle agent is written to the session, unanswered.
  if (details === undefined && triggerTurn) hostSendMessage({ customType, text, display }, delivery);
  else
    hostControl.sendCustomMessage(
      { customType, text, display },
      details === undefined ? undefined : JSON.stringify(details),
      delivery,
      triggerTurn,
    );
}

/** The `observer` export, delegating to the plugin's `onNamedEvent(name, data)`. */
export const observer = {
  onEvent(name, data) {
    const plugin = currentPlugin();
    if (plugin?.onNamedEvent) plugin.onNamedEvent(name, JSON.parse(data));
  },
};

/** The `provider-hooks` export, delegating to the plugin's handlers. */
export const providerHooks = {
  beforeProviderRequest(request) {
    const plugin = currentPlugin();
    if (!plugin?.beforeProviderRequest) return undefined;
    const replaced = plugin.beforeProviderRequest(request, JSON.parse(request.payload));
    if (replaced === undefined || replaced === null) return undefined;
    return typeof replaced === "string" ? replaced : JSON.stringify(replaced);
  },
  afterProviderResponse(response) {
    const plugin = currentPlugin();
    if (plugin?.afterProviderResponse) {
      plugin.afterProviderResponse(response.status, Object.fromEntries(response.headers));
    }
  },
};

const decision = (answer) => (answer === false ? "cancel" : "proceed");

const completionItems = (items) =>
  Array.isArray(items)
    ? items.map((item) => ({
        value: String(item?.value ?? ""),
        label: String(item?.label ?? item?.value ?? ""),
        description: item?.description === undefined ? undefined : String(item.description),
      }))
    : undefined;

/** The `completions` export: items for a command's argument, or for the draft at the cursor. */
export const completions = {
  commandArguments(command, prefix) {
    return completionItems(currentPlugin()?.completeArguments?.(command, prefix));
  },
  input(lines, cursorLine, cursorCol) {
    const answer = currentPlugin()?.completeInput?.(lines, cursorLine, cursorCol);
    const items = completionItems(answer?.items);
    return items ? { items, prefix: String(answer.prefix ?? "") } : undefined;
  },
};

const renderedLines = (lines) => (Array.isArray(lines) ? lines.map(String) : undefined);

/** The `renderers` export: lines for the plugin's own tool calls, results and messages. */
export const renderers = {
  renderCall: (call, options) => renderedLines(currentPlugin()?.renderCall?.(call, options)),
  renderResult: (call, result, options) =>
    renderedLines(currentPlugin()?.renderResult?.(call, result, options)),
  renderMessage: (message, options) =>
    renderedLines(currentPlugin()?.renderMessage?.(message, options)),
};

/** The `editor` export: the plugin's editor in place of tack's (`screen.setEditor(true)`), as
 * its `editorView(input, width)` draws it (`{lines, submitted}`; `input` is `{}`, `{key}` or
 * `{paste}`). */
export const editor = {
  view: (width) => editorAnswer(currentPlugin()?.editorView?.({}, width)),
  key: (key, width) => editorAnswer(currentPlugin()?.editorView?.({ key }, width)),
  paste: (text, width) => editorAnswer(currentPlugin()?.editorView?.({ paste: text }, width)),
};

const editorAnswer = (view) => ({
  lines: Array.isArray(view?.lines) ? view.lines.map(String) : [],
  submitted: view?.submitted === undefined ? undefined : String(view.submitted),
});

/** The `session-hooks` export: `false` cancels; anything else proceeds. */
export const sessionHooks = {
  beforeSwitch: (request) => decision(currentPlugin()?.beforeSwitch?.(request)),
  beforeFork: (request) => decision(currentPlugin()?.beforeFork?.(request)),
  beforeTree(request) {
    const answer = currentPlugin()?.beforeTree?.(request);
    if (answer === false) return { tag: "cancel" };
    if (typeof answer === "string") return { tag: "summary", val: answer };
    return { tag: "proceed" };
  },
};
