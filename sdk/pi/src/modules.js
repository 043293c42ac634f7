// Which modules a Pi extension may import in tack, shared by the bundler (which keeps them
// external and refuses the rest) and the runtime (which answers their `require`).

/** Modules the runtime provides, by the name an extension imports (Node's without `node:`). */
export const PROVIDED = new Set([
  "@mariozechner/pi-coding-agent",
  "@mariozechner/pi-tui",
  "@mariozechner/pi-ai",
  "@mariozechner/pi-agent-core",
  "typebox",
  "@sinclair/typebox",
  "path",
  "path/posix",
  "fs",
  "fs/promises",
  "buffer",
  "os",
  "child_process",
  "url",
  "util",
  "events",
  "process",
  "timers",
  "timers/promises",
  "perf_hooks",
  "module",
]);

/**
 * How esbuild resolves packages, for the runtime and for every extension alike: ES modules
 * first, platform-neutral (the Node modules are tack's), the engine's language level.
 */
export const ESBUILD_RESOLUTION = {
  platform: "neutral",
  target: "es2022",
  mainFields: ["module", "main"],
  conditions: ["import", "default"],
};

/** Node modules tack cannot give a sandboxed plugin, with the reason a user can act on. */
export const REFUSED = {
  worker_threads: "threads are not available to a WebAssembly plugin",
  cluster: "a plugin cannot fork tack",
  net: "raw sockets are not available to a plugin; use fetch with an `http` grant",
  tls: "raw sockets are not available to a plugin; use fetch with an `http` grant",
  dgram: "raw sockets are not available to a plugin",
  dns: "a plugin does not resolve names; use fetch with an `http` grant",
  http: "Node's http module is not available; use fetch with an `http` grant",
  https: "Node's https module is not available; use fetch with an `http` grant",
  http2: "Node's http2 module is not available; use fetch with an `http` grant",
  vm: "a plugin cannot create JavaScript contexts",
  v8: "the engine's internals are not available to a plugin",
  inspector: "the debugger is not available to a plugin",
  readline: "a plugin does not read the terminal; use ctx.ui dialogs",
  repl: "a plugin does not read the terminal",
  sqlite: "native SQLite is not available to a plugin",
  crypto: "tack's Pi runtime has no node:crypto yet (globalThis.crypto.getRandomValues works)",
};

/**
 * What an extension's imports imply it needs granted: the Node modules that reach outside the
 * plugin map onto tack grants, which the user gives as for any package.
 */
export function capabilitiesOf(provided) {
  const needs = [];
  if (["fs", "fs/promises"].some((m) => provided.has(m))) {
    needs.push("fs: the folders it reads or writes (an `fs` grant for each)");
  }
  if (provided.has("child_process")) {
    needs.push("exec: commands it runs (an `exec` grant for each command pattern)");
  }
  return needs;
}
