// Columns of terminal text, as pi-tui measures them, without its Unicode property escapes
// (which the runtime's engine, built without ICU, cannot parse): width, cutting and wrapping.

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

export function charWidth(ch) {
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

