#!/usr/bin/env node
// Builds a tack plugin written in JavaScript into a component.
//
//   node sdk/js/bin/build.js <plugin-dir> [out.wasm]
//
// The plugin's sources are `<plugin-dir>/src/*.js` with `src/plugin.js` as the entry; it imports
// the SDK as "./tack.js", which this script places next to it (unless the plugin has its own),
// so the build needs no bundler.
// The WIT is `<plugin-dir>/wit` when the plugin carries its own copy (scaffolded plugins do),
// else the repository's `wit/plugin/v0.1.0/`. A plugin whose tack.toml says `api = "0.2"` is
// built against 0.2.0's `plugin` world (0.1.0's interfaces as its dependency), exports 0.2.0's
// optional interfaces through ./tack-next.js, and may import that module.

import { componentize } from "@bytecodealliance/componentize-js";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [pluginArg, outArg] = process.argv.slice(2);
if (!pluginArg) {
  console.error("usage: build.js <plugin-dir> [out.wasm]");
  process.exit(2);
}
const plugin = resolve(pluginArg);
const out = resolve(outArg ?? join(plugin, "plugin.wasm"));
const repoWit = resolve(sdk, "..", "..", "wit", "plugin");
const manifest = existsSync(join(plugin, "tack.toml"))
  ? readFileSync(join(plugin, "tack.toml"), "utf8")
  : "";
const next = /^\s*api\s*=\s*"0\.2"\s*$/m.test(manifest);

// Stage the sources with the SDK beside them in a scratch folder.
const stage = mkdtempSync(join(tmpdir(), "tack-js-build-"));
let wit = existsSync(join(plugin, "wit")) ? join(plugin, "wit") : join(repoWit, "v0.1.0");
if (next) {
  // The 0.2.0 package with 0.1.0 as a dependency of its own version, as wit-parser reads them.
  wit = join(stage, "wit");
  mkdirSync(join(wit, "deps", "plugin-0.1.0"), { recursive: true });
  for (const file of readdirSync(join(repoWit, "v0.2.0"))) {
    copyFileSync(join(repoWit, "v0.2.0", file), join(wit, file));
  }
  for (const file of readdirSync(join(repoWit, "v0.1.0"))) {
    copyFileSync(join(repoWit, "v0.1.0", file), join(wit, "deps", "plugin-0.1.0", file));
  }
}
for (const file of readdirSync(join(plugin, "src"))) {
  if (file.endsWith(".js")) copyFileSync(join(plugin, "src", file), join(stage, file));
}
// Scaffolded plugins carry their own copy of the SDK; the examples use the one in this repo.
if (!existsSync(join(stage, "tack.js"))) {
  copyFileSync(join(sdk, "src", "tack.js"), join(stage, "tack.js"));
}
if (next && !existsSync(join(stage, "tack-next.js"))) {
  copyFileSync(join(sdk, "src", "tack-next.js"), join(stage, "tack-next.js"));
}

// The entry exports the plugin's `guest` and the SDK's `task-runner`, which hands tasks to the
// plugin's `runTask`: the world is `plugin-extended` (the `plugin` world plus the optional
// extensions), whose exports must all exist.
const entry = "tack-entry.js";
writeFileSync(
  join(stage, entry),
  'export { guest } from "./plugin.js";\nexport { taskRunner } from "./tack.js";\n' +
    (next
      ? 'export { observer, providerHooks, sessionHooks, completions, renderers, editor } from "./tack-next.js";\n'
      : ""),
);

try {
  const { component } = await componentize({
    sourcePath: join(stage, entry),
    witPath: wit,
    worldName: next ? "plugin" : "plugin-extended",
    // Without this the engine imports wasi:http, which tack does not give plugins.
    disableFeatures: ["http", "fetch-event"],
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, component);
  console.log(`wrote ${out} (${(component.length / 1e6).toFixed(1)} MB)`);
} catch (e) {
  console.error(`componentize-js failed: ${e?.message ?? e}`);
  process.exitCode = 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
