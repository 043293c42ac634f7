// Pi's built-in tool factories (`createReadTool`, `createBashTool`, … of pi-coding-agent),
// written for tack from their documented contract: the same names, parameters, limits and
// messages, with Pi's pluggable `operations`. Extensions wrap them to re-render or adjust Pi's
// tools. In tack they work through the extension's own grants: the files its `fs` grants
// reach, the commands its `exec` grant allows (in the command sandbox). Overriding tack's
// built-in tool of the same name takes the `replace_tools` grant, as for any plugin.

import { Type } from "typebox";

import { Buffer } from "./buffer.js";
import { NODE_MODULES, process, runCommand, shellQuote } from "./node.js";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  GREP_MAX_LINE_LENGTH,
  formatSize,
  truncateHead,
  truncateLine,
  truncateTail,
} from "./truncate.js";

const fs = NODE_MODULES.fs;
const path = NODE_MODULES.path;

/** A path as Pi's tools take it: `@`-prefixed and `~` forms too, relative to `cwd`. */
function resolveToCwd(file, cwd) {
  let text = String(file ?? "").replace(/^@/, "");
  if (text === "~" || text.startsWith("~/")) {
    text = path.join(NODE_MODULES.os.homedir(), text.slice(1));
  }
  return path.isAbsolute(text) ? text : path.resolve(cwd, text);
}

function aborted(signal) {
  if (signal?.aborted) throw new Error("Operation aborted");
}

const text = (value, details) => ({ content: [{ type: "text", text: value }], details });

const IMAGE_TYPES = [
  [[0x89, 0x50, 0x4e, 0x47], "image/png"],
  [[0xff, 0xd8, 0xff], "image/jpeg"],
  [[0x47, 0x49, 0x46, 0x38], "image/gif"],
];

/** The image MIME type of `bytes` by their magic number, or undefined. */
function imageTypeOf(bytes) {
  for (const [magic, type] of IMAGE_TYPES) {
    if (magic.every((b, i) => bytes[i] === b)) return type;
  }
  const riff = String.fromCharCode(...bytes.slice(0, 4));
  const webp = String.fromCharCode(...bytes.slice(8, 12));
  return riff === "RIFF" && webp === "WEBP" ? "image/webp" : undefined;
}

/** A tool as Pi's factories return it: an AgentTool, which is also a tool definition. */
function tool(name, label, description, parameters, execute) {
  return { name, label, description, parameters, execute };
}

// ---- read -----------------------------------------------------------------------------------

// No `detectImageMimeType`: a local file's type is read off the bytes the tool reads anyway.
const localRead = {
  readFile: async (file) => fs.readFileSync(file),
  access: async (file) => fs.accessSync(file),
};

export function createReadTool(cwd, options = {}) {
  // As Pi's: custom operations replace the local ones whole.
  const ops = options.operations ?? localRead;
  return tool(
    "read",
    "read",
    `Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. For text files, output is truncated to ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.`,
    Type.Object({
      path: Type.String({ description: "Path to the file to read (relative or absolute)" }),
      offset: Type.Optional(
        Type.Number({ description: "Line number to start reading from (1-indexed)" }),
      ),
      limit: Type.Optional(Type.Number({ description: "Maximum number of lines to read" })),
    }),
    async (_id, { path: file, offset, limit }, signal) => {
      aborted(signal);
      const absolute = resolveToCwd(file, cwd);
      await ops.access(absolute);
      const bytes = await ops.readFile(absolute);
      const mimeType =
        ops === localRead
          ? imageTypeOf(bytes.subarray(0, 12))
          : await ops.detectImageMimeType?.(absolute);
      aborted(signal);
      if (mimeType) {
        return {
          content: [
            { type: "text", text: `Read image file [${mimeType}]` },
            { type: "image", data: Buffer.from(bytes).toString("base64"), mimeType },
          ],
          details: undefined,
        };
      }
      const lines = Buffer.from(bytes).toString("utf-8").split("\n");
      const start = offset ? Math.max(0, offset - 1) : 0;
      if (start >= lines.length) {
        throw new Error(`Offset ${offset} is beyond end of file (${lines.length} lines total)`);
      }
      const chosen = limit !== undefined ? lines.slice(start, start + limit) : lines.slice(start);
      const truncation = truncateHead(chosen.join("\n"));
      if (truncation.firstLineExceedsLimit) {
        const size = formatSize(Buffer.byteLength(lines[start], "utf-8"));
        return text(
          `[Line ${start + 1} is ${size}, exceeds ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: sed -n '${start + 1}p' ${file} | head -c ${DEFAULT_MAX_BYTES}]`,
          { truncation },
        );
      }
      const end = start + truncation.outputLines;
      if (truncation.truncated) {
        const limitNote =
          truncation.truncatedBy === "lines" ? "" : ` (${formatSize(DEFAULT_MAX_BYTES)} limit)`;
        return text(
          `${truncation.content}\n\n[Showing lines ${start + 1}-${end} of ${lines.length}${limitNote}. Use offset=${end + 1} to continue.]`,
          { truncation },
        );
      }
      if (limit !== undefined && start + chosen.length < lines.length) {
        const remaining = lines.length - (start + chosen.length);
        return text(
          `${truncation.content}\n\n[${remaining} more lines in file. Use offset=${start + chosen.length + 1} to continue.]`,
          undefined,
        );
      }
      return text(truncation.content, undefined);
    },
  );
}

// ---- bash -----------------------------------------------------------------------------------

/**
 * Runs a script with bash through the extension's `exec` grant. `env` is what the command
 * should see beyond the environment tack gives commands; it goes in as `export` lines, since
 * a plugin's command gets only the variables its grants name.
 */
function localBash() {
  return {
    exec: async (command, cwd, { onData, timeout, env }) => {
      const exports = Object.entries(env ?? {})
        .filter(([name, value]) => value !== undefined && process.env[name] !== value)
        .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
        .join("");
      const result = runCommand(`bash -c ${shellQuote(exports + command)}`, {
        cwd,
        timeout: timeout ? timeout * 1000 : undefined,
      });
      const output = result.stdout + result.stderr;
      if (output) onData(Buffer.from(output));
      if (result.killed && timeout) throw new Error(`timeout:${timeout}`);
      return { exitCode: result.code };
    },
  };
}

export function createLocalBashOperations() {
  return localBash();
}

export function createBashTool(cwd, options = {}) {
  const ops = options.operations ?? localBash();
  return tool(
    "bash",
    "bash",
    `Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). Optionally provide a timeout in seconds.`,
    Type.Object({
      command: Type.String({ description: "Bash command to execute" }),
      timeout: Type.Optional(
        Type.Number({ description: "Timeout in seconds (optional, no default timeout)" }),
      ),
    }),
    async (_id, { command, timeout }, signal, onUpdate) => {
      aborted(signal);
      const prefixed = options.commandPrefix ? `${options.commandPrefix}\n${command}` : command;
      let spawn = { command: prefixed, cwd, env: { ...process.env } };
      if (options.spawnHook) spawn = options.spawnHook(spawn);
      const chunks = [];
      let exitCode;
      try {
        ({ exitCode } = await ops.exec(spawn.command, spawn.cwd, {
          onData: (data) => {
            chunks.push(Buffer.from(data).toString("utf-8"));
            onUpdate?.(text(chunks.join(""), undefined));
          },
          signal,
          timeout,
          env: spawn.env,
        }));
      } catch (e) {
        if (String(e?.message).startsWith("timeout:")) {
          throw new Error(
            `${chunks.join("") || "(no output)"}\n\nCommand timed out after ${timeout} seconds`,
          );
        }
        throw e;
      }
      const truncation = truncateTail(chunks.join(""));
      let output = truncation.content || "(no output)";
      if (truncation.truncated) {
        const first = truncation.totalLines - truncation.outputLines + 1;
        output += `\n\n[Showing lines ${first}-${truncation.totalLines} of ${truncation.totalLines}]`;
      }
      if (exitCode !== 0 && exitCode !== null) {
        throw new Error(`${output}\n\nCommand exited with code ${exitCode}`);
      }
      if (exitCode === null) throw new Error(`${output}\n\nCommand aborted`);
      return text(output, truncation.truncated ? { truncation } : undefined);
    },
  );
}

// ---- edit and write -------------------------------------------------------------------------

const localEdit = {
  readFile: async (file) => fs.readFileSync(file),
  writeFile: async (file, content) => fs.writeFileSync(file, content),
  access: async (file) => fs.accessSync(file),
};

function occurrences(haystack, needle) {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    count += 1;
  }
  return count;
}

/** A unified diff of the changed lines, with the first changed line (1-based) of the new text. */
function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail += 1;
  }
  const removed = a.slice(head, a.length - tail).map((line) => `-${line}`);
  const added = b.slice(head, b.length - tail).map((line) => `+${line}`);
  const hunk = `@@ -${head + 1},${removed.length} +${head + 1},${added.length} @@`;
  return { diff: [hunk, ...removed, ...added].join("\n"), firstChangedLine: head + 1 };
}

export function createEditTool(cwd, options = {}) {
  const ops = { ...localEdit, ...options.operations };
  return tool(
    "edit",
    "edit",
    "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
    Type.Object({
      path: Type.String({ description: "Path to the file to edit (relative or absolute)" }),
      edits: Type.Array(
        Type.Object({
          oldText: Type.String({
            description:
              "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call.",
          }),
          newText: Type.String({ description: "Replacement text for this targeted edit." }),
        }),
        {
          description:
            "One or more targeted replacements. Each edit is matched against the original file, not incrementally.",
        },
      ),
    }),
    async (_id, { path: file, edits }, signal) => {
      aborted(signal);
      if (!Array.isArray(edits) || edits.length === 0) {
        throw new Error(
          "Edit tool input is invalid. edits must contain at least one replacement.",
        );
      }
      const absolute = resolveToCwd(file, cwd);
      try {
        await ops.access(absolute);
      } catch {
        throw new Error(`Could not edit file: ${file}. File not found.`);
      }
      const original = Buffer.from(await ops.readFile(absolute)).toString("utf-8");
      const one = edits.length === 1;
      const what = (i) => (one ? "the text" : `edits[${i}]`);
      const spans = edits.map(({ oldText, newText }, i) => {
        if (!oldText) {
          throw new Error(one ? `oldText must not be empty in ${file}.` : `edits[${i}].oldText must not be empty in ${file}.`);
        }
        const count = occurrences(original, oldText);
        if (count === 0) {
          throw new Error(
            `Could not find ${one ? "the exact text" : `edits[${i}]`} in ${file}. The ${one ? "old text" : "oldText"} must match exactly including all whitespace and newlines.`,
          );
        }
        if (count > 1) {
          throw new Error(
            `Found ${count} occurrences of ${what(i)} in ${file}. ${one ? "The text" : "Each oldText"} must be unique. Please provide more context to make it unique.`,
          );
        }
        const start = original.indexOf(oldText);
        return { i, start, end: start + oldText.length, newText };
      });
      spans.sort((x, y) => x.start - y.start);
      for (let k = 1; k < spans.length; k += 1) {
        if (spans[k].start < spans[k - 1].end) {
          throw new Error(
            `edits[${spans[k - 1].i}] and edits[${spans[k].i}] overlap in ${file}. Merge them into one edit or target disjoint regions.`,
          );
        }
      }
      let updated = "";
      let at = 0;
      for (const span of spans) {
        updated += original.slice(at, span.start) + span.newText;
        at = span.end;
      }
      updated += original.slice(at);
      if (updated === original) {
        throw new Error(`No changes made to ${file}. The replacements produced identical content.`);
      }
      aborted(signal);
      await ops.writeFile(absolute, updated);
      return text(`Successfully replaced ${edits.length} block(s) in ${file}.`, lineDiff(original, updated));
    },
  );
}

const localWrite = {
  writeFile: async (file, content) => fs.writeFileSync(file, content),
  mkdir: async (dir) => fs.mkdirSync(dir, { recursive: true }),
};

export function createWriteTool(cwd, options = {}) {
  const ops = { ...localWrite, ...options.operations };
  return tool(
    "write",
    "write",
    "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
    Type.Object({
      path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
      content: Type.String({ description: "Content to write to the file" }),
    }),
    async (_id, { path: file, content }, signal) => {
      aborted(signal);
      const absolute = resolveToCwd(file, cwd);
      await ops.mkdir(path.dirname(absolute));
      await ops.writeFile(absolute, content);
      return text(`Successfully wrote ${content.length} bytes to ${file}`, undefined);
    },
  );
}

// ---- ls, find, grep -------------------------------------------------------------------------

/**
 * `lines` within the byte limit, ending with the notes Pi's listing tools end with: `notices`
 * (a limit reached), the byte limit's, then `trailing`.
 */
function noted(lines, notices, details, trailing = []) {
  const truncation = truncateHead(lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
  const all = [...notices];
  if (truncation.truncated) {
    all.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
    details.truncation = truncation;
  }
  all.push(...trailing);
  const body = all.length ? `${truncation.content}\n\n[${all.join(". ")}]` : truncation.content;
  return text(body, Object.keys(details).length ? details : undefined);
}

/** At most `limit` of `lines` (the `noun` of ls or find), noted as Pi notes them. */
function listed(lines, limit, noun, limitKey) {
  if (lines.length <= limit) return noted(lines, [], {});
  return noted(
    lines.slice(0, limit),
    [`${limit} ${noun} limit reached. Use limit=${limit * 2} for more`],
    { [limitKey]: limit },
  );
}

const localLs = {
  exists: (file) => fs.existsSync(file),
  stat: (file) => fs.statSync(file),
  readdir: (dir) => fs.readdirSync(dir),
};

export function createLsTool(cwd, options = {}) {
  const ops = { ...localLs, ...options.operations };
  return tool(
    "ls",
    "ls",
    `List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first).`,
    Type.Object({
      path: Type.Optional(
        Type.String({ description: "Directory to list (default: current directory)" }),
      ),
      limit: Type.Optional(
        Type.Number({ description: "Maximum number of entries to return (default: 500)" }),
      ),
    }),
    async (_id, { path: dir, limit }, signal) => {
      aborted(signal);
      const absolute = resolveToCwd(dir || ".", cwd);
      if (!(await ops.exists(absolute))) throw new Error(`Path not found: ${absolute}`);
      if (!(await ops.stat(absolute)).isDirectory()) throw new Error(`Not a directory: ${absolute}`);
      const names = [...(await ops.readdir(absolute))].sort((a, b) =>
        a.toLowerCase().localeCompare(b.toLowerCase()),
      );
      const entries = [];
      for (const name of names) {
        try {
          const isDir = (await ops.stat(path.join(absolute, name))).isDirectory();
          entries.push(isDir ? `${name}/` : name);
        } catch {
          // Gone between the listing and the look, or unreadable: Pi leaves it out too.
        }
      }
      if (entries.length === 0) return text("(empty directory)", undefined);
      return listed(entries, limit ?? 500, "entries", "entryLimitReached");
    },
  );
}

/** A glob (`*.ts`, `**\/*.json`, `src/{a,b}/*.rs`) as a regular expression over `/` paths. */
export function globToRegExp(glob) {
  let out = "";
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "{") out += "(?:";
    else if (c === "}") out += ")";
    else if (c === "," && out.lastIndexOf("(?:") > out.lastIndexOf(")")) out += "|";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close === -1) out += "\\[";
      else {
        out += `[${glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else out += c.replace(/[.+^$()|\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/**
 * Files below `root` (relative paths, sorted), skipping `.git` and `node_modules`. A symbolic
 * link is listed, never followed (as fd and ripgrep do), so a link to a parent cannot loop.
 */
function walk(root, keep, limit) {
  const found = [];
  const visit = (dir, relative) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length > limit) return;
      const name = entry.name;
      if (name === ".git" || name === "node_modules") continue;
      const rel = relative ? `${relative}/${name}` : name;
      if (entry.isDirectory()) visit(path.join(dir, name), rel);
      else if (keep(rel, name)) found.push(rel);
    }
  };
  visit(root, "");
  return found;
}

/** A matcher for `glob`: against the whole relative path when it has a `/`, else the name. */
function globMatcher(glob) {
  const re = globToRegExp(glob);
  return glob.includes("/") ? (rel) => re.test(rel) : (_rel, name) => re.test(name);
}

const localFind = {
  exists: (file) => fs.existsSync(file),
  glob: (pattern, root, { limit }) => walk(root, globMatcher(pattern), limit),
};

export function createFindTool(cwd, options = {}) {
  const ops = { ...localFind, ...options.operations };
  return tool(
    "find",
    "find",
    `Search for files by glob pattern. Returns matching file paths relative to the search directory. Output is truncated to 1000 results or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first).`,
    Type.Object({
      pattern: Type.String({
        description: "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'",
      }),
      path: Type.Optional(
        Type.String({ description: "Directory to search in (default: current directory)" }),
      ),
      limit: Type.Optional(
        Type.Number({ description: "Maximum number of results (default: 1000)" }),
      ),
    }),
    async (_id, { pattern, path: dir, limit }, signal) => {
      aborted(signal);
      const root = resolveToCwd(dir || ".", cwd);
      if (!(await ops.exists(root))) throw new Error(`Path not found: ${root}`);
      const effective = limit ?? 1000;
      const found = await ops.glob(pattern, root, { ignore: ["**/node_modules/**", "**/.git/**"], limit: effective });
      if (found.length === 0) return text("No files found matching pattern", undefined);
      const relative = found.map((file) =>
        path.isAbsolute(file) ? path.relative(root, file) : file,
      );
      return listed(relative, effective, "results", "resultLimitReached");
    },
  );
}

const localGrep = {
  isDirectory: (file) => fs.statSync(file).isDirectory(),
  readFile: (file) => fs.readFileSync(file, "utf-8"),
};

export function createGrepTool(cwd, options = {}) {
  const ops = { ...localGrep, ...options.operations };
  return tool(
    "grep",
    "grep",
    `Search file contents for a pattern. Returns matching lines with file paths and line numbers. Output is truncated to 100 matches or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). Long lines are truncated to ${GREP_MAX_LINE_LENGTH} chars.`,
    Type.Object({
      pattern: Type.String({ description: "Search pattern (regex or literal string)" }),
      path: Type.Optional(
        Type.String({ description: "Directory or file to search (default: current directory)" }),
      ),
      glob: Type.Optional(
        Type.String({ description: "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'" }),
      ),
      ignoreCase: Type.Optional(
        Type.Boolean({ description: "Case-insensitive search (default: false)" }),
      ),
      literal: Type.Optional(
        Type.Boolean({
          description: "Treat pattern as literal string instead of regex (default: false)",
        }),
      ),
      context: Type.Optional(
        Type.Number({
          description: "Number of lines to show before and after each match (default: 0)",
        }),
      ),
      limit: Type.Optional(
        Type.Number({ description: "Maximum number of matches to return (default: 100)" }),
      ),
    }),
    async (_id, params, signal) => {
      aborted(signal);
      const { pattern, glob, ignoreCase, literal, context = 0 } = params;
      const limit = Math.max(1, params.limit ?? 100);
      const target = resolveToCwd(params.path || ".", cwd);
      let isDir;
      try {
        isDir = await ops.isDirectory(target);
      } catch {
        throw new Error(`Path not found: ${target}`);
      }
      const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern;
      let re;
      try {
        re = new RegExp(source, ignoreCase ? "i" : "");
      } catch (e) {
        throw new Error(`Invalid pattern: ${e.message}`);
      }
      const keep = glob ? globMatcher(glob) : () => true;
      const files = isDir
        ? walk(target, keep, Number.MAX_SAFE_INTEGER).map((rel) => [path.join(target, rel), rel])
        : [[target, path.basename(target)]];
      const out = [];
      let matches = 0;
      let linesTruncated = false;
      const line = (rel, n, sep, value) => {
        const cut = truncateLine(value.replace(/\r$/, ""));
        linesTruncated ||= cut.wasTruncated;
        out.push(`${rel}${sep}${n}${sep} ${cut.text}`);
      };
      for (const [file, rel] of files) {
        if (matches >= limit) break;
        let lines;
        try {
          lines = String(await ops.readFile(file)).split("\n");
        } catch {
          continue;
        }
        if (lines.slice(0, 50).some((l) => l.includes("\u0000"))) continue;
        let shownTo = -1;
        for (let i = 0; i < lines.length && matches < limit; i += 1) {
          if (!re.test(lines[i])) continue;
          matches += 1;
          for (let j = Math.max(shownTo + 1, i - context); j < i; j += 1) {
            line(rel, j + 1, "-", lines[j]);
          }
          line(rel, i + 1, ":", lines[i]);
          shownTo = i;
          for (let j = i + 1; j <= Math.min(lines.length - 1, i + context); j += 1) {
            if (re.test(lines[j])) break;
            line(rel, j + 1, "-", lines[j]);
            shownTo = j;
          }
        }
      }
      if (matches === 0) return text("No matches found", undefined);
      const notices = [];
      const details = {};
      if (matches >= limit) {
        notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`);
        details.matchLimitReached = limit;
      }
      const trailing = [];
      if (linesTruncated) {
        trailing.push(`Some lines truncated to ${GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines`);
        details.linesTruncated = true;
      }
      return noted(out, notices, details, trailing);
    },
  );
}

/** The factories as pi-coding-agent exports them, with their `…ToolDefinition` twins. */
export const TOOL_FACTORIES = {
  createReadTool,
  createBashTool,
  createEditTool,
  createWriteTool,
  createLsTool,
  createFindTool,
  createGrepTool,
  createLocalBashOperations,
  createReadToolDefinition: createReadTool,
  createBashToolDefinition: createBashTool,
  createEditToolDefinition: createEditTool,
  createWriteToolDefinition: createWriteTool,
  createLsToolDefinition: createLsTool,
  createFindToolDefinition: createFindTool,
  createGrepToolDefinition: createGrepTool,
};
