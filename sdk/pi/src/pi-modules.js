// The modules an extension's bundle `require`s at run time: Pi's own packages, typebox and the
// mapped Node modules. typebox is the real package; of `@mariozechner/pi-tui` (see
// ./pi-tui.js), `pi-coding-agent`, `pi-ai` and `pi-agent-core` (which are the agent itself) the
// runtime gives the parts extensions use, written for tack. Anything else an extension takes
// from them throws, when used, an Error naming it.

import * as typebox from "typebox";
import * as piTui from "./pi-tui.js";

import { notInTack } from "./api.js";
import { NODE_MODULES, agentDir } from "./node.js";
import { plainComponentTheme } from "./theme.js";
import { PROVIDED } from "./modules.js";
import * as truncate from "./truncate.js";
import { TOOL_FACTORIES } from "./tools.js";
import { complete, findModel } from "./models.js";

const VERSION = "0.73.1";

/** A module whose missing members throw when read, naming the member and the module. */
function strict(name, members) {
  return new Proxy(members, {
    get(target, key) {
      if (key in target || typeof key === "symbol") return target[key];
      if (key === "__esModule") return true;
      if (key === "default") return target;
      if (key === "then" || key === "toJSON") return undefined;
      throw notInTack(`\`${String(key)}\` of ${name}`, "tack's Pi runtime does not provide it yet");
    },
  });
}

function textOfContent(content) {
  if (typeof content === "string") return content;
  return (content ?? [])
    .filter((block) => block?.type === "text")
    .map((block) => block.text)
    .join("");
}

/** A conversation as plain text, one `[Role]: …` paragraph per message. */
function serializeConversation(messages) {
  const parts = [];
  for (const message of messages ?? []) {
    if (message.role === "user") {
      const text = textOfContent(message.content);
      if (text) parts.push(`[User]: ${text}`);
    } else if (message.role === "assistant") {
      const blocks = Array.isArray(message.content) ? message.content : [];
      const text = blocks.filter((b) => b.type === "text").map((b) => b.text);
      const calls = blocks
        .filter((b) => b.type === "toolCall")
        .map((b) => `${b.name}(${JSON.stringify(b.arguments ?? {})})`);
      if (text.length) parts.push(`[Assistant]: ${text.join("\n")}`);
      if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
    } else if (message.role === "toolResult") {
      const text = textOfContent(message.content);
      if (text) parts.push(`[Tool result]: ${text}`);
    }
  }
  return parts.join("\n\n");
}

/** `---`-fenced YAML-ish front matter of flat `key: value` lines, and the body after it. */
function parseFrontmatter(content) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(content);
  if (!match) return { frontmatter: {}, body: content };
  const frontmatter = {};
  for (const line of match[1].split(/\r?\n/)) {
    const pair = /^([\w-]+):\s*(.*)$/.exec(line);
    if (pair) frontmatter[pair[1]] = pair[2].replace(/^["']|["']$/g, "");
  }
  return { frontmatter, body: content.slice(match[0].length) };
}

/** Pi's `DynamicBorder`: a horizontal rule as wide as it is drawn. */
class DynamicBorder {
  constructor(color = (text) => text) {
    this.color = color;
  }
  render(width) {
    return [this.color("─".repeat(Math.max(1, width)))];
  }
  invalidate() {}
}

/**
 * Pi's `BorderedLoader`: pi-tui's spinner between two rules while an extension works (its own
 * model call, say). Cancellable by default: Esc aborts its `signal` and calls `onAbort`.
 */
class BorderedLoader extends piTui.Container {
  constructor(tui, theme, message, options = {}) {
    super();
    const fg = (color) => (text) => theme?.fg ? theme.fg(color, text) : text;
    this.cancellable = options.cancellable ?? true;
    this.addChild(new DynamicBorder(fg("border")));
    if (this.cancellable) {
      this.loader = new piTui.CancellableLoader(tui, fg("accent"), fg("muted"), message);
    } else {
      this.aborter = new AbortController();
      this.loader = new piTui.Loader(tui, fg("accent"), fg("muted"), message);
    }
    this.addChild(this.loader);
    if (this.cancellable) {
      this.addChild(new piTui.Spacer(1));
      this.addChild(new piTui.Text("esc cancel", 1, 0));
    }
    this.addChild(new piTui.Spacer(1));
    this.addChild(new DynamicBorder(fg("border")));
  }
  get signal() {
    return this.cancellable ? this.loader.signal : this.aborter.signal;
  }
  set onAbort(handler) {
    if (this.cancellable) this.loader.onAbort = handler;
  }
  handleInput(data) {
    if (this.cancellable) this.loader.handleInput(data);
  }
  dispose() {
    if (typeof this.loader.dispose === "function") this.loader.dispose();
    else this.loader.stop?.();
  }
}

/**
 * Pi's `CustomEditor`: pi-tui's Editor taking the keybindings too. Pi's app wires its actions
 * (`onAction`, `onEscape`, `onCtrlD`); tack keeps those keys itself (Esc while the agent works,
 * Ctrl+D, the model keys), so what an extension registers here is kept and never called.
 */
class CustomEditor extends piTui.Editor {
  constructor(tui, theme, keybindings, options) {
    super(tui, theme, options);
    this.keybindings = keybindings;
    this.actionHandlers = new Map();
  }

  onAction(action, handler) {
    this.actionHandlers.set(action, handler);
  }
}

const isTool = (name) => (event) => event?.toolName === name;

function codingAgent() {
  return strict("@mariozechner/pi-coding-agent", {
    VERSION,
    ...truncate,
    // Pi's `~/.pi/agent` is, for an extension in tack, its own data folder.
    getAgentDir: agentDir,
    defineTool: (tool) => tool,
    isToolCallEventType: (name, event) => event?.toolName === name,
    isBashToolResult: isTool("bash"),
    isReadToolResult: isTool("read"),
    isEditToolResult: isTool("edit"),
    isWriteToolResult: isTool("write"),
    isGrepToolResult: isTool("grep"),
    isFindToolResult: isTool("find"),
    isLsToolResult: isTool("ls"),
    convertToLlm: (messages) =>
      (messages ?? []).filter((m) => ["user", "assistant", "toolResult"].includes(m.role)),
    serializeConversation,
    parseFrontmatter,
    stripFrontmatter: (content) => parseFrontmatter(content).body,
    estimateTokens: (message) => Math.ceil(JSON.stringify(message ?? "").length / 4),
    withFileMutationQueue: async (_path, fn) => fn(),
    DynamicBorder,
    BorderedLoader,
    CustomEditor,
    getMarkdownTheme: plainComponentTheme,
    getSelectListTheme: plainComponentTheme,
    getSettingsListTheme: plainComponentTheme,
    highlightCode: (code) => String(code).split("\n"),
    getLanguageFromPath: () => undefined,
    keyHint: (_action, description) => description ?? "",
    ...TOOL_FACTORIES,
  });
}

const streamsNotYet = (name) => () => {
  throw notInTack(
    `${name} of @mariozechner/pi-ai`,
    "a plugin's model call returns the whole answer (complete), not a stream",
  );
};

function piAi() {
  return strict("@mariozechner/pi-ai", {
    StringEnum: (values, options = {}) =>
      typebox.Type.Unsafe({
        type: "string",
        enum: values,
        ...(options.description && { description: options.description }),
        ...(options.default && { default: options.default }),
      }),
    Type: typebox.Type,
    complete,
    completeSimple: complete,
    stream: streamsNotYet("stream"),
    streamSimple: streamsNotYet("streamSimple"),
    getModel: (provider, id) => findModel(provider, id),
  });
}

/**
 * `require` for an extension's bundle. Only the modules the bundler kept external reach it; a
 * name it does not know is an Error (the bundler refuses those before).
 */
export function makeRequire() {
  const node = NODE_MODULES;
  const cache = new Map();
  const make = {
    "@mariozechner/pi-coding-agent": codingAgent,
    "@mariozechner/pi-tui": () => strict("@mariozechner/pi-tui", { ...piTui }),
    "@mariozechner/pi-ai": piAi,
    "@mariozechner/pi-agent-core": () => strict("@mariozechner/pi-agent-core", {}),
    typebox: () => typebox,
    "@sinclair/typebox": () => typebox,
  };
  return (name) => {
    const key = name.replace(/^node:/, "");
    if (cache.has(key)) return cache.get(key);
    let module;
    if (make[key]) module = make[key]();
    else if (PROVIDED.has(key) && node[key]) module = node[key];
    else throw new Error(`require(\`${name}\`): not available in tack's Pi runtime`);
    cache.set(key, module);
    return module;
  };
}
