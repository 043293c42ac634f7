//! A session as one self-contained HTML page (inline style and script, images as data URIs,
//! nothing fetched): RPC's `export_html`, and what `/export` writes.
//!
//! The page shows the whole tree, depth first: each entry indented under its parent, the active
//! branch marked and abandoned branches dimmed, so a reader sees where the conversation forked.
//! Messages show their text, thinking (folded), tool calls with their arguments and tool results.
//! A sub-agent's run shows what it was asked, how it ended, and its own transcript (folded).
//! Clicking an entry (or opening the page at `#e<id>`) selects the branch path from the root to
//! it: those entries are highlighted, the rest fade.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;
use tack_core::message::{AssistantContent, Content, Message};
use tack_core::session::{Entry, EntryKind, Session};
use tack_runtime::children::TRANSCRIPT_ENTRY_TYPE;

const STYLE: &str = "
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#222}
h1{font-size:1.4em}.meta{color:#666;font-size:.9em}
.entry{border-left:3px solid #ccc;margin:.6em 0;padding:.3em .8em}
.entry.active{border-color:#2a6}.entry.off{opacity:.55}
.role{font-weight:bold;font-size:.85em;text-transform:uppercase;color:#555}
.id{color:#999;font-size:.8em;font-family:monospace}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.5em;margin:.3em 0}
.tool{background:#eef4ff}.error pre{background:#fde8e8}
details{margin:.3em 0}summary{cursor:pointer;color:#666}
img{max-width:100%}
.child{border-left:2px dashed #aac;margin:.3em 0 .3em .5em;padding-left:.6em}
.child .msg{margin:.4em 0}
.entry{cursor:pointer}body.picked .entry{opacity:.35}body.picked .entry.path{opacity:1;border-color:#e80;background:#fff8ee}
";

/// Selects the path from the root to the clicked entry (or the one the URL's hash names).
const SCRIPT: &str = "
function pick(id){var e=document.getElementById(id);if(!e)return;
document.querySelectorAll('.entry.path').forEach(function(x){x.classList.remove('path')});
document.body.classList.add('picked');
while(e){e.classList.add('path');var p=e.getAttribute('data-parent');e=p?document.getElementById('e'+p):null}}
document.addEventListener('click',function(ev){var e=ev.target.closest('.entry');
if(e&&!ev.target.closest('summary')){history.replaceState(null,'','#'+e.id);pick(e.id)}});
if(location.hash)pick(location.hash.slice(1));
";

/// The page for `session`.
pub fn render(session: &Session) -> String {
    let active: HashSet<&str> = session.branch().iter().map(|e| e.id.as_str()).collect();
    let mut children: HashMap<Option<&str>, Vec<&Entry>> = HashMap::new();
    for entry in session.entries() {
        children
            .entry(entry.parent_id.as_deref())
            .or_default()
            .push(entry);
    }
    let title = session.name().unwrap_or("tack session").to_string();
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n\
         <p class=\"meta\">session {} · {} · {} entries</p>\n",
        escape(&title),
        escape(&title),
        escape(session.id()),
        escape(&session.header().cwd),
        session.entries().len(),
    );
    // Depth first from the roots; a stack instead of recursion, since a long conversation is a
    // deep chain.
    let mut stack: Vec<(&Entry, usize)> = children
        .get(&None)
        .map(|roots| roots.iter().rev().map(|e| (*e, 0)).collect())
        .unwrap_or_default();
    while let Some((entry, depth)) = stack.pop() {
        render_entry(&mut page, entry, depth, active.contains(entry.id.as_str()));
        if let Some(kids) = children.get(&Some(entry.id.as_str())) {
            // A fork shows deeper than the line it left; a plain chain stays at its depth.
            let next = if kids.len() > 1 { depth + 1 } else { depth };
            stack.extend(kids.iter().rev().map(|e| (*e, next)));
        }
    }
    let _ = write!(page, "<script>{SCRIPT}</script>\n</body></html>\n");
    page
}

/// Writes the page to `output` (or beside the session file, or in `cwd` for an in-memory
/// session) and returns where.
pub fn write(session: &Session, output: Option<&Path>, cwd: &Path) -> Result<PathBuf> {
    let path = match output {
        Some(path) if path.is_absolute() => path.to_path_buf(),
        Some(path) => cwd.join(path),
        None => match session.path() {
            Some(file) => file.with_extension("html"),
            None => cwd.join(format!("tack-session-{}.html", session.id())),
        },
    };
    std::fs::write(&path, render(session))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

fn render_entry(page: &mut String, entry: &Entry, depth: usize, active: bool) {
    let class = if active { "entry active" } else { "entry off" };
    let _ = write!(
        page,
        "<div class=\"{class}\" id=\"e{id}\" data-parent=\"{parent}\" \
         style=\"margin-left:{indent}em\"><span class=\"id\">{id}</span> ",
        id = escape(&entry.id),
        parent = escape(entry.parent_id.as_deref().unwrap_or("")),
        indent = depth * 2,
    );
    match &entry.kind {
        EntryKind::Message(message) => render_message(page, message),
        EntryKind::ModelChange { provider, model_id } => {
            let _ = write!(
                page,
                "<span class=\"role\">model</span> {}/{}",
                escape(provider),
                escape(model_id)
            );
        }
        EntryKind::ThinkingLevelChange { thinking_level } => {
            let _ = write!(
                page,
                "<span class=\"role\">thinking</span> {}",
                escape(thinking_level)
            );
        }
        EntryKind::Compaction {
            summary,
            tokens_before,
            ..
        } => {
            let _ = write!(
                page,
                "<span class=\"role\">compaction</span> (the context was ~{tokens_before} \
                 tokens)<pre>{}</pre>",
                escape(summary)
            );
        }
        EntryKind::BranchSummary { summary, .. } => {
            let _ = write!(
                page,
                "<span class=\"role\">branch summary</span><pre>{}</pre>",
                escape(summary)
            );
        }
        EntryKind::CustomMessage {
            custom_type,
            content,
            ..
        } => {
            let _ = write!(
                page,
                "<span class=\"role\">{}</span><pre>{}</pre>",
                escape(custom_type),
                escape(content)
            );
        }
        EntryKind::Custom {
            custom_type,
            data,
            owner,
        } if custom_type == TRANSCRIPT_ENTRY_TYPE => render_child(page, data, owner.as_deref()),
        EntryKind::Custom { custom_type, .. } => {
            let _ = write!(
                page,
                "<span class=\"role\">state</span> {}",
                escape(custom_type)
            );
        }
        EntryKind::Label { target_id, label } => {
            let _ = write!(
                page,
                "<span class=\"role\">label</span> {} → {}",
                escape(target_id),
                escape(label.as_deref().unwrap_or("(cleared)"))
            );
        }
        EntryKind::SessionInfo { name } => {
            let _ = write!(
                page,
                "<span class=\"role\">name</span> {}",
                escape(name.as_deref().unwrap_or("(cleared)"))
            );
        }
        EntryKind::Unknown(_) => page.push_str("<span class=\"role\">unknown entry</span>"),
    }
    page.push_str("</div>\n");
}

/// A sub-agent's run (the host's `subagent-run` entry): what it was asked, how it ended and
/// what it used, and its transcript folded beneath, each message as the page shows the
/// parent's.
fn render_child(page: &mut String, data: &Value, owner: Option<&str>) {
    let text = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or_default();
    let count = |key: &str| {
        data.get("usage")
            .and_then(|u| u.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let _ = write!(
        page,
        "<span class=\"role\">sub-agent</span> {} <span class=\"id\">{}{} · {} · {} · {} · \
         {} tokens</span><div class=\"child\">",
        escape(text("description")),
        owner
            .map(|o| format!("plugin {} · ", escape(o)))
            .unwrap_or_default(),
        escape(text("model")),
        escape(text("status")),
        plural(count("turns"), "turn"),
        plural(count("toolCalls"), "tool call"),
        ["input", "output", "cacheRead", "cacheWrite"]
            .iter()
            .map(|k| count(k))
            .sum::<u64>(),
    );
    if !text("error").is_empty() {
        let _ = write!(
            page,
            "<div class=\"error\"><pre>{}</pre></div>",
            escape(text("error"))
        );
    }
    let messages = data
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let omitted = data
        .get("omittedMessages")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let _ = write!(
        page,
        "<details><summary>transcript: {} message{}{}</summary>",
        messages.len(),
        if messages.len() == 1 { "" } else { "s" },
        if omitted > 0 {
            format!(" ({omitted} earlier ones left out for size)")
        } else {
            String::new()
        }
    );
    if messages.is_empty() && !text("prompt").is_empty() {
        let _ = write!(
            page,
            "<div class=\"msg\"><span class=\"role\">prompt</span><pre>{}</pre></div>",
            escape(text("prompt"))
        );
    }
    for message in messages {
        page.push_str("<div class=\"msg\">");
        match serde_json::from_value::<Message>(message.clone()) {
            Ok(message) => render_message(page, &message),
            Err(e) => {
                let _ = write!(
                    page,
                    "<span class=\"role\">unreadable message</span> {}",
                    escape(&e.to_string())
                );
            }
        }
        page.push_str("</div>");
    }
    page.push_str("</details>");
    if !text("text").is_empty() {
        let _ = write!(
            page,
            "<span class=\"role\">answer</span><pre>{}</pre>",
            escape(text("text"))
        );
    }
    page.push_str("</div>");
}

fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn render_message(page: &mut String, message: &Message) {
    match message {
        Message::User(user) => {
            page.push_str("<span class=\"role\">user</span>");
            render_content(page, &user.content);
        }
        Message::Assistant(assistant) => {
            let _ = write!(
                page,
                "<span class=\"role\">assistant</span> <span class=\"id\">{}/{}</span>",
                escape(&assistant.provider),
                escape(&assistant.model)
            );
            for block in &assistant.content {
                match block {
                    AssistantContent::Text(text) => {
                        let _ = write!(page, "<pre>{}</pre>", escape(&text.text));
                    }
                    AssistantContent::Thinking(thinking) => {
                        let _ = write!(
                            page,
                            "<details><summary>thinking</summary><pre>{}</pre></details>",
                            escape(&thinking.thinking)
                        );
                    }
                    AssistantContent::ToolCall(call) => {
                        let args = serde_json::to_string_pretty(&call.arguments)
                            .unwrap_or_else(|_| call.arguments.to_string());
                        let _ = write!(
                            page,
                            "<div class=\"tool\">→ {} <span class=\"id\">{}</span>\
                             <pre>{}</pre></div>",
                            escape(&call.name),
                            escape(&call.id),
                            escape(&args)
                        );
                    }
                }
            }
            if let Some(error) = &assistant.error_message {
                let _ = write!(
                    page,
                    "<div class=\"error\"><pre>{}</pre></div>",
                    escape(error)
                );
            }
        }
        Message::ToolResult(result) => {
            let class = if result.is_error { "error" } else { "tool" };
            let _ = write!(
                page,
                "<span class=\"role\">{} result</span> <span class=\"id\">{}</span>\
                 <div class=\"{class}\">",
                escape(&result.tool_name),
                escape(&result.tool_call_id)
            );
            render_content(page, &result.content);
            page.push_str("</div>");
        }
        Message::Custom(custom) => {
            let _ = write!(
                page,
                "<span class=\"role\">{}</span><pre>{}</pre>",
                escape(&custom.custom_type),
                escape(&custom.content)
            );
        }
        Message::BranchSummary(summary) => {
            let _ = write!(
                page,
                "<span class=\"role\">branch summary</span><pre>{}</pre>",
                escape(&summary.summary)
            );
        }
        Message::CompactionSummary(summary) => {
            let _ = write!(
                page,
                "<span class=\"role\">compaction summary</span><pre>{}</pre>",
                escape(&summary.summary)
            );
        }
    }
}

fn render_content(page: &mut String, content: &[Content]) {
    for block in content {
        match block {
            Content::Text(text) => {
                let _ = write!(page, "<pre>{}</pre>", escape(&text.text));
            }
            Content::Image(image) => {
                let _ = write!(
                    page,
                    "<img alt=\"image\" src=\"data:{};base64,{}\">",
                    escape(&image.mime_type),
                    escape(&image.data)
                );
            }
        }
    }
}

/// Text made safe for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_core::message::{AssistantMessage, StopReason, TextContent, ToolCall, Usage};

    fn assistant(content: Vec<AssistantContent>) -> Message {
        Message::Assistant(AssistantMessage {
            content,
            provider: "demo".into(),
            model: "demo-1".into(),
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            error_message: None,
            timestamp: 0,
        })
    }

    #[test]
    fn the_page_shows_the_tree_tool_calls_and_escapes_text() {
        let mut session = Session::in_memory(Path::new("/w"));
        session
            .append_message(Message::user("first <b>question</b>"))
            .expect("append");
        let first = session.leaf_id().expect("leaf").to_string();
        session
            .append_message(assistant(vec![
                AssistantContent::Thinking(tack_core::message::ThinkingContent {
                    thinking: "pondering".into(),
                    signature: None,
                }),
                AssistantContent::ToolCall(ToolCall {
                    id: "call-1".into(),
                    name: "read".into(),
                    arguments: json!({"path": "README.md"}),
                }),
            ]))
            .expect("append");
        session.set_leaf(Some(&first)).expect("back to the first");
        session
            .append_message(assistant(vec![AssistantContent::Text(TextContent {
                text: "a second answer".into(),
            })]))
            .expect("append");

        let page = render(&session);
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("first &lt;b&gt;question&lt;/b&gt;"));
        assert!(page.contains("<summary>thinking</summary><pre>pondering</pre>"));
        assert!(page.contains("→ read"));
        assert!(page.contains("&quot;path&quot;: &quot;README.md&quot;"));
        assert!(page.contains("a second answer"));
        // The abandoned branch is dimmed and indented under the fork; the active one is marked.
        assert_eq!(page.matches("class=\"entry off\"").count(), 1);
        assert_eq!(page.matches("class=\"entry active\"").count(), 2);
        assert!(page.contains("margin-left:2em"));
        // Nothing is fetched: the one script is inline, no element loads a resource.
        assert_eq!(page.matches("<script").count(), 1);
        assert!(!page.contains("<script src") && !page.contains("<link"));
    }
}
