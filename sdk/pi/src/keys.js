// Keys as a component gets them: tack names each key (`up`, `ctrl+c`, `a`), and Pi's components
// read the bytes a terminal sends for it (`\x1b[A`), matched with pi-tui's `matchesKey`. So a
// name becomes the legacy (xterm) sequence for that key, which every Pi component understands.

const CSI_LETTER = { up: "A", down: "B", right: "C", left: "D", home: "H", end: "F" };
const CSI_TILDE = { insert: 2, delete: 3, pageUp: 5, pageDown: 6 };
const FUNCTION = {
  f1: "\x1bOP",
  f2: "\x1bOQ",
  f3: "\x1bOR",
  f4: "\x1bOS",
  f5: "\x1b[15~",
  f6: "\x1b[17~",
  f7: "\x1b[18~",
  f8: "\x1b[19~",
  f9: "\x1b[20~",
  f10: "\x1b[21~",
  f11: "\x1b[23~",
  f12: "\x1b[24~",
};
const PLAIN = { enter: "\r", escape: "\x1b", tab: "\t", backspace: "\x7f", space: " " };

/** The bytes a terminal sends for tack's key `name` (`ctrl+shift+up`, `a`, `enter`). */
export function keyBytes(name) {
  const parts = String(name).split("+");
  // "+" itself is a key: `ctrl++` splits into ["ctrl", "", ""].
  let base = parts.pop();
  if (base === "" && parts.length > 0 && parts[parts.length - 1] === "") {
    parts.pop();
    base = "+";
  }
  const ctrl = parts.includes("ctrl");
  const alt = parts.includes("alt");
  const shift = parts.includes("shift");
  const modifier = 1 + (shift ? 1 : 0) + (alt ? 2 : 0) + (ctrl ? 4 : 0);
  if (base in CSI_LETTER) {
    return modifier === 1 ? `\x1b[${CSI_LETTER[base]}` : `\x1b[1;${modifier}${CSI_LETTER[base]}`;
  }
  if (base in CSI_TILDE) {
    return modifier === 1 ? `\x1b[${CSI_TILDE[base]}~` : `\x1b[${CSI_TILDE[base]};${modifier}~`;
  }
  if (base in FUNCTION) return FUNCTION[base];
  if (base === "tab" && shift) return "\x1b[Z";
  let bytes = PLAIN[base] ?? base;
  if (ctrl && /^[a-z]$/i.test(base)) {
    bytes = String.fromCharCode(base.toLowerCase().charCodeAt(0) - 96);
  } else if (ctrl && base === "space") {
    bytes = "\x00";
  }
  return alt ? `\x1b${bytes}` : bytes;
}
