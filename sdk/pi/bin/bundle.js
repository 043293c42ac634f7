#!/usr/bin/env node
// Bundles one Pi extension for tack's Pi runtime, unchanged.
//
//   node sdk/pi/bin/bundle.js <extension> <out.json> [<root>]
//
// <extension> is a `.ts`/`.js` file, or a folder: its package.json's `pi.extensions` names the
// entry (Pi's packages), else `index.ts` / `index.js`. The extension's own npm dependencies are
// bundled in as they are. What the runtime provides (Pi's packages, typebox and the Node modules
// tack maps onto its WIT capabilities) stays a `require` the runtime answers; a Node module tack
// cannot give a sandboxed plugin, or a native addon, refuses the extension with the reason.
//
// With <root> (an installed package's folder), every file the bundle reads must be inside it or
// in this SDK's node_modules: a package someone else wrote cannot have the bundle take in a file
// of the user's (`import "/home/you/.docker/config.json"`), which would then reach the sandboxed
// plugin past its `fs` grants. Without it (the user's own `-e` file) the user chose the code.
//
// The JSON written: `{ ok, source, provided, capabilities, inputs }` where `inputs` are the files
// read with their SHA-256 (tack reuses the bundle while they are unchanged), or
// `{ ok: false, refused: [reasons] }`.

import { build } from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

import { ESBUILD_RESOLUTION, PROVIDED, REFUSED, capabilitiesOf } from "../src/modules.js";

const here = dirname(fileURLToPath(import.meta.url));
const [extensionArg, outArg, rootArg] = process.argv.slice(2);
if (!extensionArg || !outArg) {
  console.error("usage: bundle.js <extension> <out.json>");
  process.exit(2);
}

/** The capability line for the event bus channels `code` names literally, if any. */
function busLines(code) {
  const channels = new Set();
  for (const m of code.matchAll(/\.events\.(?:emit|on)\s*\(\s*(["'`])([^"'`$\\]+)\1/g)) {
    channels.add(m[2]);
  }
  if (channels.size === 0) return [];
  const named = [...channels].sort();
  return [
    `bus: event bus channels it shares with other extensions (\`bus = [${named
      .map((c) => JSON.stringify(c))
      .join(", ")}]\`)`,
  ];
}

/** The entry file of an extension given as a file or a package folder. */
function entryOf(path) {
  if (!statSync(path).isDirectory()) return path;
  const manifest = join(path, "package.json");
  if (existsSync(manifest)) {
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    const listed = pkg.pi?.extensions;
    if (Array.isArray(listed) && listed.length > 0) {
      if (listed.length > 1) {
        throw new Error(
          `${manifest} lists ${listed.length} extensions; pass each one with its own -e`,
        );
      }
      return resolve(path, listed[0]);
    }
  }
  for (const name of ["index.ts", "index.js"]) {
    if (existsSync(join(path, name))) return join(path, name);
  }
  throw new Error(`${path} has no index.ts, index.js or package.json \`pi.extensions\``);
}

const bare = (name) => name.replace(/^node:/, "");

const refused = new Set();
const provided = new Set();

// Resolution of every import: a provided module stays external, a refused one is recorded, and
// a native addon is refused; anything else is bundled as it is.
const runtimeModules = {
  name: "tack-pi-runtime-modules",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      const name = args.path;
      if (PROVIDED.has(name) || PROVIDED.has(bare(name))) {
        const key = PROVIDED.has(name) ? name : bare(name);
        provided.add(key);
        return { path: key, external: true };
      }
      const reason = REFUSED[bare(name)];
      if (reason) {
        refused.add(`imports \`${name}\`: ${reason}`);
        return { path: name, external: true };
      }
      if (name.endsWith(".node")) {
        refused.add(
          `loads the native addon \`${name}\`: native code cannot run in a sandboxed plugin`,
        );
        return { path: name, external: true };
      }
      return undefined;
    });
  },
};

const result = { ok: false };
try {
  const entry = resolve(entryOf(resolve(extensionArg)));
  const built = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "cjs",
    ...ESBUILD_RESOLUTION,
    resolveExtensions: [".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", ".json"],
    // Pi loads extensions with jiti, which lets an ES module name `__dirname`.
    define: { "import.meta.url": "__tack_import_meta_url" },
    logLevel: "silent",
    plugins: [runtimeModules],
    nodePaths: [join(here, "..", "node_modules")],
  });
  if (rootArg) {
    const allowed = [realpathSync(rootArg), realpathSync(join(here, "..", "node_modules"))];
    const inside = (path) => allowed.some((dir) => path === dir || path.startsWith(dir + sep));
    for (const input of Object.keys(built.metafile.inputs)) {
      let real;
      try {
        real = realpathSync(resolve(input));
      } catch {
        real = resolve(input);
      }
      if (!inside(real)) {
        refused.add(`reads \`${input}\`, outside its package: a package's code is its own files`);
      }
    }
  }
  if (refused.size > 0) {
    result.refused = [...refused].sort();
  } else {
    const inputs = Object.keys(built.metafile.inputs).map((input) => {
      const path = resolve(input);
      return { path, sha256: createHash("sha256").update(readFileSync(path)).digest("hex") };
    });
    Object.assign(result, {
      ok: true,
      entry,
      source: built.outputFiles[0].text,
      provided: [...provided].sort(),
      capabilities: [
        ...capabilitiesOf(provided),
        ...(/\bfetch\s*\(/.test(built.outputFiles[0].text)
          ? ["http: the URLs it fetches (an `http` grant for each)"]
          : []),
        // TypeScript's type arguments are gone from the bundle: `ctx.ui.custom(`. Reading the
        // user's unsent draft (`getEditorText`, or completing it as it is typed with
        // `addAutocompleteProvider`) is under the same grant as taking their keys.
        ...(/\.ui\.custom\s*\(/.test(built.outputFiles[0].text)
          ? ["components: screens it draws that take your keyboard (`components = true`)"]
          : /\.ui\.setEditorComponent\s*\(/.test(built.outputFiles[0].text)
            ? ["components: its own editor in place of tack's, which sees what you type and sends it for you (`components = true`)"]
          : /\.ui\.(getEditorText|addAutocompleteProvider)\s*\(/.test(built.outputFiles[0].text)
            ? ["components: reading what you type in the editor before you send it (`components = true`)"]
            : []),
        // Pi's event bus reaches other extensions only on channels granted by name; a channel
        // named by a variable is not listed (the user grants what the docs of the extension say).
        ...busLines(built.outputFiles[0].text),
        // Pi's tool factories work through the extension's own grants (src/tools.js); one
        // named after a built-in tool replaces tack's only with `replace_tools`.
        ...(/\.create(Read|Edit|Write|Ls|Find|Grep)Tool(Definition)?\)?\s*\(/.test(built.outputFiles[0].text)
          ? ["fs: the folders Pi's file tools (createReadTool, …) read or write (an `fs` grant for each)"]
          : []),
        ...(/\.create(Bash)Tool(Definition)?\)?\s*\(/.test(built.outputFiles[0].text)
          ? ["exec: the commands Pi's bash tool (createBashTool) runs (an `exec` grant)"]
          : []),
        // pi-ai's `complete`, kept external, is called as `(0, import_pi_ai.complete)(`.
        ...(/\.(complete|completeSimple)\)?\s*\(/.test(built.outputFiles[0].text)
          ? ["agents: model calls of its own, on your keys (`agents = true`)"]
          : []),
      ],
      inputs,
    });
  }
} catch (e) {
  const errors = e?.errors?.map((m) => {
    const where = m.location ? `${m.location.file}:${m.location.line}: ` : "";
    const missing = /^Could not resolve "([^"]+)"/.exec(m.text);
    const hint = missing
      ? ` (a dependency of the extension that is not installed: run \`npm install\` in its folder)`
      : "";
    return `${where}${m.text}${hint}`;
  });
  result.refused = errors?.length ? errors : [String(e?.message ?? e)];
}
writeFileSync(outArg, JSON.stringify(result));
process.exitCode = result.ok ? 0 : 1;
