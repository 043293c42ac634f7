#!/usr/bin/env node
// Regenerates types/ (TypeScript declarations of the `tack:plugin` plugin-extended world, guest side) from the
// WIT with jco's type generator: `npm run types`.
//
// The WIT is passed as one inline source (the files joined under one package line)
// because jco 1.35's generator cannot read WIT paths from disk ("failed to read path").

// The vendored generator is not in the package's exports map, so it is imported by path.
import { $init, generateTypes } from "../node_modules/@bytecodealliance/jco-transpile/vendor/js-component-bindgen-component.js";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const wit = resolve(sdk, "..", "..", "wit", "plugin", "v0.1.0");
const files = readdirSync(wit).filter((f) => f.endsWith(".wit")).sort();
let pkg = "";
const bodies = [];
for (const file of files) {
  const text = readFileSync(join(wit, file), "utf8");
  const lines = text.split("\n").filter((line) => {
    if (line.startsWith("package ")) {
      pkg = line;
      return false;
    }
    return true;
  });
  bodies.push(lines.join("\n"));
}
await $init;
const generated = generateTypes("tack-plugin", {
  wit: { tag: "source", val: [pkg, ...bodies].join("\n") },
  world: "plugin-extended",
  guest: true,
  tlaCompat: false,
});
const out = join(sdk, "types");
rmSync(out, { recursive: true, force: true });
for (const [name, contents] of generated) {
  mkdirSync(dirname(join(out, name)), { recursive: true });
  writeFileSync(join(out, name), contents);
}
console.log(`wrote ${generated.length} files to ${out}`);
