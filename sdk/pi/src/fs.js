// `node:fs` on WASI's filesystem: the folders the host preopened, which are exactly those the
// user granted the extension (`fs` grants), at their own paths. A path outside them fails the
// way Node fails on a folder it may not read (EACCES), naming the grant it needs.

import { getDirectories } from "wasi:filesystem/preopens@0.2.12";

import { notInTack } from "./api.js";
import { Buffer } from "./buffer.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// WASI's error codes as Node's.
const CODES = {
  access: "EACCES",
  "not-permitted": "EPERM",
  "no-entry": "ENOENT",
  exist: "EEXIST",
  "not-directory": "ENOTDIR",
  "is-directory": "EISDIR",
  "not-empty": "ENOTEMPTY",
  "read-only": "EROFS",
  invalid: "EINVAL",
};

function fsError(code, syscall, path, message) {
  const error = new Error(`${code}: ${message}, ${syscall} '${path}'`);
  return Object.assign(error, { code, syscall, path });
}

function wasiError(e, syscall, path) {
  const wasi = e?.payload ?? e;
  const code = CODES[wasi] ?? "EIO";
  return fsError(code, syscall, path, typeof wasi === "string" ? wasi : String(e?.message ?? e));
}

let preopens;

function normalize(path) {
  const out = [];
  for (const part of path.split("/")) {
    if (!part || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

let cwd = () => "/";

/** Sets how relative paths resolve (the workspace, once `init` knows it). */
export function setCwd(fn) {
  cwd = fn;
}

/** The preopened folder holding `path`, and the path relative to it. */
function locate(path, syscall) {
  const text = path instanceof URL ? decodeURIComponent(path.pathname) : String(path);
  const absolute = normalize(text.startsWith("/") ? text : `${cwd()}/${text}`);
  preopens ??= getDirectories().map(([descriptor, dir]) => [descriptor, normalize(dir)]);
  let best;
  for (const [descriptor, dir] of preopens) {
    const inside = absolute === dir || absolute.startsWith(dir === "/" ? "/" : `${dir}/`);
    if (inside && (!best || dir.length > best[1].length)) best = [descriptor, dir];
  }
  if (!best) {
    throw fsError(
      "EACCES",
      syscall,
      text,
      "outside this extension's `fs` grants (grant the folder in grants.toml)",
    );
  }
  const relative = absolute.slice(best[1].length).replace(/^\/+/, "") || ".";
  return { dir: best[0], relative, path: text };
}

const follow = { symlinkFollow: true };

/** Runs `act` on the preopen holding `path` and the path inside it, WASI's errors as Node's. */
function at(path, syscall, act) {
  const { dir, relative } = locate(path, syscall);
  try {
    return act(dir, relative);
  } catch (e) {
    throw wasiError(e, syscall, path);
  }
}

function open(path, syscall, openFlags, flags) {
  return at(path, syscall, (dir, relative) => dir.openAt(follow, relative, openFlags, flags));
}

function dispose(resource) {
  resource?.[Symbol.dispose]?.();
}

function readAll(descriptor) {
  const chunks = [];
  let offset = 0n;
  for (;;) {
    const [bytes, end] = descriptor.read(65536n, offset);
    if (bytes.length) chunks.push(bytes);
    offset += BigInt(bytes.length);
    if (end || bytes.length === 0) break;
  }
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function writeAll(descriptor, bytes, offset) {
  let done = 0;
  while (done < bytes.length) {
    done += Number(descriptor.write(bytes.subarray(done), offset + BigInt(done)));
  }
}

const encodingOf = (options) => (typeof options === "string" ? options : options?.encoding);
const bytesOf = (data) => (data instanceof Uint8Array ? data : encoder.encode(String(data)));

function statsOf(stat) {
  const ms = (t) => (t ? Number(t.seconds) * 1000 + Math.floor(t.nanoseconds / 1e6) : 0);
  const mtimeMs = ms(stat.dataModificationTimestamp);
  return {
    size: Number(stat.size),
    mtimeMs,
    mtime: new Date(mtimeMs),
    atimeMs: ms(stat.dataAccessTimestamp),
    ctimeMs: ms(stat.statusChangeTimestamp),
    isFile: () => stat.type === "regular-file",
    isDirectory: () => stat.type === "directory",
    isSymbolicLink: () => stat.type === "symbolic-link",
  };
}

function statSync(path, options) {
  const { dir, relative } = locate(path, "stat");
  try {
    return statsOf(dir.statAt(follow, relative));
  } catch (e) {
    if (options?.throwIfNoEntry === false) return undefined;
    throw wasiError(e, "stat", path);
  }
}

function readFileSync(path, options) {
  const descriptor = open(path, "open", {}, { read: true });
  try {
    const bytes = readAll(descriptor);
    const encoding = encodingOf(options);
    return encoding ? decoder.decode(bytes) : Buffer.from(bytes);
  } catch (e) {
    throw wasiError(e, "read", path);
  } finally {
    dispose(descriptor);
  }
}

function writeFileSync(path, data, options) {
  const append = options?.flag === "a";
  const descriptor = open(path, "open", { create: true, truncate: !append }, { write: true });
  try {
    const offset = append ? descriptor.stat().size : 0n;
    writeAll(descriptor, bytesOf(data), offset);
  } catch (e) {
    throw wasiError(e, "write", path);
  } finally {
    dispose(descriptor);
  }
}

function readdirSync(path, options) {
  const descriptor = open(path, "scandir", { directory: true }, { read: true });
  const names = [];
  let stream;
  try {
    stream = descriptor.readDirectory();
    for (let entry = stream.readDirectoryEntry(); entry; entry = stream.readDirectoryEntry()) {
      names.push(
        options?.withFileTypes
          ? {
              name: entry.name,
              isFile: () => entry.type === "regular-file",
              isDirectory: () => entry.type === "directory",
              isSymbolicLink: () => entry.type === "symbolic-link",
            }
          : entry.name,
      );
    }
  } catch (e) {
    throw wasiError(e, "scandir", path);
  } finally {
    dispose(stream);
    dispose(descriptor);
  }
  return names.sort((a, b) => (a.name ?? a).localeCompare(b.name ?? b));
}

function mkdirSync(path, options) {
  const { dir, relative } = locate(path, "mkdir");
  const parts = relative.split("/").filter((p) => p && p !== ".");
  const steps = options?.recursive
    ? parts.map((_, i) => parts.slice(0, i + 1).join("/"))
    : [relative];
  for (const step of steps) {
    try {
      dir.createDirectoryAt(step);
    } catch (e) {
      if (!(options?.recursive && (e?.payload ?? e) === "exist")) throw wasiError(e, "mkdir", path);
    }
  }
}

function unlinkSync(path) {
  at(path, "unlink", (dir, relative) => dir.unlinkFileAt(relative));
}

function rmSync(path, options) {
  const stat = statSync(path, { throwIfNoEntry: !options?.force });
  if (!stat) return;
  if (!stat.isDirectory()) return unlinkSync(path);
  if (!options?.recursive) throw fsError("EISDIR", "rm", path, "is a directory");
  for (const name of readdirSync(path)) rmSync(`${path}/${name}`, options);
  at(path, "rmdir", (dir, relative) => dir.removeDirectoryAt(relative));
}

function renameSync(from, to) {
  const a = locate(from, "rename");
  const b = locate(to, "rename");
  try {
    a.dir.renameAt(a.relative, b.dir, b.relative);
  } catch (e) {
    throw wasiError(e, "rename", from);
  }
}

function existsSync(path) {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

const sync = {
  existsSync,
  statSync,
  lstatSync: statSync,
  readFileSync,
  writeFileSync,
  appendFileSync: (path, data) => writeFileSync(path, data, { flag: "a" }),
  readdirSync,
  mkdirSync,
  unlinkSync,
  rmSync,
  rmdirSync: (path, options) => rmSync(path, { ...options, recursive: options?.recursive }),
  renameSync,
  copyFileSync: (from, to) => writeFileSync(to, readFileSync(from)),
  realpathSync: (path) =>
    normalize(String(path).startsWith("/") ? String(path) : `${cwd()}/${path}`),
  accessSync: (path) => {
    statSync(path);
  },
  mkdtempSync: (prefix) => {
    const path = `${prefix}${Math.random().toString(36).slice(2, 8)}`;
    mkdirSync(path);
    return path;
  },
};

const promised =
  (fn) =>
  async (...args) =>
    fn(...args);

/** `fs/promises`. */
export const promises = Object.fromEntries(
  Object.entries({
    stat: sync.statSync,
    lstat: sync.statSync,
    readFile: sync.readFileSync,
    writeFile: sync.writeFileSync,
    appendFile: sync.appendFileSync,
    readdir: sync.readdirSync,
    mkdir: sync.mkdirSync,
    unlink: sync.unlinkSync,
    rm: sync.rmSync,
    rename: sync.renameSync,
    copyFile: sync.copyFileSync,
    realpath: sync.realpathSync,
    access: sync.accessSync,
    mkdtemp: sync.mkdtempSync,
  }).map(([name, fn]) => [name, promised(fn)]),
);

// Callback forms: `fs.readFile(path, options, callback)`.
const callbacks = Object.fromEntries(
  Object.entries({
    stat: sync.statSync,
    readFile: sync.readFileSync,
    writeFile: sync.writeFileSync,
    appendFile: sync.appendFileSync,
    readdir: sync.readdirSync,
    mkdir: sync.mkdirSync,
    unlink: sync.unlinkSync,
  }).map(([name, fn]) => [
    name,
    (...args) => {
      const callback = args.pop();
      queueMicrotask(() => {
        let value;
        try {
          value = fn(...args);
        } catch (e) {
          callback(e);
          return;
        }
        callback(null, value);
      });
    },
  ]),
);

const watching = () => {
  throw notInTack("fs.watch", "a plugin cannot watch files yet");
};

/** `node:fs`. */
export const fs = {
  ...callbacks,
  ...sync,
  promises,
  watch: watching,
  watchFile: watching,
  createReadStream: () => {
    throw notInTack("fs.createReadStream", "read the file with readFileSync");
  },
  createWriteStream: () => {
    throw notInTack("fs.createWriteStream", "write the file with writeFileSync or appendFileSync");
  },
  constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
};
