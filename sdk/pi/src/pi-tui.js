// The part of `@mariozechner/pi-tui` an extension's lines use (text components and width
// helpers), written for tack. The real package cannot run in the runtime: its width and
// markdown code uses Unicode property escapes (`\p{…}`), which the JavaScript engine of
// componentize-js, built without ICU, does not parse. So its text components and width
// helpers are written here; its keys and its components that take keys are its own, with
// their imports of its `utils.js` and `tui.js` resolved to stand-ins (./pi-tui-utils.js,
// ./pi-tui-tui.js).

import { notInTack } from "./api.js";

import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from "./width.js";

export { truncateToWidth, visibleWidth, wrapTextWithAnsi };

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
export { CURSOR_MARKER } from "./pi-tui-tui.js";

// pi-tui's own components that take keys, drawn in a component tack shows
// (`ctx.ui.custom`).
export { Editor } from "@mariozechner/pi-tui/dist/components/editor.js";
export { Input } from "@mariozechner/pi-tui/dist/components/input.js";
export { SelectList } from "@mariozechner/pi-tui/dist/components/select-list.js";
export { SettingsList } from "@mariozechner/pi-tui/dist/components/settings-list.js";
export { Loader } from "@mariozechner/pi-tui/dist/components/loader.js";
export { CancellableLoader } from "@mariozechner/pi-tui/dist/components/cancellable-loader.js";
export { fuzzyFilter, fuzzyMatch } from "@mariozechner/pi-tui/dist/fuzzy.js";
export { getKeybindings, setKeybindings } from "@mariozechner/pi-tui/dist/keybindings.js";
export { TUI } from "./pi-tui-tui.js";

/** pi-tui's image component: tack shows no images in a plugin's component. */
export class Image {
  constructor() {
    throw notInTack("pi-tui's Image", "tack shows no images in a plugin's component");
  }
}
