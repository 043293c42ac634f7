#!/usr/bin/env node
// Builds tack's Pi runtime component: src/runtime.js with Pi's packages it provides (pi-tui,
// typebox) bundled in, componentized by the JavaScript SDK's build (sdk/js/bin/build.js)
// against tack:plugin@0.2.0. One component serves every Pi extension; tack builds it once per
// version of these sources and caches it.
//
//   node sdk/pi/bin/build-runtime.js <out.wasm>

import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { PROVIDED, REFUSED } from "../src/modules.js";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: build-runtime.js <out.wasm>");
  process.exit(2);
}

// Inside the runtime, Pi's packages import Node modules too (pi-tui's terminal, which an
// extension's lines never use): each resolves to the runtime's own shim of it (src/node.js), or
// to an empty module for those tack does not map.
const PI_PACKAGES = new Set(["typebox", "@sinclair/typebox"]);
const nodeShim = join(here, "..", "src", "node.js");
const nodeShims = {
  name: "tack-pi-node-shims",
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, "");
      if (PI_PACKAGES.has(name) || (!PROVIDED.has(name) && !REFUSED[name])) return undefined;
      return { path: name, namespace: "tack-node" };
    });
    b.onLoad({ filter: /.*/, namespace: "tack-node" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(nodeShim)}).NODE_MODULES[${JSON.stringify(args.path)}] ?? {};`,
      loader: "js",
      resolveDir: here,
    }));
  },
};

const stage = mkdtempSync(join(tmpdir(), "tack-pi-runtime-"));
try {
  mkdirSync(join(stage, "src"));
  await build({
    entryPoints: [join(here, "..", "src", "runtime.js")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["import", "default"],
    external: ["tack:*", "./tack.js"],
    outfile: join(stage, "src", "plugin.js"),
    logLevel: "warning",
    plugins: [nodeShims],
  });
  writeFileSync(
    join(stage, "src", "tack-next.js"),
    'export { observer, providerHooks, sessionHooks } from "./plugin.js";\n',
  );
  writeFileSync(
    join(stage, "tack.toml"),
    '[plugin]\nname = "pi-runtime"\nversion = "0.1.0"\napi = "0.2"\ncomponent = "pi-runtime.wasm"\n',
  );
  const sdkBuild = resolve(here, "..", "..", "js", "bin", "build.js");
  const run = spawnSync(process.execPath, [sdkBuild, stage, resolve(out)], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
