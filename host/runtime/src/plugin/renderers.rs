//! Lines a plugin draws for its own blocks of the conversation (`tack:plugin/renderers`, 0.2.0):
//! its tools' calls and results (Pi's `renderCall` / `renderResult`) and the messages it sent
//! (Pi's `registerMessageRenderer`). What it returns reaches the terminal, so each line keeps
//! only its colours (SGR, parsed by the UI), is neutralised and cut, and each block to a few
//! screens.

use std::time::Duration;

use super::{CallSetup, LoadedPlugin};
use crate::bindings::v0_2_0::renderers::exports::tack::plugin0_2_0::renderers as wit;
use crate::error::PluginError;

/// The most lines of a call's heading shown.
const MAX_CALL_LINES: usize = 24;
/// The most lines of a result or a message shown.
const MAX_BODY_LINES: usize = 200;
/// The most bytes of one line kept; a line wider than any terminal is cut by the UI anyway.
const MAX_LINE_BYTES: usize = 4096;
/// The most bytes of a result's text or details a plugin is handed to draw from.
const MAX_SHOWN_BYTES: usize = 256 << 10;
/// How long a drawing waits for the plugin to be free of another call (its own tool, a hook):
/// past it tack draws the block itself, and the UI asks again when the block changes.
const PATIENCE: Duration = Duration::from_millis(200);

/// One call of a plugin's tool, as the UI shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallView {
    pub tool: String,
    pub call_id: String,
    pub arguments: serde_json::Value,
    pub started: bool,
}

/// What a call returned so far.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultView {
    pub text: String,
    pub details: Option<serde_json::Value>,
    pub is_error: bool,
    pub partial: bool,
}

/// What a plugin answered when asked to draw a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drawing<T> {
    /// Its lines.
    Drawn(T),
    /// It leaves the block to tack, or has no renderers.
    Declined,
    /// It was busy with another call (its own tool, a hook) longer than a drawing waits: asking
    /// again later may draw it.
    Busy,
}

impl<T> Drawing<T> {
    /// The same answer with its lines made into `U`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Drawing<U> {
        match self {
            Drawing::Drawn(drawn) => Drawing::Drawn(f(drawn)),
            Drawing::Declined => Drawing::Declined,
            Drawing::Busy => Drawing::Busy,
        }
    }

    fn of(answer: Option<Option<T>>) -> Drawing<T> {
        match answer {
            None => Drawing::Busy,
            Some(None) => Drawing::Declined,
            Some(Some(drawn)) => Drawing::Drawn(drawn),
        }
    }
}

/// A plugin's lines for one call: its heading and its body, each `None` where tack draws it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderedToolCall {
    pub call: Option<Vec<String>>,
    pub result: Option<Vec<String>>,
}

impl LoadedPlugin {
    /// Whether the plugin exports `renderers`: a plugin without it is never asked. A deferred
    /// plugin not compiled yet may have it, and is asked (which compiles it).
    pub fn renders(&self) -> bool {
        self.code
            .get()
            .is_none_or(|linked| linked.renderers_indices.is_some())
    }

    /// The plugin's lines for a call of its tool and, when there is one, its result, at
    /// `width` columns.
    pub async fn render_tool_call(
        &self,
        call: &ToolCallView,
        result: Option<&ToolResultView>,
        width: u16,
        expanded: bool,
    ) -> Result<Drawing<RenderedToolCall>, PluginError> {
        if !self.renders() {
            return Ok(Drawing::Declined);
        }
        let call = wit::ToolCall {
            tool: call.tool.clone(),
            call_id: call.call_id.clone(),
            arguments: call.arguments.to_string(),
            started: call.started,
        };
        let result = result.map(|r| wit::ToolResult {
            text: capped(&r.text),
            details: shown_details(r.details.as_ref()),
            is_error: r.is_error,
            partial: r.partial,
        });
        let options = wit::RenderOptions {
            width: u32::from(width),
            expanded,
        };
        let drawn = self
            .with_free_instance(
                "tool rendering",
                CallSetup::plain(self.limits().hook),
                PATIENCE,
                move |store, _, optional| {
                    Box::pin(async move {
                        let Some(r) = &optional.renderers else {
                            return Ok(RenderedToolCall::default());
                        };
                        let heading = r.call_render_call(&mut *store, &call, options).await?;
                        let body = match &result {
                            Some(result) => {
                                r.call_render_result(&mut *store, &call, result, options)
                                    .await?
                            }
                            None => None,
                        };
                        Ok(RenderedToolCall {
                            call: heading.map(|l| shown_lines(l, MAX_CALL_LINES)),
                            result: body.map(|l| shown_lines(l, MAX_BODY_LINES)),
                        })
                    })
                },
            )
            .await?;
        let drawn = drawn.map(|d| Some(d).filter(|d| d.call.is_some() || d.result.is_some()));
        Ok(Drawing::of(drawn))
    }

    /// The plugin's lines for a custom message it sent.
    pub async fn render_message(
        &self,
        custom_type: &str,
        content: &str,
        details: Option<&serde_json::Value>,
        width: u16,
        expanded: bool,
    ) -> Result<Drawing<Vec<String>>, PluginError> {
        if !self.renders() {
            return Ok(Drawing::Declined);
        }
        let message = wit::CustomMessage {
            custom_type: custom_type.to_string(),
            content: capped(content),
            details: shown_details(details),
        };
        let options = wit::RenderOptions {
            width: u32::from(width),
            expanded,
        };
        let drawn = self
            .with_free_instance(
                "message rendering",
                CallSetup::plain(self.limits().hook),
                PATIENCE,
                move |store, _, optional| {
                    Box::pin(async move {
                        match &optional.renderers {
                            Some(r) => r.call_render_message(store, &message, options).await,
                            None => Ok(None),
                        }
                    })
                },
            )
            .await?;
        let drawn = drawn.map(|lines| lines.map(|l| shown_lines(l, MAX_BODY_LINES)));
        Ok(Drawing::of(drawn))
    }
}

/// Details as the JSON a plugin is handed to draw from; none past [`MAX_SHOWN_BYTES`].
fn shown_details(details: Option<&serde_json::Value>) -> Option<String> {
    details
        .map(|d| d.to_string())
        .filter(|d| d.len() <= MAX_SHOWN_BYTES)
}

/// `text` cut to what a plugin is handed to draw from.
fn capped(text: &str) -> String {
    text[..text.floor_char_boundary(MAX_SHOWN_BYTES)].to_string()
}

/// At most `max` lines a plugin drew (a renderer's, an editor's), each one line keeping only
/// its colours (SGR, which the terminal UI parses), cut to [`MAX_LINE_BYTES`]. A returned string
/// holding line breaks is several lines.
pub(super) fn shown_lines(lines: Vec<String>, max: usize) -> Vec<String> {
    lines
        .iter()
        .flat_map(|line| line.split('\n'))
        .take(max)
        .map(|line| {
            let line = &line[..line.floor_char_boundary(MAX_LINE_BYTES)];
            tack_core::text::keep_styles(line).replace('\t', "    ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_lose_styles_and_controls_and_are_capped() {
        let lines = vec![
            "\u{1b}[32m✓ Added\u{1b}[0m #1".to_string(),
            "two\nlines\twith a tab".to_string(),
            "\u{1b}]52;c;ZXZpbA==\u{7}clipboard".to_string(),
            "é".repeat(MAX_LINE_BYTES),
        ];
        let shown = shown_lines(lines, 10);
        // Colours stay, for the terminal UI to draw; nothing else is obeyed.
        assert_eq!(shown[0], "\u{1b}[32m✓ Added\u{1b}[0m #1");
        assert_eq!(shown[1], "two");
        assert_eq!(shown[2], "lines    with a tab");
        assert_eq!(shown[3], "␛]52;c;ZXZpbA==␇clipboard");
        assert_eq!(shown[4].len(), MAX_LINE_BYTES);
        let many = vec!["x".to_string(); 500];
        assert_eq!(shown_lines(many, MAX_CALL_LINES).len(), MAX_CALL_LINES);
    }
}
