// Pi's `Theme` as tack's Pi runtime gives it. Colours and styles are SGR sequences, as Pi's are:
// the terminal UI draws them in a plugin's widgets, header, components and renderers (the host
// keeps nothing else of a sequence, and parses these itself), and every other place a plugin's
// text goes (a notification, a status, the footer, an RPC client) drops them. Colours are the
// terminal's own sixteen, so they follow the user's palette.

const text = (value) => String(value ?? "");

// Pi's theme colours by the SGR foreground that stands for each; a colour not named here is the
// text's own.
const FG = {
  accent: 36,
  borderAccent: 36,
  customMessageLabel: 36,
  mdHeading: 36,
  mdLink: 36,
  mdListBullet: 36,
  success: 32,
  diffAdded: 32,
  error: 31,
  diffRemoved: 31,
  warning: 33,
  muted: 90,
  dim: 90,
  border: 90,
  borderMuted: 90,
  thinkingText: 90,
  mdQuote: 90,
  mdCodeBlockBorder: 90,
  toolOutput: 90,
};

const sgr = (on, off) => (value) => `\x1b[${on}m${text(value)}\x1b[${off}m`;

/** Pi's theme: `fg` colours, `bold` / `italic` / … attributes; backgrounds stay tack's. */
export function tackTheme() {
  return {
    name: "tack",
    fg: (color, value) =>
      color === "toolTitle"
        ? sgr(1, 22)(value)
        : FG[color] === undefined
          ? text(value)
          : sgr(FG[color], 39)(value),
    bg: (_color, value) => text(value),
    bold: sgr(1, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    strikethrough: sgr(9, 29),
    inverse: sgr(7, 27),
    dim: sgr(2, 22),
    getFgAnsi: (color) => (FG[color] === undefined ? "" : `\x1b[${FG[color]}m`),
    getBgAnsi: () => "",
    getColorMode: () => "truecolor",
    getThinkingBorderColor: () => (value) => sgr(90, 39)(value),
    getBashModeBorderColor: () => (value) => sgr(33, 39)(value),
  };
}

/** Pi's markdown, select-list and settings-list themes: plain, as tack draws their text. */
export function plainComponentTheme() {
  return new Proxy(
    {},
    {
      get: (_target, key) => {
        if (key === "symbols") return {};
        // SettingsList's selected-row marker is a string, where every other entry styles text.
        if (key === "cursor") return "→ ";
        // An editor theme nests the select list's (its autocomplete).
        if (key === "selectList") return plainComponentTheme();
        return typeof key === "string" ? text : undefined;
      },
    },
  );
}
