// Pi's `ctx.ui.custom`: a component the extension draws and that takes keys, on
// tack:plugin/screen's `show-component`. The extension's call (a command, a tool) drives it
// frame by frame: render for the width tack gives, show, hand the key to `handleInput` as a
// terminal's bytes, let due timers run, again; until the component calls `done`, or tack
// answers "closed" (Ctrl+C, or a front end without components: Pi's RPC mode returns
// `undefined` there too).

import * as screen from "tack:plugin/screen@0.2.0";
import { getKeybindings } from "@mariozechner/pi-tui/dist/keybindings.js";
import { Editor, Key, matchesKey } from "./pi-tui.js";
import { plainComponentTheme } from "./theme.js";

import { keyBytes } from "./keys.js";
import { nextTimerDelay, runDueTimers } from "./timers.js";

/** The longest a frame waits for a key when no timer is due sooner. */
const IDLE_WAIT_MS = 10_000;
// Pi's cursor marker and OSC 8 hyperlinks: tack draws no cursor in a component, and its lines
// are text.
const NOT_TEXT = /\x1b_pi:c\x07|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)/g;

/**
 * Pi's `ctx.ui.editor(title, prefill)`: pi-tui's own Editor holding `prefill`, as a component
 * (Enter submits, Shift+Enter breaks the line, Esc cancels). Where no component can show (no
 * `components` grant, a front end without them) it is the input dialog, with `prefill` as its
 * placeholder.
 */
export async function editorDialog(title, prefill, theme, input) {
  let shown = false;
  const edited = await custom(
    (_tui, _theme, _keys, done) => {
      shown = true;
      const editor = new Editor(_tui, plainComponentTheme());
      editor.setText(prefill ?? "");
      editor.onSubmit = (text) => done({ text });
      return {
        render: (width) => [
          String(title),
          ...editor.render(width),
          "Enter submits · Shift+Enter new line · Esc cancels",
        ],
        handleInput: (data) => {
          if (matchesKey(data, Key.escape)) done(undefined);
          else editor.handleInput(data);
        },
        invalidate: () => editor.invalidate?.(),
      };
    },
    {},
    theme,
  );
  if (!shown) return input(title, prefill ?? "");
  return edited?.text;
}

/**
 * Pi's `ctx.ui.setEditorComponent`: the extension's editor (a `CustomEditor`, usually) in place
 * of tack's, on tack:plugin/screen's `set-editor` and the `editor` export. tack hands it the keys
 * typed there one call at a time, as a terminal's bytes, and draws what it renders; what it
 * submits (its `onSubmit`) goes back to tack as the user's prompt.
 */
export class PluginEditor {
  constructor(factory) {
    this.factory = factory;
    this.component = undefined;
    this.width = 80;
    this.submitted = undefined;
    this.answering = false;
  }

  /** Its lines at `width` after a key (`{ key }`), a paste (`{ paste }`) or nothing. */
  view(input, width) {
    this.width = width;
    this.answering = true;
    try {
      const component = this.instance();
      this.submitted = undefined;
      // Ctrl+C is tack's, which passes it on for Pi's `app.clear`: the editor's text goes.
      if (input.key === "ctrl+c") component?.setText?.("");
      else if (input.key !== undefined) component?.handleInput?.(keyBytes(input.key));
      if (input.paste !== undefined) {
        component?.handleInput?.(`\x1b[200~${input.paste}\x1b[201~`);
      }
      const lines = (component?.render?.(this.width) ?? []).map((line) =>
        String(line).replace(NOT_TEXT, ""),
      );
      return { lines, submitted: this.submitted };
    } finally {
      this.answering = false;
    }
  }

  instance() {
    if (this.component) return this.component;
    const tui = {
      // Asked between keys (a spinner's timer, an event): tack asks for its lines again.
      requestRender: () => {
        if (this.answering) return;
        try {
          screen.setEditor(true);
        } catch {
          // Nothing to draw it on.
        }
      },
      terminal: {
        columns: 0,
        rows: 24,
      },
    };
    Object.defineProperty(tui.terminal, "columns", { get: () => this.width });
    this.component = this.factory(tui, plainComponentTheme(), getKeybindings());
    if (this.component) {
      this.component.onSubmit = (text) => {
        this.submitted = String(text);
      };
    }
    return this.component;
  }

  dispose() {
    this.component?.dispose?.();
    this.component = undefined;
  }
}

/** Runs `factory`'s component until it is done or closed; resolves to what `done` was given. */
export async function custom(factory, options, theme) {
  const placement = options?.overlay ? "overlay" : "editor";
  let frame = screen.showComponent([], 0, placement);
  if (frame.input.tag === "closed") return undefined;
  let width = frame.width;
  let height = frame.height;
  let finished = false;
  let result;
  const tui = {
    requestRender: () => undefined,
    terminal: {
      get columns() {
        return width;
      },
      get rows() {
        return height;
      },
    },
  };
  const done = (value) => {
    finished = true;
    result = value;
  };
  let component;
  try {
    component = await factory(tui, theme, getKeybindings(), done);
    options?.onHandle?.({
      hide: () => done(undefined),
      setHidden: () => undefined,
      isHidden: () => false,
      focus: () => undefined,
      unfocus: () => undefined,
      isFocused: () => true,
    });
    while (!finished) {
      const lines = (component?.render?.(width) ?? []).map((line) =>
        String(line).replace(NOT_TEXT, ""),
      );
      const timer = nextTimerDelay();
      const wait = timer === undefined ? IDLE_WAIT_MS : Math.min(timer, IDLE_WAIT_MS);
      frame = screen.showComponent(lines, wait, placement);
      const input = frame.input;
      if (input.tag === "closed") break;
      width = frame.width;
      height = frame.height;
      if (input.tag === "key") {
        component?.handleInput?.(keyBytes(input.val));
      } else if (input.tag === "paste") {
        component?.handleInput?.(`\x1b[200~${input.val}\x1b[201~`);
      }
      await runDueTimers();
    }
  } finally {
    component?.dispose?.();
    screen.closeComponent();
  }
  return result;
}
