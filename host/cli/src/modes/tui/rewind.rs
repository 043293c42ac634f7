//! `/rewind` in the terminal UI: a picker of the user messages with a file checkpoint (newest
//! first, with the files a restore would change), then what to restore; `/rewind <id>
//! [--both|--conversation|--code]` does it directly.

use anyhow::{bail, Result};
use tack_core::message::Message;
use tack_core::session::EntryKind;
use tack_protocol::RewindMode;
use tack_tui::{Picker, PickerItem, PickerKind, UiEvent};

use super::controller::Controller;
use crate::checkpoints::Point;
use crate::commands::rewind::{describe, list};
use crate::modes::driver::BusyKind;
use crate::sessions::clip;

impl Controller {
    pub(super) async fn rewind_picker(&self) -> Result<Picker> {
        let work = self.occupy(BusyKind::HostCommand).await?;
        let points = self.driver.checkpoints.points(&self.front.session).await;
        self.release(&work);
        let points = points?;
        if points.is_empty() {
            bail!("no file checkpoints in this session yet: one is taken before each prompt");
        }
        Ok(points_picker(&points))
    }

    /// A message chosen: what to restore is asked next.
    pub(super) fn rewind_chosen(&self, entry_id: &str) -> Result<Option<String>> {
        let text = self.user_text(entry_id)?;
        self.send(UiEvent::Picker(mode_picker(entry_id, &text)));
        Ok(None)
    }

    /// `/rewind <id> [--both|--conversation|--code]`.
    pub(super) async fn rewind(&self, args: &str) -> Result<Option<String>> {
        let mut words = args.split_whitespace();
        let (Some(entry), flag, None) = (words.next(), words.next(), words.next()) else {
            bail!("usage: /rewind [<entry-id> [--both|--conversation|--code]]");
        };
        let mode = match flag {
            None | Some("--both") => RewindMode::Both,
            Some("--conversation") => RewindMode::Conversation,
            Some("--code") => RewindMode::Code,
            Some(other) => bail!("unknown {other:?}: say --both, --conversation or --code"),
        };
        let work = self.occupy(BusyKind::HostCommand).await?;
        let done = crate::commands::rewind::rewind(
            &self.front.agent,
            &self.driver.checkpoints,
            entry,
            mode,
            work.cancel.clone(),
        )
        .await;
        self.release(&work);
        let done = done?;
        let text = done.text.clone();
        if let Some(text) = &text {
            self.send(UiEvent::Transcript(self.front.session.lock().project()));
            self.send(UiEvent::EditorText(text.clone()));
        }
        let shown = match &text {
            Some(text) => text.clone(),
            None => self.user_text(entry).unwrap_or_default(),
        };
        Ok(Some(describe(&done, &shown)))
    }

    fn user_text(&self, entry: &str) -> Result<String> {
        let session = self.front.session.lock();
        let id = crate::commands::host::resolve_entry(&session, entry)?;
        match session.entry(&id).map(|e| &e.kind) {
            Some(EntryKind::Message(m)) => match m.as_ref() {
                Message::User(u) => Ok(u.text_content()),
                _ => bail!("entry {id} is not one of your messages"),
            },
            _ => bail!("entry {id} is not one of your messages"),
        }
    }
}

fn points_picker(points: &[Point]) -> Picker {
    let items = points
        .iter()
        .map(|p| {
            let detail = if p.plan.is_empty() {
                "files unchanged since".to_owned()
            } else {
                list(&p.plan.write, &p.plan.delete)
            };
            PickerItem {
                label: clip(&p.text.replace('\n', " "), 60),
                detail,
                value: p.entry_id.clone(),
                ..Default::default()
            }
        })
        .collect();
    Picker {
        kind: PickerKind::Rewind,
        title: "Rewind: go back to before a prompt (newest first)".into(),
        items,
        selected: 0,
        ..Default::default()
    }
}

fn mode_picker(entry_id: &str, text: &str) -> Picker {
    let item = |label: &str, detail: &str, flag: &str| PickerItem {
        label: label.into(),
        detail: detail.into(),
        value: format!("{entry_id} {flag}"),
        ..Default::default()
    };
    Picker {
        kind: PickerKind::RewindMode,
        title: format!(
            "Rewind to before \u{201c}{}\u{201d}: restore what?",
            clip(&text.replace('\n', " "), 40)
        ),
        items: vec![
            item(
                "Code and conversation",
                "files as they were, and the prompt back in the editor",
                "--both",
            ),
            item(
                "Conversation only",
                "the prompt back in the editor; files stay as they are",
                "--conversation",
            ),
            item(
                "Code only",
                "files as they were; the conversation stays",
                "--code",
            ),
        ],
        selected: 0,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_checkpoints::Plan;

    fn show(picker: &Picker) -> String {
        let mut out = format!("{}\n", picker.title);
        for item in &picker.items {
            out.push_str(&format!(
                "{}  ·  {}  ->  {}\n",
                item.label, item.detail, item.value
            ));
        }
        out
    }

    #[test]
    fn the_pickers_list_prompts_with_their_files_then_the_choices() {
        let point = |id: &str, text: &str, write: &[&str], delete: &[&str]| Point {
            entry_id: id.into(),
            text: text.into(),
            at: 0,
            plan: Plan {
                write: write.iter().map(|s| s.to_string()).collect(),
                delete: delete.iter().map(|s| s.to_string()).collect(),
                skipped: Vec::new(),
            },
        };
        let points = [
            point("e3", "add a test\nand run it", &[], &[]),
            point("e2", "fix the bug", &["src/a.rs"], &["notes.txt"]),
            point("e1", "refactor", &["a", "b", "c", "d", "e", "f", "g"], &[]),
        ];
        insta::assert_snapshot!(show(&points_picker(&points)));
        insta::assert_snapshot!(show(&mode_picker("e2", "fix the bug")));
    }
}
