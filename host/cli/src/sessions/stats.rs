//! What a session holds and cost: RPC's `get_session_stats` and the `/session` command.

use std::fmt::Write as _;

use tack_core::message::{Cost, Message};
use tack_core::session::{EntryKind, Session};
use tack_protocol::{SessionStats, TokenTotals};
use tack_runtime::children::{ChildUsage, TRANSCRIPT_ENTRY_TYPE, TRANSCRIPT_USAGE_FIELD};

/// Counts over every entry of the session file: abandoned branches cost tokens too.
pub fn of(session: &Session) -> SessionStats {
    count(session).stats
}

/// The counts, and the cost by kind of token: the session's own turns by category, sub-agents'
/// as one sum (their transcripts keep the total only).
struct Counted {
    stats: SessionStats,
    own_cost: Cost,
    subagent_cost: f64,
}

fn count(session: &Session) -> Counted {
    let mut own_cost = Cost::default();
    let mut subagent_cost = 0.0;
    let mut stats = SessionStats {
        session_id: session.id().to_string(),
        session_file: session.path().map(|p| p.display().to_string()),
        user_messages: 0,
        assistant_messages: 0,
        tool_calls: 0,
        tool_results: 0,
        total_messages: 0,
        tokens: TokenTotals::default(),
        cost: 0.0,
    };
    for entry in session.entries() {
        if let Some(child) = child_usage(&entry.kind) {
            // A sub-agent's turns cost as much as the parent's own: count them in.
            let t = &mut stats.tokens;
            t.input += child.input;
            t.output += child.output;
            t.cache_read += child.cache_read;
            t.cache_write += child.cache_write;
            stats.cost += child.cost;
            subagent_cost += child.cost;
            continue;
        }
        let EntryKind::Message(message) = &entry.kind else {
            continue;
        };
        stats.total_messages += 1;
        match message.as_ref() {
            Message::User(_) => stats.user_messages += 1,
            Message::Assistant(a) => {
                stats.assistant_messages += 1;
                stats.tool_calls += a.tool_calls().count();
                let t = &mut stats.tokens;
                t.input += a.usage.input;
                t.output += a.usage.output;
                t.cache_read += a.usage.cache_read;
                t.cache_write += a.usage.cache_write;
                stats.cost += a.usage.cost.total;
                own_cost += a.usage.cost;
            }
            Message::ToolResult(_) => stats.tool_results += 1,
            _ => {}
        }
    }
    let t = &mut stats.tokens;
    t.total = t.input + t.output + t.cache_read + t.cache_write;
    Counted {
        stats,
        own_cost,
        subagent_cost,
    }
}

/// What a sub-agent used, from the transcript entry the host wrote for it.
fn child_usage(kind: &EntryKind) -> Option<ChildUsage> {
    let EntryKind::Custom {
        custom_type, data, ..
    } = kind
    else {
        return None;
    };
    if custom_type != TRANSCRIPT_ENTRY_TYPE {
        return None;
    }
    serde_json::from_value(data.get(TRANSCRIPT_USAGE_FIELD)?.clone()).ok()
}

/// `/session`: the file, id, name, counts, tokens and cost, as markdown.
pub fn describe(session: &Session) -> String {
    let Counted {
        stats,
        own_cost,
        subagent_cost,
    } = count(session);
    let mut out = String::from("**Session**\n\n");
    let file = stats
        .session_file
        .as_deref()
        .unwrap_or("(in memory: --no-session)");
    let _ = writeln!(out, "- File: `{file}`");
    let _ = writeln!(out, "- Id: `{}`", stats.session_id);
    if let Some(name) = session.name() {
        let _ = writeln!(out, "- Name: {name}");
    }
    let _ = writeln!(
        out,
        "- Entries: {} ({} on the active branch)",
        session.entries().len(),
        session.branch().len()
    );
    let _ = writeln!(
        out,
        "- Messages: {} user, {} assistant, {} tool calls, {} tool results ({} in all)",
        stats.user_messages,
        stats.assistant_messages,
        stats.tool_calls,
        stats.tool_results,
        stats.total_messages
    );
    let t = &stats.tokens;
    let _ = writeln!(
        out,
        "- Tokens: {} input, {} output, {} cache read, {} cache write ({} in all)",
        t.input, t.output, t.cache_read, t.cache_write, t.total
    );
    let mut parts = vec![
        format!("input ${:.4}", own_cost.input),
        format!("output ${:.4}", own_cost.output),
        format!("cache read ${:.4}", own_cost.cache_read),
        format!("cache write ${:.4}", own_cost.cache_write),
    ];
    if subagent_cost > 0.0 {
        parts.push(format!("sub-agents ${subagent_cost:.4}"));
    }
    let _ = writeln!(out, "- Cost: ${:.4} ({})", stats.cost, parts.join(", "));
    out
}
