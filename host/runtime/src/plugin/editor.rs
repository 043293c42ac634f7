//! A plugin's editor in place of tack's (`tack:plugin/editor`, 0.2.0; Pi's
//! `setEditorComponent`): its lines for a width, and the keys the user types in it. The plugin
//! turned it on with the `components` grant, which every call checks again; what it shows keeps
//! only its colours, and what it submits is neutralised and budgeted as the user's prompt.

use super::{CallSetup, LoadedPlugin};
use crate::bindings::v0_2_0::editor::exports::tack::plugin0_2_0::editor as wit;
use crate::error::PluginError;

/// The most lines of an editor shown.
const MAX_EDITOR_LINES: usize = 12;
/// The most bytes of a submitted prompt: as much as a plugin may put in tack's editor.
const MAX_SUBMITTED_BYTES: usize = 64 << 10;

/// What a plugin's editor shows, and what a key submitted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditorView {
    pub lines: Vec<String>,
    pub submitted: Option<String>,
}

/// What the editor is asked.
enum Ask {
    View,
    Key(String),
    Paste(String),
}

impl LoadedPlugin {
    /// Whether the plugin exports `editor`. A deferred plugin not compiled yet may have it.
    pub fn edits(&self) -> bool {
        self.code
            .get()
            .is_none_or(|linked| linked.editor_indices.is_some())
    }

    /// The editor at `width` columns, with no key.
    pub async fn editor_view(&self, width: u16) -> Result<EditorView, PluginError> {
        self.ask_editor(Ask::View, width).await
    }

    /// A key typed in the editor (named as a component's keys), and the editor after it.
    pub async fn editor_key(&self, key: &str, width: u16) -> Result<EditorView, PluginError> {
        self.ask_editor(Ask::Key(key.to_string()), width).await
    }

    /// Text pasted into the editor, and the editor after it.
    pub async fn editor_paste(&self, text: &str, width: u16) -> Result<EditorView, PluginError> {
        self.ask_editor(Ask::Paste(text.to_string()), width).await
    }

    async fn ask_editor(&self, ask: Ask, width: u16) -> Result<EditorView, PluginError> {
        if !self.env.capabilities.components || !self.edits() {
            return Err(PluginError::Guest {
                plugin: self.name().to_string(),
                call: "editor".into(),
                message:
                    "it has no editor to show (the `editor` export and the `components` grant)"
                        .into(),
            });
        }
        let width = u32::from(width);
        let view = self
            .with_instance(
                "editor",
                CallSetup::plain(self.limits().hook),
                move |store, _, optional| {
                    Box::pin(async move {
                        let Some(editor) = &optional.editor else {
                            return Ok(None);
                        };
                        let view = match &ask {
                            Ask::View => editor.call_view(store, width).await?,
                            Ask::Key(key) => editor.call_key(store, key, width).await?,
                            Ask::Paste(text) => editor.call_paste(store, text, width).await?,
                        };
                        Ok(Some(view))
                    })
                },
            )
            .await?;
        let Some(view) = view else {
            return Ok(EditorView::default());
        };
        Ok(shown(view))
    }
}

/// What the terminal may show of a view, and what of its text may be sent.
fn shown(view: wit::EditorView) -> EditorView {
    let lines = super::renderers::shown_lines(view.lines, MAX_EDITOR_LINES);
    let submitted = view.submitted.map(|text| {
        let text = &text[..text.floor_char_boundary(MAX_SUBMITTED_BYTES)];
        let plain = tack_core::text::strip_styles(text);
        tack_core::text::neutralize_controls(&plain).into_owned()
    });
    EditorView { lines, submitted }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_keeps_colours_and_a_submission_is_plain_and_capped() {
        let view = shown(wit::EditorView {
            lines: vec![
                "\u{1b}[7m \u{1b}[27m INSERT".into(),
                "\u{1b}]0;title\u{7}".into(),
            ]
            .into_iter()
            .chain((0..40).map(|i| format!("line {i}")))
            .collect(),
            submitted: Some(format!(
                "\u{1b}[31mfix\u{1b}[0m it\u{7}{}",
                "x".repeat(70 << 10)
            )),
        });
        assert_eq!(view.lines.len(), MAX_EDITOR_LINES);
        assert_eq!(view.lines[0], "\u{1b}[7m \u{1b}[27m INSERT");
        assert_eq!(view.lines[1], "␛]0;title␇");
        let submitted = view.submitted.unwrap_or_default();
        assert!(submitted.starts_with("fix it␇x"), "{}", &submitted[..20]);
        assert!(submitted.len() <= MAX_SUBMITTED_BYTES + 8);
    }
}
