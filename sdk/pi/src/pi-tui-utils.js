// What pi-tui's components import from its `utils.js`, for its real components (Editor, Input,
// SelectList, SettingsList, Loader) to run in the runtime: the runtime's bundle resolves their
// `../utils.js` here (bin/build-runtime.js). pi-tui's own module cannot be parsed by the
// runtime's engine (see ./width.js); these follow its contracts on plain text and SGR colours.

import { charWidth, truncateToWidth as cut, visibleWidth, wrapTextWithAnsi } from "./width.js";

export { visibleWidth, wrapTextWithAnsi };

const ESCAPE = /^(?:\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x07]*\x07)/;

/**
 * Graphemes of a text: the engine's `Intl.Segmenter` where it has one, else code points with
 * combining marks and joiners kept on the character before them.
 */
export function getSegmenter() {
  if (typeof Intl !== "undefined" && typeof Intl.Segmenter === "function") {
    return new Intl.Segmenter(undefined, { granularity: "grapheme" });
  }
  return {
    segment(text) {
      const input = String(text);
      const segments = [];
      let index = 0;
      for (const ch of input) {
        const last = segments[segments.length - 1];
        if (last && (charWidth(ch) === 0 || last.segment.endsWith("\u200d"))) {
          last.segment += ch;
        } else {
          segments.push({ segment: ch, index, input });
        }
        index += ch.length;
      }
      return segments;
    },
  };
}

export function isWhitespaceChar(char) {
  return /\s/.test(char);
}

export function isPunctuationChar(char) {
  return /[!-/:-@[-`{-~\u2010-\u2027\u3000-\u303f]/.test(char);
}

/** `line` padded to `width` and given its background by `bgFn`. */
export function applyBackgroundToLine(line, width, bgFn) {
  const padded = line + " ".repeat(Math.max(0, width - visibleWidth(line)));
  return bgFn ? bgFn(padded) : padded;
}

/** pi-tui's `truncateToWidth`: cut with `ellipsis`, padded to `maxWidth` with `pad`. */
export function truncateToWidth(text, maxWidth, ellipsis = "...", pad = false) {
  const out = cut(text, maxWidth, ellipsis);
  return pad ? out + " ".repeat(Math.max(0, maxWidth - visibleWidth(out))) : out;
}

/** The part of `line` from column `startCol`, `length` columns wide, and its width. */
export function sliceWithWidth(line, startCol, length, strict = false) {
  const end = startCol + length;
  let text = "";
  let width = 0;
  let column = 0;
  let rest = String(line);
  while (rest.length > 0) {
    const escape = rest.match(ESCAPE);
    if (escape) {
      if (column >= startCol && column < end) text += escape[0];
      rest = rest.slice(escape[0].length);
      continue;
    }
    const ch = String.fromCodePoint(rest.codePointAt(0));
    rest = rest.slice(ch.length);
    const w = charWidth(ch);
    if (column >= startCol && column + w <= end) {
      text += ch;
      width += w;
    } else if (!strict && column >= startCol && column < end) {
      text += ch;
      width += w;
    }
    column += w;
    if (column >= end) break;
  }
  return { text, width };
}

export function sliceByColumn(line, startCol, length, strict = false) {
  return sliceWithWidth(line, startCol, length, strict).text;
}

/** Terminal output as text: carriage returns before line feeds dropped. */
export function normalizeTerminalOutput(str) {
  return String(str).replace(/\r\n/g, "\n");
}
