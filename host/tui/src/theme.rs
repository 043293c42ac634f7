//! Colours and text styles. With `NO_COLOR` set every style keeps only its modifiers (bold, dim,
//! italic, reversed), so the layout still reads without colour.
//!
//! Two built-in palettes, `dark` (the default) and `light`, and custom ones: a TOML file
//! `<tack home>/themes/<name>.toml` names a `base` palette and the colours it changes:
//!
//! ```toml
//! base = "light"
//! user = "#005f87"
//! border = "gray"
//! selected_bg = 33
//! ```
//!
//! A colour is a name (`cyan`, `dark-gray`, `light-red`…), `#rrggbb`, or an index 0–255.
//!
//! A Pi theme (`<name>.json`, Pi's `docs/themes.md`: `vars` and 51 `colors` tokens) in the same
//! folders, or in an installed Pi package's `themes/`, is read too: its tokens name the colours
//! of tack's palette that mean the same (`accent`, `border`, `success`, `mdHeading`,
//! `toolDiffAdded`, …), and its selection background says whether it is a light theme.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ratatui::style::{Color, Modifier, Style};

/// The colours of a palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pub user: Color,
    pub accent: Color,
    pub heading: Color,
    pub subheading: Color,
    pub code: Color,
    pub link: Color,
    pub ok: Color,
    pub error: Color,
    pub warn: Color,
    pub running: Color,
    pub diff_added: Color,
    pub diff_removed: Color,
    pub diff_hunk: Color,
    pub selected_fg: Color,
    pub selected_bg: Color,
    pub border: Color,
    pub dialog_border: Color,
    /// Code blocks use a light syntax theme.
    pub light: bool,
}

impl Palette {
    pub const DARK: Palette = Palette {
        user: Color::Cyan,
        accent: Color::Magenta,
        heading: Color::Magenta,
        subheading: Color::Blue,
        code: Color::Yellow,
        link: Color::Blue,
        ok: Color::Green,
        error: Color::Red,
        warn: Color::Yellow,
        running: Color::Cyan,
        diff_added: Color::Green,
        diff_removed: Color::Red,
        diff_hunk: Color::Cyan,
        selected_fg: Color::Black,
        selected_bg: Color::Cyan,
        border: Color::DarkGray,
        dialog_border: Color::Yellow,
        light: false,
    };

    /// For light terminal backgrounds: no yellow or cyan text, which fades on white.
    pub const LIGHT: Palette = Palette {
        user: Color::Blue,
        accent: Color::Magenta,
        heading: Color::Magenta,
        subheading: Color::Blue,
        code: Color::Rgb(0x8a, 0x4b, 0x08),
        link: Color::Blue,
        ok: Color::Rgb(0x1a, 0x7f, 0x37),
        error: Color::Red,
        warn: Color::Rgb(0x9a, 0x67, 0x00),
        running: Color::Blue,
        diff_added: Color::Rgb(0x1a, 0x7f, 0x37),
        diff_removed: Color::Red,
        diff_hunk: Color::Blue,
        selected_fg: Color::White,
        selected_bg: Color::Blue,
        border: Color::Gray,
        dialog_border: Color::Rgb(0x9a, 0x67, 0x00),
        light: true,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub palette: Palette,
}

impl Theme {
    /// Colour unless the `NO_COLOR` convention (any non-empty value) asks for none.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme {
            color: !no_color,
            palette: Palette::DARK,
        }
    }

    pub fn plain() -> Theme {
        Theme {
            color: false,
            palette: Palette::DARK,
        }
    }

    pub fn colored() -> Theme {
        Theme {
            color: true,
            palette: Palette::DARK,
        }
    }

    pub fn with_palette(self, palette: Palette) -> Theme {
        Theme { palette, ..self }
    }

    /// The theme names a user can choose: the built-ins, then the `.toml` and Pi `.json` files
    /// in `dirs` (tack's `themes/` first, then installed Pi packages' `themes/`).
    pub fn names(dirs: &[PathBuf]) -> Vec<String> {
        let mut names = vec!["dark".to_string(), "light".to_string()];
        let mut custom: Vec<String> = dirs
            .iter()
            .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
            .filter_map(|e| {
                let path = e.path();
                let extension = path.extension()?;
                (extension == "toml" || extension == "json")
                    .then(|| path.file_stem()?.to_str().map(str::to_string))
                    .flatten()
            })
            .filter(|n| n != "dark" && n != "light" && valid_name(n))
            .collect();
        custom.sort();
        custom.dedup();
        names.extend(custom);
        names
    }

    /// The palette called `name`: a built-in, or the first `<name>.toml` (tack's format) or
    /// `<name>.json` (Pi's) in `dirs`. Errors name the file and what is wrong in it.
    pub fn palette(name: &str, dirs: &[PathBuf]) -> Result<Palette, String> {
        match name {
            "dark" => return Ok(Palette::DARK),
            "light" => return Ok(Palette::LIGHT),
            _ => {}
        }
        if !valid_name(name) {
            return Err(format!(
                "theme '{name}': a name is letters, digits, '-' and '_'"
            ));
        }
        for dir in dirs {
            let toml = dir.join(format!("{name}.toml"));
            if toml.is_file() {
                let text = std::fs::read_to_string(&toml)
                    .map_err(|e| format!("theme '{name}': cannot read {}: {e}", toml.display()))?;
                return parse_palette(&text).map_err(|e| format!("{}: {e}", toml.display()));
            }
            let json = dir.join(format!("{name}.json"));
            if json.is_file() {
                let text = std::fs::read_to_string(&json)
                    .map_err(|e| format!("theme '{name}': cannot read {}: {e}", json.display()))?;
                return parse_pi_theme(&text).map_err(|e| format!("{}: {e}", json.display()));
            }
        }
        let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        Err(format!(
            "theme '{name}': cannot read {name}.toml or {name}.json in {}",
            looked.join(", ")
        ))
    }

    fn fg(&self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    pub fn text(&self) -> Style {
        Style::new()
    }

    pub fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    pub fn user(&self) -> Style {
        self.fg(self.palette.user).add_modifier(Modifier::BOLD)
    }

    pub fn accent(&self) -> Style {
        self.fg(self.palette.accent)
    }

    pub fn heading(&self, level: usize) -> Style {
        let base = self.fg(if level <= 1 {
            self.palette.heading
        } else {
            self.palette.subheading
        });
        let base = base.add_modifier(Modifier::BOLD);
        if level <= 1 {
            base.add_modifier(Modifier::UNDERLINED)
        } else {
            base
        }
    }

    pub fn code(&self) -> Style {
        if self.color {
            Style::new().fg(self.palette.code)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    pub fn link(&self) -> Style {
        self.fg(self.palette.link)
            .add_modifier(Modifier::UNDERLINED)
    }

    pub fn thinking(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC)
    }

    pub fn ok(&self) -> Style {
        self.fg(self.palette.ok)
    }

    pub fn error(&self) -> Style {
        self.fg(self.palette.error).add_modifier(Modifier::BOLD)
    }

    pub fn warn(&self) -> Style {
        self.fg(self.palette.warn)
    }

    pub fn running(&self) -> Style {
        self.fg(self.palette.running)
    }

    pub fn tool_name(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn diff_added(&self) -> Style {
        if self.color {
            Style::new().fg(self.palette.diff_added)
        } else {
            Style::new()
        }
    }

    pub fn diff_removed(&self) -> Style {
        if self.color {
            Style::new().fg(self.palette.diff_removed)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn diff_hunk(&self) -> Style {
        self.fg(self.palette.diff_hunk).add_modifier(Modifier::DIM)
    }

    pub fn selected(&self) -> Style {
        if self.color {
            Style::new()
                .fg(self.palette.selected_fg)
                .bg(self.palette.selected_bg)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    pub fn border(&self) -> Style {
        self.fg(self.palette.border)
    }

    pub fn dialog_border(&self) -> Style {
        self.fg(self.palette.dialog_border)
            .add_modifier(Modifier::BOLD)
    }

    pub fn footer(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A Pi theme file: `vars` are names for colours, `colors` the tokens, each a `#rrggbb`, an
/// index 0–255, a var's name, or `""` (the terminal's own colour).
#[derive(serde::Deserialize)]
struct PiTheme {
    #[serde(default)]
    vars: BTreeMap<String, serde_json::Value>,
    colors: BTreeMap<String, serde_json::Value>,
}

/// One colour of a palette, to be set.
type PaletteSlot = fn(&mut Palette) -> &mut Color;

/// Which of tack's colours each Pi token gives, in the order they are applied (a later one
/// wins for the same colour).
const PI_TOKENS: [(&str, PaletteSlot); 15] = [
    ("accent", |p| &mut p.accent),
    ("accent", |p| &mut p.subheading),
    ("userMessageText", |p| &mut p.user),
    ("mdHeading", |p| &mut p.heading),
    ("mdCode", |p| &mut p.code),
    ("mdLink", |p| &mut p.link),
    ("success", |p| &mut p.ok),
    ("error", |p| &mut p.error),
    ("warning", |p| &mut p.warn),
    ("borderAccent", |p| &mut p.running),
    ("toolDiffAdded", |p| &mut p.diff_added),
    ("toolDiffRemoved", |p| &mut p.diff_removed),
    ("toolDiffContext", |p| &mut p.diff_hunk),
    ("selectedBg", |p| &mut p.selected_bg),
    ("border", |p| &mut p.border),
];

fn parse_pi_theme(text: &str) -> Result<Palette, String> {
    let theme: PiTheme = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let color_of = |token: &str| -> Result<Option<Color>, String> {
        let Some(value) = theme.colors.get(token) else {
            return Ok(None);
        };
        let value = match value.as_str() {
            Some(name) if theme.vars.contains_key(name) => &theme.vars[name],
            _ => value,
        };
        match value {
            serde_json::Value::String(text) if text.is_empty() => Ok(Some(Color::Reset)),
            serde_json::Value::String(text) => parse_color(&toml::Value::String(text.clone()))
                .map(Some)
                .map_err(|e| format!("colors.{token}: {e}")),
            serde_json::Value::Number(n) => {
                let index = n
                    .as_u64()
                    .and_then(|n| u8::try_from(n).ok())
                    .ok_or_else(|| format!("colors.{token}: {n} is not a colour index (0-255)"))?;
                Ok(Some(Color::Indexed(index)))
            }
            _ => Err(format!(
                "colors.{token}: a colour is \"#rrggbb\", 0-255, a var or \"\""
            )),
        }
    };
    // The selection's background tells a theme made for light terminals.
    let light = color_of("selectedBg")?
        .or(color_of("userMessageBg")?)
        .and_then(luminance)
        .is_some_and(|l| l > 0.5);
    let mut palette = if light { Palette::LIGHT } else { Palette::DARK };
    for (token, slot) in PI_TOKENS {
        if let Some(color) = color_of(token)? {
            // `""` is the terminal's colour: tack's base keeps its own there.
            if color != Color::Reset {
                *slot(&mut palette) = color;
            }
        }
    }
    palette.dialog_border = palette.running;
    // Pi draws selected text in its normal colour over `selectedBg`.
    palette.selected_fg = if light { Color::Black } else { Color::White };
    Ok(palette)
}

/// Relative brightness 0–1 of a colour given as RGB.
fn luminance(color: Color) -> Option<f32> {
    match color {
        Color::Rgb(r, g, b) => {
            Some((0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)) / 255.0)
        }
        _ => None,
    }
}

fn parse_palette(text: &str) -> Result<Palette, String> {
    let table: BTreeMap<String, toml::Value> = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut palette = match table.get("base").map(|b| b.as_str()) {
        None | Some(Some("dark")) => Palette::DARK,
        Some(Some("light")) => Palette::LIGHT,
        Some(_) => return Err("`base` is \"dark\" or \"light\"".into()),
    };
    for (key, value) in &table {
        if key == "base" {
            continue;
        }
        let color = parse_color(value).map_err(|e| format!("{key}: {e}"))?;
        let slot = match key.as_str() {
            "user" => &mut palette.user,
            "accent" => &mut palette.accent,
            "heading" => &mut palette.heading,
            "subheading" => &mut palette.subheading,
            "code" => &mut palette.code,
            "link" => &mut palette.link,
            "ok" => &mut palette.ok,
            "error" => &mut palette.error,
            "warn" => &mut palette.warn,
            "running" => &mut palette.running,
            "diff_added" => &mut palette.diff_added,
            "diff_removed" => &mut palette.diff_removed,
            "diff_hunk" => &mut palette.diff_hunk,
            "selected_fg" => &mut palette.selected_fg,
            "selected_bg" => &mut palette.selected_bg,
            "border" => &mut palette.border,
            "dialog_border" => &mut palette.dialog_border,
            other => return Err(format!("unknown colour '{other}'")),
        };
        *slot = color;
    }
    Ok(palette)
}

fn parse_color(value: &toml::Value) -> Result<Color, String> {
    if let Some(index) = value.as_integer() {
        return u8::try_from(index)
            .map(Color::Indexed)
            .map_err(|_| format!("{index} is not a colour index (0-255)"));
    }
    let Some(text) = value.as_str() else {
        return Err("a colour is a name, \"#rrggbb\" or 0-255".into());
    };
    if let Some(hex) = text.strip_prefix('#') {
        let channel = |i: usize| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("'{text}' is not #rrggbb"))
        };
        if hex.len() != 6 {
            return Err(format!("'{text}' is not #rrggbb"));
        }
        return Ok(Color::Rgb(channel(0)?, channel(2)?, channel(4)?));
    }
    Ok(match text.to_ascii_lowercase().replace('_', "-").as_str() {
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "dark-gray" | "dark-grey" => Color::DarkGray,
        "light-red" => Color::LightRed,
        "light-green" => Color::LightGreen,
        "light-yellow" => Color::LightYellow,
        "light-blue" => Color::LightBlue,
        "light-magenta" => Color::LightMagenta,
        "light-cyan" => Color::LightCyan,
        "white" => Color::White,
        other => return Err(format!("unknown colour name '{other}'")),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn built_in_and_custom_palettes() {
        let dir = tempfile::tempdir().unwrap();
        let dirs = [dir.path().to_path_buf()];
        assert_eq!(Theme::palette("light", &dirs).unwrap(), Palette::LIGHT);
        std::fs::write(
            dir.path().join("solar.toml"),
            "base = \"light\"\nuser = \"#005f87\"\nborder = \"dark-gray\"\nselected_bg = 33\n",
        )
        .unwrap();
        let solar = Theme::palette("solar", &dirs).unwrap();
        assert_eq!(solar.user, Color::Rgb(0x00, 0x5f, 0x87));
        assert_eq!(solar.border, Color::DarkGray);
        assert_eq!(solar.selected_bg, Color::Indexed(33));
        assert_eq!(
            solar.code,
            Palette::LIGHT.code,
            "the rest comes from the base"
        );
        assert_eq!(Theme::names(&dirs), ["dark", "light", "solar"]);

        std::fs::write(dir.path().join("bad.toml"), "user = \"#12\"\n").unwrap();
        let bad = Theme::palette("bad", &dirs).unwrap_err();
        assert!(bad.ends_with("user: '#12' is not #rrggbb"), "{bad}");
        let missing = Theme::palette("nope", &dirs).unwrap_err();
        assert!(
            missing.starts_with("theme 'nope': cannot read"),
            "{missing}"
        );
        let sneaky = Theme::palette("../x", &dirs).unwrap_err();
        assert!(sneaky.contains("a name is letters"), "{sneaky}");
    }

    /// A Pi theme (Pi's `docs/themes.md` format) from a second folder: its vars resolve, its
    /// tokens give tack's colours, `""` keeps the base's, and a light selection makes it light.
    #[test]
    fn pi_themes_are_read_from_every_folder() {
        let mine = tempfile::tempdir().unwrap();
        let package = tempfile::tempdir().unwrap();
        let dirs = [mine.path().to_path_buf(), package.path().to_path_buf()];
        std::fs::write(
            package.path().join("paper.json"),
            r##"{"name":"paper","vars":{"teal":"#5a8080","muted":242},
               "colors":{"accent":"teal","border":"muted","borderAccent":"#00aaff",
               "success":"#588458","error":"red","warning":"yellow","mdHeading":"#9a7326",
               "mdLink":"teal","mdCode":"","toolDiffAdded":"#588458","toolDiffRemoved":"red",
               "toolDiffContext":"muted","selectedBg":"#d0d0e0","userMessageText":""}}"##,
        )
        .unwrap();
        std::fs::write(
            package.path().join("broken.json"),
            r#"{"colors":{"accent":true}}"#,
        )
        .unwrap();
        assert_eq!(Theme::names(&dirs), ["dark", "light", "broken", "paper"]);
        let paper = Theme::palette("paper", &dirs).unwrap();
        assert!(paper.light);
        assert_eq!(paper.accent, Color::Rgb(0x5a, 0x80, 0x80));
        assert_eq!(paper.link, paper.accent);
        assert_eq!(paper.border, Color::Indexed(242));
        assert_eq!(paper.error, Color::Red);
        assert_eq!(paper.running, Color::Rgb(0x00, 0xaa, 0xff));
        assert_eq!(paper.selected_bg, Color::Rgb(0xd0, 0xd0, 0xe0));
        assert_eq!(paper.selected_fg, Color::Black);
        assert_eq!(paper.code, Palette::LIGHT.code, "\"\" keeps the base's");
        let broken = Theme::palette("broken", &dirs).unwrap_err();
        assert!(broken.contains("colors.accent"), "{broken}");

        // tack's own folder comes first.
        std::fs::write(mine.path().join("paper.toml"), "user = \"red\"\n").unwrap();
        assert_eq!(Theme::palette("paper", &dirs).unwrap().user, Color::Red);
        assert!(!Theme::palette("paper", &dirs).unwrap().light);
    }
}
