//! Colours and text styles. With `NO_COLOR` set every style keeps only its modifiers (bold, dim,
//! italic, reversed), so the layout still reads without colour.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless the `NO_COLOR` convention (any non-empty value) asks for none.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    pub fn plain() -> Theme {
        Theme { color: false }
    }

    pub fn colored() -> Theme {
        Theme { color: true }
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
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn accent(&self) -> Style {
        self.fg(Color::Magenta)
    }

    pub fn heading(&self, level: usize) -> Style {
        let base = self.fg(if level <= 1 {
            Color::Magenta
        } else {
            Color::Blue
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
            Style::new().fg(Color::Yellow)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    pub fn link(&self) -> Style {
        self.fg(Color::Blue).add_modifier(Modifier::UNDERLINED)
    }

    pub fn thinking(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC)
    }

    pub fn ok(&self) -> Style {
        self.fg(Color::Green)
    }

    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn warn(&self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn running(&self) -> Style {
        self.fg(Color::Cyan)
    }

    pub fn tool_name(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn diff_added(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Green)
        } else {
            Style::new()
        }
    }

    pub fn diff_removed(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Red)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn diff_hunk(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::DIM)
    }

    pub fn selected(&self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    pub fn border(&self) -> Style {
        self.fg(Color::DarkGray)
    }

    pub fn dialog_border(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn footer(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }
}
