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

use std::collections::BTreeMap;
use std::path::Path;

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

    /// The theme names a user can choose: the built-ins, then the files in `themes_dir`.
    pub fn names(themes_dir: &Path) -> Vec<String> {
        let mut names = vec!["dark".to_string(), "light".to_string()];
        let mut custom: Vec<String> = std::fs::read_dir(themes_dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let path = e.path();
                (path.extension()? == "toml")
                    .then(|| path.file_stem()?.to_str().map(str::to_string))
                    .flatten()
            })
            .filter(|n| n != "dark" && n != "light")
            .collect();
        custom.sort();
        names.extend(custom);
        names
    }

    /// The palette called `name`: a built-in, or `<themes_dir>/<name>.toml`. Errors name the
    /// file and what is wrong in it.
    pub fn palette(name: &str, themes_dir: &Path) -> Result<Palette, String> {
        match name {
            "dark" => return Ok(Palette::DARK),
            "light" => return Ok(Palette::LIGHT),
            _ => {}
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "theme '{name}': a name is letters, digits, '-' and '_'"
            ));
        }
        let path = themes_dir.join(format!("{name}.toml"));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("theme '{name}': cannot read {}: {e}", path.display()))?;
        parse_palette(&text).map_err(|e| format!("{}: {e}", path.display()))
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
        assert_eq!(Theme::palette("light", dir.path()).unwrap(), Palette::LIGHT);
        std::fs::write(
            dir.path().join("solar.toml"),
            "base = \"light\"\nuser = \"#005f87\"\nborder = \"dark-gray\"\nselected_bg = 33\n",
        )
        .unwrap();
        let solar = Theme::palette("solar", dir.path()).unwrap();
        assert_eq!(solar.user, Color::Rgb(0x00, 0x5f, 0x87));
        assert_eq!(solar.border, Color::DarkGray);
        assert_eq!(solar.selected_bg, Color::Indexed(33));
        assert_eq!(
            solar.code,
            Palette::LIGHT.code,
            "the rest comes from the base"
        );
        assert_eq!(Theme::names(dir.path()), ["dark", "light", "solar"]);

        std::fs::write(dir.path().join("bad.toml"), "user = \"#12\"\n").unwrap();
        let bad = Theme::palette("bad", dir.path()).unwrap_err();
        assert!(bad.ends_with("user: '#12' is not #rrggbb"), "{bad}");
        let missing = Theme::palette("nope", dir.path()).unwrap_err();
        assert!(
            missing.starts_with("theme 'nope': cannot read"),
            "{missing}"
        );
        let sneaky = Theme::palette("../x", dir.path()).unwrap_err();
        assert!(sneaky.contains("a name is letters"), "{sneaky}");
    }
}
