// Pi's `Theme` as tack's Pi runtime gives it: every style is the plain text. A plugin's lines
// reach the user's terminal through the host, which draws them in its own colours; a plugin
// never writes escape sequences to it.

const identity = (text) => String(text ?? "");

/** A theme whose colours and styles leave the text as it is. */
export function plainTheme() {
  return {
    name: "tack",
    fg: (_color, text) => identity(text),
    bg: (_color, text) => identity(text),
    bold: identity,
    italic: identity,
    underline: identity,
    strikethrough: identity,
    inverse: identity,
    dim: identity,
    getFgAnsi: () => "",
    getBgAnsi: () => "",
    getColorMode: () => "truecolor",
    getThinkingBorderColor: () => identity,
    getBashModeBorderColor: () => identity,
  };
}

/** Pi's markdown, select-list and settings-list themes: plain, like the theme. */
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
        return typeof key === "string" ? identity : undefined;
      },
    },
  );
}
