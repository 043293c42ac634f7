//! Syntax highlighting of code blocks with syntect's bundled grammars (pure-Rust regexes). The
//! grammars load once, on the first code block shown.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme as SyntaxTheme, ThemeSet};
use syntect::parsing::SyntaxSet;

use crate::theme::Theme;

struct Assets {
    syntaxes: SyntaxSet,
    theme: SyntaxTheme,
    light_theme: SyntaxTheme,
}

fn assets() -> Option<&'static Assets> {
    static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();
    ASSETS
        .get_or_init(|| {
            let syntaxes = SyntaxSet::load_defaults_newlines();
            let mut themes = ThemeSet::load_defaults();
            let theme = themes.themes.remove("base16-ocean.dark")?;
            let light_theme = themes.themes.remove("InspiredGitHub")?;
            Some(Assets {
                syntaxes,
                theme,
                light_theme,
            })
        })
        .as_ref()
}

/// Loads the grammars on a thread of its own, so that the first code block on screen does not
/// stall the UI while they load.
pub fn preload() {
    std::thread::spawn(|| {
        assets();
    });
}

/// The lines of `code`, coloured for `lang` when colour is on and the language is known;
/// otherwise in the theme's code style.
pub fn highlight(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
    let plain = || {
        code.lines()
            .map(|l| Line::from(Span::styled(l.to_string(), theme.code())))
            .collect()
    };
    if !theme.color || lang.is_empty() {
        return plain();
    }
    let Some(assets) = assets() else {
        return plain();
    };
    let Some(syntax) = assets.syntaxes.find_syntax_by_token(lang) else {
        return plain();
    };
    let syntax_theme = if theme.palette.light {
        &assets.light_theme
    } else {
        &assets.theme
    };
    let mut highlighter = HighlightLines::new(syntax, syntax_theme);
    let mut out = Vec::new();
    for line in syntect::util::LinesWithEndings::from(code) {
        let Ok(ranges) = highlighter.highlight_line(line, &assets.syntaxes) else {
            return plain();
        };
        let spans: Vec<Span<'static>> = ranges
            .into_iter()
            .map(|(style, text)| {
                let mut s = Style::new().fg(Color::Rgb(
                    style.foreground.r,
                    style.foreground.g,
                    style.foreground.b,
                ));
                if style.font_style.contains(FontStyle::BOLD) {
                    s = s.add_modifier(Modifier::BOLD);
                }
                if style.font_style.contains(FontStyle::ITALIC) {
                    s = s.add_modifier(Modifier::ITALIC);
                }
                Span::styled(text.trim_end_matches(['\n', '\r']).to_string(), s)
            })
            .filter(|s| !s.content.is_empty())
            .collect();
        out.push(Line::from(spans));
    }
    out
}
