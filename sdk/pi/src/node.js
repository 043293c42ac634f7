// The Node modules a Pi extension may import, mapped onto what a tack plugin has: pure ones
// (path, url, util, events) are written out; `child_process` runs commands through
// `tack:plugin/exec`, so the plugin's `exec` grant and the policy plugins judge every command;
// `fs` (./fs.js) reaches the folders of its `fs` grants.

import { spawn as hostSpawn } from "tack:plugin/exec@0.1.0";

import { Buffer } from "./buffer.js";
import { fs, promises as fsPromises, setCwd } from "./fs.js";

// The workspace, set once `init` knows it; paths resolve against it.
let workspace = "/";

/** Sets the folder relative paths resolve against (the workspace `init` is given). */
export function setWorkspace(folder) {
  workspace = folder;
}

// The plugin's own data folder, when the host gives one: Pi's agent directory in tack.
let dataDir;

/** Sets the plugin's data folder (`init`'s `data-dir`). */
export function setDataDir(folder) {
  dataDir = folder;
}

/** The folder Pi's `getAgentDir()` names: the plugin's data folder, else `/`. */
export function agentDir() {
  return dataDir ?? "/";
}

setCwd(() => workspace);

// ---- process --------------------------------------------------------------------------------

/** The `process` an extension sees: no environment (secrets stay with the host), tack's cwd. */
export const process = {
  env: {},
  argv: ["tack"],
  platform: "linux",
  arch: "wasm32",
  pid: 1,
  version: "v22.0.0",
  versions: { node: "22.0.0" },
  cwd: () => workspace,
  exit: (code) => {
    throw new Error(`the extension called process.exit(${code ?? 0}); a plugin cannot end tack`);
  },
  on: () => undefined,
  once: () => undefined,
  off: () => undefined,
  emitWarning: () => undefined,
  nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
  hrtime: Object.assign(
    (prev) => {
      const ns = BigInt(Math.round(performance.now() * 1e6));
      const now = [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
      if (!prev) return now;
      return [now[0] - prev[0], now[1] - prev[1]];
    },
    { bigint: () => BigInt(Math.round(performance.now() * 1e6)) },
  ),
  stdout: { columns: 80, rows: 24, isTTY: false, write: () => true, on: () => undefined },
  stderr: { columns: 80, isTTY: false, write: () => true, on: () => undefined },
  stdin: { isTTY: false, on: () => undefined },
};

// ---- path (POSIX) ---------------------------------------------------------------------------

function normalizeParts(parts, absolute) {
  const out = [];
  for (const part of parts) {
    if (!part || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else {
      out.push(part);
    }
  }
  return out;
}

function normalize(p) {
  if (p === "") return ".";
  const absolute = p.startsWith("/");
  const trailing = p.endsWith("/");
  let joined = normalizeParts(p.split("/"), absolute).join("/");
  if (!joined && !absolute) joined = ".";
  if (joined && trailing) joined += "/";
  return (absolute ? "/" : "") + joined;
}

function makePath() {
  const path = {
    sep: "/",
    delimiter: ":",
    normalize,
    isAbsolute: (p) => p.startsWith("/"),
    join: (...parts) => normalize(parts.filter((p) => p !== "").join("/") || "."),
    resolve: (...parts) => {
      let resolved = "";
      for (let i = parts.length - 1; i >= 0 && !resolved.startsWith("/"); i--) {
        if (parts[i]) resolved = resolved ? `${parts[i]}/${resolved}` : parts[i];
      }
      if (!resolved.startsWith("/")) resolved = `${workspace}/${resolved}`;
      const out = "/" + normalizeParts(resolved.split("/"), true).join("/");
      return out;
    },
    relative: (from, to) => {
      const a = path.resolve(from).split("/").filter(Boolean);
      const b = path.resolve(to).split("/").filter(Boolean);
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) i++;
      return [...Array(a.length - i).fill(".."), ...b.slice(i)].join("/");
    },
    dirname: (p) => {
      if (!p) return ".";
      const trimmed = p.length > 1 ? p.replace(/\/+$/, "") : p;
      const i = trimmed.lastIndexOf("/");
      if (i < 0) return ".";
      if (i === 0) return "/";
      return trimmed.slice(0, i);
    },
    basename: (p, ext) => {
      const trimmed = p.length > 1 ? p.replace(/\/+$/, "") : p;
      let base = trimmed.slice(trimmed.lastIndexOf("/") + 1);
      if (ext && base.endsWith(ext) && base !== ext) base = base.slice(0, -ext.length);
      return base;
    },
    extname: (p) => {
      const base = path.basename(p);
      const i = base.lastIndexOf(".");
      return i <= 0 ? "" : base.slice(i);
    },
    parse: (p) => {
      const base = path.basename(p);
      const ext = path.extname(p);
      return {
        root: p.startsWith("/") ? "/" : "",
        dir: path.dirname(p),
        base,
        ext,
        name: ext ? base.slice(0, -ext.length) : base,
      };
    },
    format: ({ dir, root, base, name, ext }) =>
      `${dir ? `${dir}/` : (root ?? "")}${base ?? `${name ?? ""}${ext ?? ""}`}`,
  };
  path.posix = path;
  return path;
}

// ---- url, util, events, os ------------------------------------------------------------------

const url = {
  URL: globalThis.URL,
  URLSearchParams: globalThis.URLSearchParams,
  fileURLToPath: (u) => {
    const href = typeof u === "string" ? u : u.href;
    if (!href.startsWith("file://")) throw new TypeError(`not a file URL: ${href}`);
    return decodeURIComponent(href.slice("file://".length));
  },
  pathToFileURL: (p) => new URL(`file://${encodeURI(p)}`),
};

// Node's symbol for a function's own promisified form (`exec` resolves `{ stdout, stderr }`).
const PROMISIFY_CUSTOM = Symbol.for("nodejs.util.promisify.custom");

function inspect(value) {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

const util = {
  inspect,
  format: (fmt, ...args) =>
    typeof fmt !== "string"
      ? [fmt, ...args].map(inspect).join(" ")
      : fmt.replace(/%[sdifjo%]/g, (m) => (m === "%%" ? "%" : inspect(args.shift()))) +
        (args.length ? ` ${args.map(inspect).join(" ")}` : ""),
  promisify: (fn) =>
    fn[PROMISIFY_CUSTOM] ??
    ((...args) =>
      new Promise((resolve, reject) =>
        fn(...args, (err, ...values) =>
          err ? reject(err) : resolve(values.length > 1 ? values : values[0]),
        ),
      )),
  isDeepStrictEqual: (a, b) => JSON.stringify(a) === JSON.stringify(b),
  types: { isPromise: (v) => v instanceof Promise },
};
util.promisify.custom = PROMISIFY_CUSTOM;

export class EventEmitter {
  constructor() {
    this._listeners = new Map();
  }
  on(name, fn) {
    if (!this._listeners.has(name)) this._listeners.set(name, []);
    this._listeners.get(name).push(fn);
    return this;
  }
  addListener(name, fn) {
    return this.on(name, fn);
  }
  once(name, fn) {
    const wrapped = (...args) => {
      this.off(name, wrapped);
      fn(...args);
    };
    return this.on(name, wrapped);
  }
  off(name, fn) {
    const list = this._listeners.get(name);
    if (list)
      this._listeners.set(
        name,
        list.filter((f) => f !== fn),
      );
    return this;
  }
  removeListener(name, fn) {
    return this.off(name, fn);
  }
  removeAllListeners(name) {
    if (name === undefined) this._listeners.clear();
    else this._listeners.delete(name);
    return this;
  }
  emit(name, ...args) {
    const list = this._listeners.get(name);
    if (!list || list.length === 0) return false;
    for (const fn of [...list]) fn(...args);
    return true;
  }
  listenerCount(name) {
    return this._listeners.get(name)?.length ?? 0;
  }
  setMaxListeners() {
    return this;
  }
}

const os = {
  EOL: "\n",
  platform: () => "linux",
  type: () => "Linux",
  arch: () => "wasm32",
  release: () => "",
  hostname: () => "tack",
  // A plugin has no home of its own; the user's is not in its grants.
  homedir: () => "/",
  tmpdir: () => "/tmp",
  cpus: () => [],
  totalmem: () => 0,
  freemem: () => 0,
  userInfo: () => ({ username: "tack", homedir: "/", shell: null, uid: -1, gid: -1 }),
};

// ---- child_process over tack:plugin/exec ----------------------------------------------------

const decoder = new TextDecoder();

/** A word as the exec grant's splitter reads it back. */
export function shellQuote(word) {
  const text = String(word);
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

function messageOf(e) {
  if (e && typeof e === "object" && "tag" in e) return `${e.tag}: ${e.val}`;
  if (e && typeof e.payload === "object" && e.payload?.tag) {
    return `${e.payload.tag}: ${e.payload.val}`;
  }
  return String(e?.message ?? e);
}

/**
 * Runs `command` (a command line) to its end through `exec.spawn`: `{ stdout, stderr, code,
 * killed }`. Throws an Error naming the refusal when no `exec` grant covers it.
 */
export function runCommand(command, { cwd, timeout } = {}) {
  let proc;
  try {
    proc = hostSpawn({
      command,
      cwd: cwd || undefined,
      timeoutMs: timeout ? BigInt(Math.max(1, Math.round(timeout))) : undefined,
    });
  } catch (e) {
    throw new Error(`cannot run \`${command}\`: ${messageOf(e)}`);
  }
  let stdout = "";
  let stderr = "";
  for (;;) {
    const event = proc.next(1000);
    switch (event.tag) {
      case "stdout":
        stdout += decoder.decode(event.val, { stream: true });
        break;
      case "stderr":
        stderr += decoder.decode(event.val, { stream: true });
        break;
      case "idle":
        break;
      case "exited":
        return { stdout, stderr, code: event.val ?? null, killed: event.val === undefined };
      case "timed-out":
      case "cancelled":
        return { stdout, stderr, code: null, killed: true };
      default:
        return { stdout, stderr, code: null, killed: true };
    }
  }
}

function commandLine(file, args) {
  return [file, ...(args ?? [])].map(shellQuote).join(" ");
}

function failure(command, result) {
  const error = new Error(`Command failed: ${command}\n${result.stderr}`);
  Object.assign(error, {
    status: result.code,
    code: result.code,
    stdout: result.stdout,
    stderr: result.stderr,
    killed: result.killed,
  });
  return error;
}

function encoded(text, options) {
  const encoding = typeof options === "string" ? options : options?.encoding;
  return encoding && encoding !== "buffer" ? text : Buffer.from(text);
}

const childProcess = {
  execSync(command, options) {
    const result = runCommand(command, options);
    if (result.code !== 0) throw failure(command, result);
    return encoded(result.stdout, options);
  },
  execFileSync(file, args, options) {
    if (!Array.isArray(args)) [args, options] = [[], args];
    const command = commandLine(file, args);
    const result = runCommand(command, options);
    if (result.code !== 0) throw failure(command, result);
    return encoded(result.stdout, options);
  },
  spawnSync(file, args, options) {
    if (!Array.isArray(args)) [args, options] = [[], args];
    const command = options?.shell ? [file, ...(args ?? [])].join(" ") : commandLine(file, args);
    try {
      const result = runCommand(command, options);
      return {
        status: result.code,
        signal: result.killed ? "SIGKILL" : null,
        stdout: encoded(result.stdout, options),
        stderr: encoded(result.stderr, options),
        output: [null, result.stdout, result.stderr],
      };
    } catch (error) {
      return { status: null, signal: null, stdout: "", stderr: "", error };
    }
  },
  exec(command, options, callback) {
    if (typeof options === "function") [options, callback] = [{}, options];
    const child = new EventEmitter();
    setTimeout(() => {
      let result;
      try {
        result = runCommand(command, options);
      } catch (error) {
        callback?.(error, "", "");
        child.emit("error", error);
        return;
      }
      const error = result.code === 0 ? null : failure(command, result);
      callback?.(error, result.stdout, result.stderr);
      child.emit("exit", result.code);
      child.emit("close", result.code);
    }, 0);
    return child;
  },
  execFile(file, args, options, callback) {
    if (typeof args === "function") [args, options, callback] = [[], {}, args];
    if (typeof options === "function") [options, callback] = [{}, options];
    return childProcess.exec(commandLine(file, args), options, callback);
  },
  spawn(file, args, options) {
    if (!Array.isArray(args)) [args, options] = [[], args];
    const child = new EventEmitter();
    child.stdout = new EventEmitter();
    child.stderr = new EventEmitter();
    child.stdin = { write: () => true, end: () => undefined };
    child.kill = () => true;
    child.pid = 0;
    const command = options?.shell ? [file, ...(args ?? [])].join(" ") : commandLine(file, args);
    setTimeout(() => {
      let result;
      try {
        result = runCommand(command, options);
      } catch (error) {
        child.emit("error", error);
        return;
      }
      if (result.stdout) child.stdout.emit("data", encoded(result.stdout, options?.encoding));
      if (result.stderr) child.stderr.emit("data", encoded(result.stderr, options?.encoding));
      child.exitCode = result.code;
      child.emit("exit", result.code, result.killed ? "SIGKILL" : null);
      child.emit("close", result.code, result.killed ? "SIGKILL" : null);
    }, 0);
    return child;
  },
};

childProcess.exec[PROMISIFY_CUSTOM] = (command, options) =>
  new Promise((resolve, reject) =>
    childProcess.exec(command, options, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stdout, stderr })) : resolve({ stdout, stderr }),
    ),
  );
childProcess.execFile[PROMISIFY_CUSTOM] = (file, args, options) =>
  new Promise((resolve, reject) =>
    childProcess.execFile(file, args ?? [], options ?? {}, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stdout, stderr })) : resolve({ stdout, stderr }),
    ),
  );

// ---- the rest -------------------------------------------------------------------------------

const timers = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  setImmediate: (fn, ...args) => setTimeout(fn, 0, ...args),
};

const timersPromises = {
  setTimeout: (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms)),
  setImmediate: (value) => new Promise((resolve) => setTimeout(() => resolve(value), 0)),
};

const module = {
  createRequire: () => (name) => {
    throw new Error(`require(\`${name}\`) is not available in tack's Pi runtime`);
  },
};

const path = makePath();

/** Node's modules by name (without `node:`). */
export const NODE_MODULES = {
  path,
  "path/posix": path,
  url,
  util,
  events: Object.assign(EventEmitter, { EventEmitter, default: EventEmitter }),
  os,
  child_process: childProcess,
  timers,
  "timers/promises": timersPromises,
  perf_hooks: { performance: globalThis.performance },
  process,
  module,
  tty: { isatty: () => false },
  fs,
  "fs/promises": fsPromises,
  buffer: { Buffer },
};
