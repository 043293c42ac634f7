//! `/rewind` and RPC `rewind`: back to before one of the user's messages, restoring the files
//! from the checkpoint taken then (`crate::checkpoints`), the conversation (the `/tree` move to
//! the message's parent, its text back in the editor), or both. Files go first: when they
//! cannot be restored, the conversation stays where it is.

use anyhow::{bail, Context, Result};
use tack_core::message::Message;
use tack_core::session::EntryKind;
use tack_core::Agent;
#[cfg(test)]
use tack_protocol::SkippedFile;
use tack_protocol::{RewindMode, Rewound};
use tokio_util::sync::CancellationToken;

use crate::checkpoints::{skipped_file, Checkpoints};
use crate::commands::host::{move_to, resolve_entry};
use crate::sessions::clip;

/// Goes back to before user message `entry` (an id or a unique prefix).
pub async fn rewind(
    agent: &Agent,
    checkpoints: &Checkpoints,
    entry: &str,
    mode: RewindMode,
    cancel: CancellationToken,
) -> Result<Rewound> {
    let (session_id, entry_id, parent, text) = {
        let session = agent.session().lock();
        let entry_id = resolve_entry(&session, entry)?;
        let Some(found) = session.entry(&entry_id) else {
            bail!("no entry {entry:?} in this session");
        };
        let text = match &found.kind {
            EntryKind::Message(m) => match m.as_ref() {
                Message::User(user) => user.text_content(),
                _ => bail!("entry {entry_id} is not one of your messages (see /rewind)"),
            },
            _ => bail!("entry {entry_id} is not one of your messages (see /rewind)"),
        };
        (
            session.id().to_owned(),
            entry_id,
            found.parent_id.clone(),
            text,
        )
    };
    let restored = match mode {
        RewindMode::Conversation => None,
        RewindMode::Both | RewindMode::Code => Some(
            checkpoints
                .restore(&session_id, &entry_id)
                .await
                .with_context(|| format!("cannot restore the files of entry {entry_id}"))?,
        ),
    };
    let conversation = mode != RewindMode::Code;
    if conversation {
        move_to(agent, parent.as_deref(), cancel)
            .await
            .context("the files are restored, but the conversation could not move")?;
    }
    let restored = restored.unwrap_or_default();
    Ok(Rewound {
        mode,
        restored: restored.written,
        deleted: restored.deleted,
        skipped: restored.skipped.iter().map(skipped_file).collect(),
        moved_to: parent.filter(|_| conversation),
        text: conversation.then_some(text),
    })
}

/// What a rewind did, for the user.
pub fn describe(done: &Rewound, text: &str) -> String {
    let before = format!(
        "before \u{201c}{}\u{201d}",
        clip(&text.replace('\n', " "), 50)
    );
    let mut out = String::new();
    if done.mode != RewindMode::Conversation {
        let files = done.restored.len() + done.deleted.len();
        if files == 0 {
            out.push_str(&format!("The files were already as they were {before}."));
        } else {
            out.push_str(&format!(
                "Restored the files as they were {before}: {}.",
                list(&done.restored, &done.deleted)
            ));
        }
        for s in &done.skipped {
            out.push_str(&format!("\nNot restored: {} ({}).", s.path, s.reason));
        }
    }
    if done.mode != RewindMode::Code {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "The conversation is back {before}; its text is in the editor."
        ));
    }
    out
}

/// `a.rs, b.rs written; c.rs deleted`, cut after a few names.
pub fn list(written: &[String], deleted: &[String]) -> String {
    let names = |files: &[String]| {
        let mut shown: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
        let more = files.len().saturating_sub(shown.len());
        let more = format!("{more} more");
        if files.len() > 5 {
            shown.push(&more);
        }
        shown.join(", ")
    };
    let mut parts = Vec::new();
    if !written.is_empty() {
        parts.push(format!("{} written back", names(written)));
    }
    if !deleted.is_empty() {
        parts.push(format!("{} deleted", names(deleted)));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_the_files_and_what_moved() {
        let done = Rewound {
            mode: RewindMode::Both,
            restored: vec!["a.txt".into(), "gone.txt".into()],
            deleted: vec!["new.txt".into()],
            skipped: vec![SkippedFile {
                path: "big.bin".into(),
                size: 9_000_000,
                reason: "larger than the checkpoint size cap".into(),
            }],
            moved_to: Some("e0".into()),
            text: Some("make the change".into()),
        };
        insta::assert_snapshot!(describe(&done, "make the change"));
        let code = Rewound {
            mode: RewindMode::Code,
            restored: Vec::new(),
            deleted: Vec::new(),
            skipped: Vec::new(),
            moved_to: None,
            text: None,
        };
        insta::assert_snapshot!(describe(&code, "x"), @"The files were already as they were before “x”.");
    }
}
