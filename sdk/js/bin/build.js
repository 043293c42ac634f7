#!/usr/bin/env node
// Builds a tack plugin written in JavaScript into a component.
//
//   node sdk/js/bin/build.js <plugin-dir> [out.wasm]
//
// The plugin's sources are `<plugin-dir>/src/*.js` with `src/plugin.js` as the entry; it imports
// the SDK as "./tack.js", which this script places next to it (unless the plugin has its own),
// so the build needs no bundler.
// The WIT is `<plugin-dir>/wit` when the plugin carries its own copy (scaffolded plugins do),
// else the repository's `wit/plugin/v0.1.0/`.

import { componentize } from "@bytecodealliance/componentize-js";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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
const wit = existsSync(join(plugin, "wit")) ? join(plugin, "wit") : resolve(sdk, "..", "..", "wit", "plugin", "v0.1.0");

// Stage the sources with the SDK beside them in a scratch folder.
const stage = mkdtempSync(join(tmpdir(), "tack-js-build-"));
for (const file of readdirSync(join(plugin, "src"))) {
  if (file.endsWith(".js")) copyFileSync(join(plugin, "src", file), join(stage, file));
}
// Scaffolded plugins carry their own copy of the SDK; the examples use the one in this repo.
if (!existsSync(join(stage, "tack.js"))) {
  copyFileSync(join(sdk, "src", "tack.js"), join(stage, "tack.js"));
}

// The entry exports the plugin's `guest` and the SDK's `task-runner`, which hands tasks to the
// plugin's `runTask`: the world is `plugin-extended` (the `plugin` world plus the optional
// extensions), whose exports must all exist.
const entry = "tack-entry.js";
writeFileSync(
  join(stage, entry),
  'export { guest } from "./plugin.js";\nexport { taskRunner } from "./tack.js";\n',
);

try {
  const { component } = await componentize({
    sourcePath: join(stage, entry),
    witPath: wit,
    worldName: "plugin-extended",
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
