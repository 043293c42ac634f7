//! The host's own slash commands, handled before plugin commands: `/compact [focus]`,
//! `/tree [<id> [--summarize [focus]]]`, `/fork <id>`, `/clone`, `/name [text]`,
//! `/label <id> [text]` and `/resume`. Each returns the text to show the user.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde_json::json;
use tack_core::message::{AssistantMessage, Message, StopReason};
use tack_core::session::{Entry, EntryKind, Session, SessionStore};
use tack_core::Agent;
use tack_runtime::bridge::PluginHooks;
use tack_runtime::children::TRANSCRIPT_ENTRY_TYPE;
use tokio_util::sync::CancellationToken;

use crate::sessions::{clip, format_list, short_id};

/// The `customType` of the entry that records a `/tree` move without a summary, so that the
/// next run (which continues from the file's last entry) starts where the user moved.
const TREE_MOVE_CUSTOM_TYPE: &str = "tack-tree";

/// Runs `text` if it is a host command (`None` otherwise, and for unknown `/words`).
pub async fn run(
    agent: &Agent,
    hooks: &PluginHooks,
    store: &SessionStore,
    cwd: &Path,
    text: &str,
    cancel: CancellationToken,
) -> Option<Result<String>> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let args = args.trim();
    Some(match name {
        "compact" => compact(agent, args, cancel).await,
        "tree" => tree(agent, hooks, args, cancel).await,
        "fork" => fork(agent, hooks, store, args).await,
        "clone" => clone(agent, hooks, store).await,
        "name" => name_session(agent, args),
        "label" => label(agent, args),
        "resume" => resume(agent, store, cwd),
        "export" => export(agent, cwd, args),
        "session" => Ok(crate::sessions::stats::describe(&agent.session().lock())),
        _ => return None,
    })
}

async fn compact(agent: &Agent, focus: &str, cancel: CancellationToken) -> Result<String> {
    let focus = (!focus.is_empty()).then_some(focus);
    let done = agent.compact(focus, cancel).await?;
    Ok(format!(
        "Compacted the conversation from ~{} to ~{} tokens{}.\n\n{}",
        done.tokens_before,
        done.tokens_after,
        if done.from_hook {
            " (summary from a plugin)"
        } else {
            ""
        },
        done.summary
    ))
}

async fn tree(
    agent: &Agent,
    hooks: &PluginHooks,
    args: &str,
    cancel: CancellationToken,
) -> Result<String> {
    let mut words = args.split_whitespace();
    let Some(target) = words.next() else {
        return Ok(render_tree(&agent.session().lock()));
    };
    let rest: Vec<&str> = words.collect();
    let summarize = matches!(rest.first(), Some(&"--summarize" | &"-s"));
    if !summarize && !rest.is_empty() {
        bail!("usage: /tree [<entry-id> [--summarize [focus]]]");
    }
    let focus = rest.get(1..).map(|f| f.join(" ")).filter(|f| !f.is_empty());
    let target = resolve_entry(&agent.session().lock(), target)?;
    let moved = agent
        .navigate(&target, summarize, focus.as_deref(), cancel)
        .await?;
    let summary_entry = moved.summary_entry_id.as_ref().and_then(|id| {
        agent
            .session()
            .lock()
            .entry(id)
            .map(tack_core::session::Entry::to_json)
    });
    hooks
        .announce(
            "session_tree",
            json!({
                "newLeafId": moved.to,
                "oldLeafId": moved.from,
                "summaryEntry": summary_entry,
                "fromExtension": false,
            }),
        )
        .await;
    let mut session = agent.session().lock();
    let mut out = format!("Moved to {}.", moved.to);
    match &moved.summary_entry_id {
        Some(id) => {
            if let Some(EntryKind::BranchSummary { summary, .. }) =
                session.entry(id).map(|e| &e.kind)
            {
                out.push_str(&format!(
                    " The branch left is summarized in entry {id}:\n\n{summary}"
                ));
            }
        }
        None => {
            if session.is_persistent() {
                session.append(EntryKind::Custom {
                    custom_type: TREE_MOVE_CUSTOM_TYPE.into(),
                    data: json!({ "from": moved.from, "to": moved.to }),
                    owner: None,
                })?;
            }
            if summarize {
                out.push_str(" (Nothing to summarize: the branch left has no messages.)");
            }
        }
    }
    Ok(out)
}

/// Moves the conversation to `target` (to before the first entry with `None`) with no summary,
/// recording the move as `/tree` does; for `/rewind`.
pub(crate) async fn move_to(
    agent: &Agent,
    target: Option<&str>,
    cancel: CancellationToken,
) -> Result<()> {
    let from = agent.session().lock().leaf_id().map(str::to_owned);
    match target {
        Some(target) => {
            agent.navigate(target, false, None, cancel).await?;
        }
        None => agent.session().lock().set_leaf(None)?,
    }
    let mut session = agent.session().lock();
    if session.is_persistent() {
        session.append(EntryKind::Custom {
            custom_type: TREE_MOVE_CUSTOM_TYPE.into(),
            data: json!({ "from": from, "to": target }),
            owner: None,
        })?;
    }
    Ok(())
}

async fn fork(
    agent: &Agent,
    hooks: &PluginHooks,
    store: &SessionStore,
    args: &str,
) -> Result<String> {
    if args.is_empty() {
        bail!("usage: /fork <entry-id> (see /tree for the ids)");
    }
    let target = resolve_entry(&agent.session().lock(), args)?;
    // The fork keeps `target`, as `/clone` keeps the leaf.
    hooks.before_fork(&target, true).await?;
    fork_at(store, &agent.session().lock(), &target)
}

async fn clone(agent: &Agent, hooks: &PluginHooks, store: &SessionStore) -> Result<String> {
    let leaf = agent
        .session()
        .lock()
        .leaf_id()
        .ok_or_else(|| anyhow!("the session is empty: nothing to clone"))?
        .to_owned();
    hooks.before_fork(&leaf, true).await?;
    fork_at(store, &agent.session().lock(), &leaf)
}

fn fork_at(store: &SessionStore, session: &Session, entry_id: &str) -> Result<String> {
    if !session.is_persistent() {
        bail!("this session lives in memory (--no-session): there is no file to fork");
    }
    let fork = store.fork(session, entry_id)?;
    Ok(format!(
        "Forked at {entry_id} into session {}\n  {}\nContinue it with: tack -r {}",
        fork.id(),
        fork.path()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        short_id(fork.id())
    ))
}

fn export(agent: &Agent, cwd: &Path, output: &str) -> Result<String> {
    let session = agent.session().lock();
    let output = (!output.is_empty()).then(|| Path::new(output));
    let path = crate::sessions::export::export(&session, output, cwd)?;
    Ok(format!("Exported the session to {}", path.display()))
}

fn name_session(agent: &Agent, name: &str) -> Result<String> {
    let mut session = agent.session().lock();
    if name.is_empty() {
        return Ok(match session.name() {
            Some(name) => format!("The session is named {name:?}."),
            None => "The session has no name; set one with /name <text>.".into(),
        });
    }
    session.append(EntryKind::SessionInfo {
        name: Some(name.to_owned()),
    })?;
    Ok(format!("Session named {name:?}."))
}

fn label(agent: &Agent, args: &str) -> Result<String> {
    let (target, text) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
    if target.is_empty() {
        bail!("usage: /label <entry-id> [text] (no text clears the label)");
    }
    let mut session = agent.session().lock();
    let target = resolve_entry(&session, target)?;
    let text = text.trim();
    session.append(EntryKind::Label {
        target_id: target.clone(),
        label: (!text.is_empty()).then(|| text.to_owned()),
    })?;
    Ok(if text.is_empty() {
        format!("Label of {target} cleared.")
    } else {
        format!("Labelled {target} {text:?}.")
    })
}

fn resume(agent: &Agent, store: &SessionStore, cwd: &Path) -> Result<String> {
    let sessions = store.list(cwd)?;
    if sessions.is_empty() {
        return Ok("No saved sessions in this directory.".into());
    }
    let current = agent.session().lock().id().to_owned();
    Ok(format!(
        "{}Continue one with: tack -r <id>",
        format_list(&sessions, Some(&current), false)
    ))
}

/// An entry id, or a prefix of exactly one.
pub(crate) fn resolve_entry(session: &Session, arg: &str) -> Result<String> {
    if session.entry(arg).is_some() {
        return Ok(arg.to_owned());
    }
    let matching: Vec<&str> = session
        .entries()
        .iter()
        .map(|e| e.id.as_str())
        .filter(|id| id.starts_with(arg))
        .collect();
    match matching[..] {
        [one] => Ok(one.to_owned()),
        [] => bail!("no entry {arg:?} in this session (see /tree)"),
        _ => bail!("{arg:?} matches several entries: {}", matching.join(", ")),
    }
}

/// The whole tree: `*` marks the active branch, `<- leaf` the current position; nesting grows
/// where the conversation branched.
pub fn render_tree(session: &Session) -> String {
    let rows = session.outline();
    if rows.is_empty() {
        return "The session is empty.".into();
    }
    let mut out = String::new();
    for row in rows {
        let (kind, text) = describe(row.entry);
        out.push(if row.on_branch { '*' } else { ' ' });
        out.push(' ');
        out.push_str(&"  ".repeat(row.depth));
        out.push_str(&format!("{} {kind}", row.entry.id));
        if !text.is_empty() {
            out.push_str(&format!(": {}", clip(&text, 72)));
        }
        if let Some(label) = row.label {
            out.push_str(&format!("  [{label}]"));
        }
        if row.is_leaf {
            out.push_str("  <- leaf");
        }
        out.push('\n');
    }
    out
}

/// A short kind and the first line of what an entry holds.
pub(crate) fn describe(entry: &Entry) -> (String, String) {
    let first_line = |text: &str| {
        text.lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    match &entry.kind {
        EntryKind::Message(message) => match &**message {
            Message::User(m) => ("user".into(), first_line(&m.text_content())),
            Message::Assistant(m) => ("assistant".into(), assistant_line(m, first_line)),
            Message::ToolResult(m) => {
                let text = m
                    .content
                    .iter()
                    .find_map(|c| match c {
                        tack_core::message::Content::Text(t) => Some(first_line(&t.text)),
                        _ => None,
                    })
                    .unwrap_or_default();
                let kind = if m.is_error {
                    "tool error"
                } else {
                    "tool result"
                };
                (kind.into(), format!("{} {text}", m.tool_name))
            }
            Message::Custom(m) => (
                match &m.plugin {
                    Some(plugin) => format!("custom {} from plugin {plugin}", m.custom_type),
                    None => format!("custom {}", m.custom_type),
                },
                first_line(&m.content),
            ),
            Message::BranchSummary(m) => ("branch summary".into(), first_line(&m.summary)),
            Message::CompactionSummary(m) => ("compaction".into(), first_line(&m.summary)),
        },
        EntryKind::ModelChange { provider, model_id } => {
            ("model".into(), format!("{provider}/{model_id}"))
        }
        EntryKind::ThinkingLevelChange { thinking_level } => {
            ("thinking".into(), thinking_level.clone())
        }
        EntryKind::Compaction {
            summary,
            tokens_before,
            ..
        } => (
            "compaction".into(),
            format!("({tokens_before} tokens before) {}", first_line(summary)),
        ),
        EntryKind::BranchSummary { summary, .. } => ("branch summary".into(), first_line(summary)),
        EntryKind::Custom {
            custom_type,
            owner,
            data,
        } if custom_type == TRANSCRIPT_ENTRY_TYPE => (
            match owner {
                Some(owner) => format!("sub-agent run of plugin {owner}"),
                None => "sub-agent run".into(),
            },
            child_line(data, first_line),
        ),
        EntryKind::Custom {
            custom_type, owner, ..
        } => (
            match owner {
                Some(owner) => format!("state {custom_type} of plugin {owner}"),
                None => format!("state {custom_type}"),
            },
            String::new(),
        ),
        EntryKind::CustomMessage {
            custom_type,
            content,
            ..
        } => (format!("custom {custom_type}"), first_line(content)),
        EntryKind::Label { target_id, label } => (
            "label".into(),
            match label {
                Some(label) => format!("{target_id} = {label:?}"),
                None => format!("{target_id} cleared"),
            },
        ),
        EntryKind::SessionInfo { name } => ("name".into(), name.clone().unwrap_or_default()),
        EntryKind::Unknown(unknown) => (unknown.entry_type.clone(), String::new()),
    }
}

/// A sub-agent's run in a line: its task, how it ended, its size and the start of its answer.
fn child_line(data: &serde_json::Value, first_line: impl Fn(&str) -> String) -> String {
    let text = |key: &str| {
        data.get(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    };
    let turns = data
        .get("usage")
        .and_then(|u| u.get("turns"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    let messages = data
        .get("messages")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    let mut line = format!(
        "{} · {} · {turns} turns, {messages} messages",
        first_line(text("description")),
        text("status")
    );
    let answer = first_line(text("text"));
    if !answer.is_empty() {
        line.push_str(&format!(" · {answer}"));
    }
    line
}

fn assistant_line(m: &AssistantMessage, first_line: impl Fn(&str) -> String) -> String {
    let text = first_line(&m.text_content());
    let calls: Vec<&str> = m.tool_calls().map(|c| c.name.as_str()).collect();
    let mut line = text;
    if !calls.is_empty() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&format!("[calls {}]", calls.join(", ")));
    }
    if m.stop_reason == StopReason::Error {
        line = format!(
            "(failed: {}) {line}",
            m.error_message.as_deref().unwrap_or("error")
        );
    }
    line
}
