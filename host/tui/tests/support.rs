//! Building UI states for the snapshot tests and the render benchmark.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.
#![allow(dead_code)]

use std::sync::Arc;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use tack_core::event::{AgentEvent, MessageDelta};
use tack_core::message::{
    AssistantContent, AssistantMessage, Content, Message, StopReason, TextContent, ThinkingContent,
    ToolCall, ToolResult, ToolResultMessage, Usage,
};
use tack_tui::{App, FooterInfo, Theme, UiEvent};

pub fn app() -> App {
    let mut app = App::new(Theme::colored());
    // These tests answer dialogs in the same instant they open them.
    app.set_dialog_guard(std::time::Duration::ZERO);
    app.apply(UiEvent::Footer(FooterInfo {
        model: "anthropic/claude-sonnet-4-5".into(),
        thinking: Some("off".into()),
        cwd: "~/src/project".into(),
        git_branch: Some("main".into()),
        context_window: 200_000,
        session_name: None,
    }));
    app
}

pub fn draw(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal.draw(|f| app.render(f)).expect("draw");
    terminal
}

pub fn user(text: &str) -> Arc<Message> {
    Arc::new(Message::user(text))
}

pub fn assistant(content: Vec<AssistantContent>, stop: StopReason) -> AssistantMessage {
    AssistantMessage {
        content,
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        usage: Usage {
            input: 12_000,
            output: 800,
            cache_read: 0,
            cache_write: 0,
            cost: tack_core::message::Cost {
                total: 0.048,
                ..Default::default()
            },
        },
        stop_reason: stop,
        error_message: None,
        timestamp: 0,
    }
}

pub fn text(t: &str) -> AssistantContent {
    AssistantContent::Text(TextContent { text: t.into() })
}

pub fn thinking(t: &str) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: t.into(),
        signature: None,
    })
}

pub fn call(id: &str, name: &str, args: serde_json::Value) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args,
    })
}

pub fn result(
    id: &str,
    name: &str,
    text: &str,
    details: Option<serde_json::Value>,
    error: bool,
) -> Arc<Message> {
    Arc::new(Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content: vec![Content::text(text)],
        details,
        is_error: error,
        timestamp: 0,
        rewrite: None,
    }))
}

pub const ANSWER: &str = "## Findings\n\nThe parser **drops** the last line when the file has no \
trailing newline. Two fixes:\n\n1. Flush the buffer at EOF.\n2. Add a test with `no_newline.txt`.\n\n\
```rust\nfn flush(&mut self) -> Option<Line> {\n    self.buf.take().map(Line::from)\n}\n```\n\n> Quoted note.";

/// A finished exchange: prompt, thinking, text, tool calls with results (a diff, an error).
pub fn conversation() -> Vec<Arc<Message>> {
    let diff = "--- a/src/parse.rs\n+++ b/src/parse.rs\n@@ -10,3 +10,4 @@\n fn finish(&mut self) {\n-    self.lines.pop();\n+    if let Some(l) = self.flush() {\n+        self.lines.push(l);\n+    }\n }\n";
    vec![
        user("Why does the parser lose the last line?"),
        Arc::new(Message::Assistant(assistant(
            vec![
                thinking("The user reports a lost line.\nCheck EOF handling."),
                text("Let me look at the parser."),
                call("c1", "read", json!({"path": "src/parse.rs"})),
                call("c2", "bash", json!({"command": "cargo test -p parser"})),
            ],
            StopReason::ToolUse,
        ))),
        result("c1", "read", &"line\n".repeat(120), None, false),
        result(
            "c2",
            "bash",
            "running 3 tests\ntest a ... ok\ntest b ... ok\ntest eof ... FAILED\nfailures:\n  eof: left 2, right 3\nerror: test failed\nexit code 101",
            None,
            true,
        ),
        Arc::new(Message::Assistant(assistant(
            vec![
                text("Fixing it."),
                call("c3", "edit", json!({"path": "src/parse.rs", "old_text": "x", "new_text": "y"})),
            ],
            StopReason::ToolUse,
        ))),
        result("c3", "edit", "Edited src/parse.rs", Some(json!({ "diff": diff })), false),
        Arc::new(Message::Assistant(assistant(vec![text(ANSWER)], StopReason::Stop))),
    ]
}

/// Events of a run in progress: streaming text, a running command with output, a queued
/// steering message.
pub fn streaming_events() -> Vec<AgentEvent> {
    let partial = |content: Vec<AssistantContent>| {
        Arc::new(Message::Assistant(assistant(content, StopReason::Stop)))
    };
    let done = Arc::new(Message::Assistant(assistant(
        vec![
            text("Running the tests."),
            call("r1", "bash", json!({"command": "cargo test"})),
        ],
        StopReason::ToolUse,
    )));
    vec![
        AgentEvent::AgentStart,
        AgentEvent::TurnStart {
            turn_index: 0,
            timestamp: 0,
        },
        AgentEvent::MessageStart { message: user("run the tests") },
        AgentEvent::MessageStart { message: partial(vec![]) },
        AgentEvent::MessageUpdate {
            message: partial(vec![text("Running the tests.")]),
            delta: MessageDelta::TextDelta { content_index: 0, delta: "Running the tests.".into() },
        },
        AgentEvent::MessageEnd { message: done },
        AgentEvent::ToolExecutionStart {
            tool_call_id: "r1".into(),
            tool_name: "bash".into(),
            args: json!({"command": "cargo test"}),
            rewritten_by: Vec::new(),
        },
        AgentEvent::ToolExecutionUpdate {
            tool_call_id: "r1".into(),
            tool_name: "bash".into(),
            partial: ToolResult::text("   Compiling parser v0.1.0\n   Compiling app v0.1.0\n    Finished test\n     Running unittests\nrunning 12 tests\ntest one ... ok\ntest two ... ok\ntest three ... ok"),
        },
        AgentEvent::QueueUpdate {
            steering: vec!["also check the docs".into()],
            follow_up: vec!["then commit".into()],
        },
    ]
}

/// `n` messages of mixed kinds, for the scrollback benchmark.
pub fn many_messages(n: usize) -> Vec<Arc<Message>> {
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while out.len() < n {
        out.push(user(&format!(
            "Question {i}: what does module {i} do, and is it tested?"
        )));
        out.push(Arc::new(Message::Assistant(assistant(
            vec![
                text(ANSWER),
                call(
                    &format!("b{i}"),
                    "bash",
                    json!({"command": format!("cargo test -p m{i}")}),
                ),
            ],
            StopReason::ToolUse,
        ))));
        out.push(result(
            &format!("b{i}"),
            "bash",
            &"test ... ok\n".repeat(20),
            None,
            false,
        ));
        i += 1;
    }
    out.truncate(n);
    out
}
