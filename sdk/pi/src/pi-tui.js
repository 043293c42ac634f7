// The part of `@mariozechner/pi-tui` an extension's lines use (text components and width
// helpers), written for tack. The real package cannot run in the runtime: its width and
// markdown code uses Unicode property escapes (`\p{…}`), which the JavaScript engine of
// componentize-js, built without ICU, does not parse. Components that take keys (editors,
// lists, overlays) need components a plugin draws, which tack does not have yet; using one
// throws, naming it.

import { notInTack } from "./api.js";

// CSI and OSC sequences: a plugin's lines are text, and the width of a sequence is zero.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Whether a code point takes two columns (CJK, Hangul, fullwidth forms, most emoji). */
function isWide(cp) {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Whether a code point takes no column (combining marks, joiners, variation selectors). */
function isZeroWidth(cp) {
  return (
    (cp >= 0x0300 && cp <= 0x036f) ||
    cp === 0x200b ||
    cp === 0x200c ||
    cp === 0x200d ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp < 0x20
  );
}

function charWidth(ch) {
  const cp = ch.codePointAt(0);
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Columns `text` takes in a terminal, escape sequences left out. */
export function visibleWidth(text) {
  let width = 0;
  for (const ch of String(text).replace(ANSI, "")) width += charWidth(ch);
  return width;
}

/** `text` cut to `width` columns, ending with `ellipsis` when cut. */
export function truncateToWidth(text, width, ellipsis = "…") {
  const plain = String(text);
  if (visibleWidth(plain) <= width) return plain;
  const room = Math.max(0, width - visibleWidth(ellipsis));
  let out = "";
  let used = 0;
  for (const ch of plain.replace(ANSI, "")) {
    const w = charWidth(ch);
    if (used + w > room) break;
    out += ch;
    used += w;
  }
  return out + ellipsis;
}

/** `text` wrapped at word boundaries to lines of at most `width` columns. */
export function wrapTextWithAnsi(text, width) {
  const lines = [];
  for (const paragraph of String(text).split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(\s+)/)) {
      if (visibleWidth(line + word) <= width) {
        line += word;
        continue;
      }
      if (line.trim()) lines.push(line.trimEnd());
      line = word.trimStart();
      while (visibleWidth(line) > width) {
        lines.push(truncateToWidth(line, width, ""));
        line = line.slice(truncateToWidth(line, width, "").length);
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/** Text wrapped to the width it is drawn at, with padding. */
export class Text {
  constructor(text = "", paddingX = 1, paddingY = 1, customBgFn) {
    this.text = text;
    this.paddingX = paddingX;
    this.paddingY = paddingY;
    this.customBgFn = customBgFn;
  }
  setText(text) {
    this.text = text;
  }
  setCustomBgFn(fn) {
    this.customBgFn = fn;
  }
  invalidate() {}
  render(width) {
    if (!this.text) return [];
    const pad = " ".repeat(this.paddingX);
    const inner = Math.max(1, width - 2 * this.paddingX);
    const blank = Array(this.paddingY).fill("");
    return [...blank, ...wrapTextWithAnsi(this.text, inner).map((l) => pad + l), ...blank];
  }
}

/** Text cut to one line per line of the text. */
export class TruncatedText extends Text {
  render(width) {
    return String(this.text)
      .split("\n")
      .map((line) => truncateToWidth(line, width));
  }
}

/** Children drawn one below the other. */
export class Container {
  constructor() {
    this.children = [];
  }
  addChild(child) {
    this.children.push(child);
  }
  removeChild(child) {
    this.children = this.children.filter((c) => c !== child);
  }
  clear() {
    this.children = [];
  }
  invalidate() {}
  render(width) {
    return this.children.flatMap((child) => child.render(width));
  }
}

/** A container with padding. */
export class Box extends Container {
  constructor(paddingX = 1, paddingY = 1) {
    super();
    this.paddingX = paddingX;
    this.paddingY = paddingY;
  }
  setBgFn() {}
  render(width) {
    const pad = " ".repeat(this.paddingX);
    const inner = super.render(Math.max(1, width - 2 * this.paddingX)).map((l) => pad + l);
    const blank = Array(this.paddingY).fill("");
    return [...blank, ...inner, ...blank];
  }
}

/** Empty lines. */
export class Spacer {
  constructor(lines = 1) {
    this.lines = lines;
  }
  setLines(lines) {
    this.lines = lines;
  }
  invalidate() {}
  render() {
    return Array(this.lines).fill("");
  }
}

/** Markdown shown as its text, wrapped. */
export class Markdown extends Text {
  constructor(text = "", paddingX = 1, paddingY = 1) {
    super(text, paddingX, paddingY);
  }
}

// Keys are pi-tui's own: a component gets the bytes a terminal sends for each key (see
// ./keys.js), and matches them with Pi's parser.
export {
  Key,
  matchesKey,
  isKeyRelease,
  isKeyRepeat,
  parseKey,
  decodeKittyPrintable,
  decodePrintableKey,
  isKittyProtocolActive,
  setKittyProtocolActive,
} from "@mariozechner/pi-tui/dist/keys.js";
export const CURSOR_MARKER = "\x1b_pi:c\x07";

function interactive(name) {
  return class {
    constructor() {
      throw notInTack(
        `pi-tui's ${name}`,
        "components a plugin draws and that take keys come in a later tack",
      );
    }
  };
}

export const Editor = interactive("Editor");
export const Input = interactive("Input");
export const SelectList = interactive("SelectList");
export const SettingsList = interactive("SettingsList");
export const Loader = interactive("Loader");
export const CancellableLoader = interactive("CancellableLoader");
export const TUI = interactive("TUI");
export const Image = interactive("Image");
