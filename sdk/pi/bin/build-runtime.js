#!/usr/bin/env node
// Builds tack's Pi runtime component: src/runtime.js with typebox bundled in, componentized
// with the JavaScript SDK's toolchain (componentize-js, from sdk/js) against tack:plugin@0.2.0.
// One component serves every Pi extension; tack builds it once per version of these sources
// and caches it.
//
//   node sdk/pi/bin/build-runtime.js <out.wasm>

import { build } from "esbuild";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { ESBUILD_RESOLUTION, PROVIDED, REFUSED } from "../src/modules.js";

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

// The world: tack:plugin@0.2.0's `plugin`, plus WASI's filesystem, which the engine imports
// anyway and which `node:fs` is written on. The host preopens exactly the folders the user
// granted the extension, at their own paths.
const WASI = "0.2.12";
const piWorld = `package tack:plugin@0.2.0;

world pi-runtime {
  include plugin;
  import wasi:filesystem/preopens@${WASI};
  import wasi:filesystem/types@${WASI};
}
`;

// pi-tui's real components (Editor, SelectList, SettingsList…) run in the runtime, but its
// `utils.js` (Unicode property escapes) and `tui.js` (the terminal renderer) cannot: their
// imports of those two resolve to the runtime's stand-ins.
const piTuiStandIns = {
  name: "tack-pi-tui-stand-ins",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/(utils|tui)\.js$/ }, (args) => {
      if (!/[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]/.test(args.importer)) return undefined;
      const name = args.path.endsWith("utils.js") ? "pi-tui-utils.js" : "pi-tui-tui.js";
      return { path: join(here, "..", "src", name) };
    });
  },
};

const jsSdk = resolve(here, "..", "..", "js");
const repoWit = resolve(jsSdk, "..", "..", "wit", "plugin");
const wasiWit = join(
  jsSdk,
  "node_modules",
  "@bytecodealliance",
  "jco",
  "lib",
  "wit",
  "builtin",
  WASI,
);
const { componentize } = await import(
  join(jsSdk, "node_modules", "@bytecodealliance", "componentize-js", "src", "componentize.js")
);

const stage = mkdtempSync(join(tmpdir(), "tack-pi-runtime-"));
try {
  await build({
    entryPoints: [join(here, "..", "src", "runtime.js")],
    bundle: true,
    format: "esm",
    ...ESBUILD_RESOLUTION,
    external: ["tack:*", "wasi:*", "./tack.js"],
    outfile: join(stage, "plugin.js"),
    logLevel: "warning",
    plugins: [nodeShims, piTuiStandIns],
  });
  copyFileSync(join(jsSdk, "src", "tack.js"), join(stage, "tack.js"));
  writeFileSync(
    join(stage, "entry.js"),
    'export { guest, observer, providerHooks, sessionHooks, completions, renderers, editor } from "./plugin.js";\n' +
      'export { taskRunner } from "./tack.js";\n',
  );
  const wit = join(stage, "wit");
  // As sdk/js/bin/build.js stages it (which cannot be imported: `tack plugin new` copies that
  // script alone into a plugin), with WASI's filesystem beside it.
  mkdirSync(join(wit, "deps", "plugin-0.1.0"), { recursive: true });
  for (const file of readdirSync(join(repoWit, "v0.2.0"))) {
    copyFileSync(join(repoWit, "v0.2.0", file), join(wit, file));
  }
  for (const file of readdirSync(join(repoWit, "v0.1.0"))) {
    copyFileSync(join(repoWit, "v0.1.0", file), join(wit, "deps", "plugin-0.1.0", file));
  }
  for (const pkg of ["wasi-filesystem", "wasi-io", "wasi-clocks"]) {
    cpSync(join(wasiWit, pkg), join(wit, "deps", pkg), { recursive: true });
  }
  writeFileSync(join(wit, "pi-runtime.wit"), piWorld);
  const { component } = await componentize({
    sourcePath: join(stage, "entry.js"),
    witPath: wit,
    worldName: "pi-runtime",
    // Without this the engine imports wasi:http, which tack does not give plugins.
    disableFeatures: ["http", "fetch-event"],
  });
  writeFileSync(resolve(out), component);
  console.log(`wrote ${resolve(out)} (${(component.length / 1e6).toFixed(1)} MB)`);
} catch (e) {
  console.error(`building tack's Pi runtime failed: ${e?.message ?? e}`);
  process.exitCode = 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
