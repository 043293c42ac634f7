//! Snapshots of every view state, drawn over ratatui's TestBackend: the welcome screen, a
//! finished conversation (markdown, code, thinking, tool cards, a diff, an error), a run in
//! progress with its queue, plugin status and widgets, expanded output, each dialog, completion
//! popups, pickers, a narrow terminal and a scrolled view. Colour is checked apart: snapshots
//! hold the text.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

mod support;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use support::*;
use tack_core::event::{NoticeLevel, UiRequest};
use tack_tui::{
    Action, App, CommandInfo, DialogAnswer, DialogRequest, Display, Picker, PickerEdit, PickerItem,
    PickerKind, PickerView, PluginDrawing, RenderQuery, Theme, UiEvent,
};
use tokio::sync::oneshot;

use std::sync::Arc;
use tack_core::event::AgentEvent;
use tack_core::message::{Message, StopReason, ToolResult};

fn key(app: &mut App, code: KeyCode) {
    app.handle_event(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn ctrl(app: &mut App, c: char) {
    app.handle_event(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The actions the user's keys asked for; laying blocks out also asks their plugins to draw
/// them (`Action::Render`).
fn user_actions(app: &mut App) -> Vec<Action> {
    app.take_actions()
        .into_iter()
        .filter(|action| !matches!(action, Action::Render { .. }))
        .collect()
}

fn snapshot(app: &mut App, width: u16, height: u16) -> String {
    let terminal = draw(app, width, height);
    format!("{}", terminal.backend())
}

fn finished() -> App {
    let mut app = app();
    app.apply(UiEvent::Transcript(conversation()));
    app
}

fn running() -> App {
    let mut app = app();
    for event in streaming_events() {
        app.apply(UiEvent::Agent(event));
    }
    app
}

fn dialog(app: &mut App, kind: UiRequest) -> oneshot::Receiver<DialogAnswer> {
    let (reply, answer) = oneshot::channel();
    app.apply(UiEvent::Dialog(DialogRequest {
        id: "d1".into(),
        plugin: "permission-gate".into(),
        kind,
        reply,
        masked: false,
    }));
    answer
}

fn commands() -> Vec<CommandInfo> {
    let host = |name: &str, description: &str| CommandInfo {
        name: name.into(),
        description: description.into(),
        plugin: None,
    };
    vec![
        host("model", "Pick the model"),
        host("compact", "Summarize the older conversation now"),
        host("tree", "Move to another point of the session tree"),
        CommandInfo {
            name: "todos".into(),
            description: "Show the todo list".into(),
            plugin: Some("todo".into()),
        },
        CommandInfo {
            name: "plan".into(),
            description: "Plan mode on or off".into(),
            plugin: Some("plan-mode".into()),
        },
    ]
}

#[test]
fn welcome() {
    insta::assert_snapshot!(snapshot(&mut app(), 80, 16));
}

#[test]
fn finished_conversation() {
    insta::assert_snapshot!(snapshot(&mut finished(), 80, 60));
}

#[test]
fn expanded_tools_and_thinking() {
    let mut app = finished();
    ctrl(&mut app, 'o');
    ctrl(&mut app, 't');
    // The end of the transcript: the full test output, the diff and the answer.
    insta::assert_snapshot!(snapshot(&mut app, 80, 50));
}

#[test]
fn run_in_progress_with_queue_status_and_widgets() {
    let mut app = running();
    app.apply(UiEvent::Status {
        plugin: "plan-mode".into(),
        key: "mode".into(),
        text: Some("plan mode".into()),
    });
    app.apply(UiEvent::Widget {
        plugin: "todo".into(),
        key: "list".into(),
        lines: vec!["☐ fix the parser".into(), "☑ write the test".into()],
        below: false,
    });
    app.apply(UiEvent::Notify {
        plugin: "todo".into(),
        level: NoticeLevel::Warn,
        message: "2 todos left".into(),
    });
    type_text(&mut app, "also check the");
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
}

/// `tack:plugin/screen` (0.2.0): a widget below the editor as well as one above it, as Pi's
/// `widget-placement.ts` sets them.
#[test]
fn widgets_above_and_below_the_editor() {
    let mut app = running();
    for (key, text, below) in [
        ("widget-above", "Above editor widget", false),
        ("widget-below", "Below editor widget", true),
    ] {
        app.apply(UiEvent::Widget {
            plugin: "pi-widget-placement".into(),
            key: key.into(),
            lines: vec![text.into()],
            below,
        });
    }
    insta::assert_snapshot!(snapshot(&mut app, 60, 16));
}

#[test]
fn confirm_dialog() {
    let mut app = running();
    let answer = dialog(
        &mut app,
        UiRequest::Confirm {
            title: "Execute the plan?".into(),
            message: "1. Read README.md\n2. Summarize it".into(),
            timeout_ms: None,
        },
    );
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(answer.blocking_recv(), Ok(DialogAnswer::Confirmed(true)));
}

#[test]
fn keys_typed_just_before_a_dialog_do_not_answer_it() {
    let mut app = running();
    app.set_dialog_guard(std::time::Duration::from_secs(3600));
    let mut answer = dialog(
        &mut app,
        UiRequest::Select {
            title: "Allow bash rm -r build?".into(),
            options: vec!["Allow once".into(), "Deny".into()],
            timeout_ms: None,
        },
    );
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('1'));
    assert!(answer.try_recv().is_err(), "typeahead answered the dialog");
    key(&mut app, KeyCode::Esc);
    assert_eq!(answer.blocking_recv(), Ok(DialogAnswer::Cancelled));
}

#[test]
fn select_dialog() {
    let mut app = running();
    let answer = dialog(
        &mut app,
        UiRequest::Select {
            title: "Allow bash rm -r build?".into(),
            options: vec![
                "Allow once".into(),
                "Always allow for this project".into(),
                "Deny".into(),
            ],
            timeout_ms: None,
        },
    );
    key(&mut app, KeyCode::Down);
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
    key(&mut app, KeyCode::Enter);
    assert_eq!(answer.blocking_recv(), Ok(DialogAnswer::Selected(1)));
}

#[test]
fn input_dialog() {
    let mut app = running();
    let answer = dialog(
        &mut app,
        UiRequest::Input {
            title: "Name the branch".into(),
            placeholder: "feature/…".into(),
            timeout_ms: None,
        },
    );
    type_text(&mut app, "fix/eof");
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        answer.blocking_recv(),
        Ok(DialogAnswer::Text("fix/eof".into()))
    );
}

#[test]
fn slash_completion() {
    let mut app = finished();
    app.apply(UiEvent::Commands(commands()));
    type_text(&mut app, "/");
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
    type_text(&mut app, "pl");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        user_actions(&mut app),
        [Action::Command {
            name: "plan".into(),
            args: String::new()
        }]
    );
}

#[test]
fn file_completion() {
    let mut app = finished();
    app.apply(UiEvent::Files(vec![
        "Cargo.toml".into(),
        "src/main.rs".into(),
        "src/parse.rs".into(),
        "tests/parse.rs".into(),
    ]));
    type_text(&mut app, "look at @pars");
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.editor_text(), "look at @src/parse.rs ");
}

fn picker(kind: PickerKind, title: &str, labels: &[(&str, &str)], selected: usize) -> UiEvent {
    UiEvent::Picker(Picker {
        kind,
        title: title.into(),
        items: labels
            .iter()
            .map(|(label, detail)| PickerItem {
                label: label.to_string(),
                detail: detail.to_string(),
                value: label.trim().to_string(),
                ..Default::default()
            })
            .collect(),
        selected,
        ..Default::default()
    })
}

#[test]
fn model_picker() {
    let mut app = finished();
    app.apply(picker(
        PickerKind::Model,
        "Model",
        &[
            (
                "anthropic/claude-sonnet-4-5",
                "Claude Sonnet 4.5 · 200k context · thinking",
            ),
            (
                "anthropic/claude-haiku-4-5",
                "Claude Haiku 4.5 · 200k context",
            ),
            (
                "openai/gpt-5",
                "GPT-5 · 400k context · thinking · no API key",
            ),
            ("demo/demo-1", "Demo (offline) · 32k context"),
        ],
        0,
    ));
    type_text(&mut app, "claude");
    key(&mut app, KeyCode::Down);
    insta::assert_snapshot!(snapshot(&mut app, 80, 20));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        user_actions(&mut app),
        [Action::Picked {
            kind: PickerKind::Model,
            value: "anthropic/claude-haiku-4-5".into()
        }]
    );
}

#[test]
fn tree_picker() {
    let mut app = finished();
    app.apply(picker(
        PickerKind::Tree,
        "Session tree: move to an entry",
        &[
            ("* user: Why does the parser lose the last line?", "a1"),
            (
                "* assistant: Let me look at the parser. [calls read, bash]",
                "a2",
            ),
            ("    user: try another approach", "b1"),
            ("    assistant: Another way.", "b2"),
            ("*   tool result: read line", "a3"),
            ("*   assistant: ## Findings  ← here", "a4"),
        ],
        5,
    ));
    insta::assert_snapshot!(snapshot(&mut app, 80, 20));
}

fn tree_with_views() -> UiEvent {
    let item = |label: &str, value: &str, tags: u32, depth: usize| PickerItem {
        label: label.into(),
        detail: value.into(),
        value: value.into(),
        tags,
        depth,
    };
    UiEvent::Picker(Picker {
        kind: PickerKind::Tree,
        title: "Session tree".into(),
        items: vec![
            item(
                "* user: Why does the parser lose the last line?",
                "a1",
                1,
                0,
            ),
            item("* assistant: Let me look.", "a2", 0, 0),
            item("    user: try another approach  [retry]", "b1", 3, 1),
            item("    assistant: Another way.", "b2", 0, 1),
            item("*   user: read it again", "a3", 1, 1),
            item("*   assistant: ## Findings  ← here", "a4", 0, 1),
        ],
        selected: 5,
        views: vec![
            PickerView {
                name: "all".into(),
                tags: 0,
            },
            PickerView {
                name: "your messages".into(),
                tags: 1,
            },
            PickerView {
                name: "labelled".into(),
                tags: 2,
            },
        ],
        view: 0,
        editable: false,
        notice: None,
    })
}

/// Left folds the subtree under the selected entry; Tab steps to the next view.
#[test]
fn tree_picker_folds_and_views() {
    let mut app = finished();
    app.apply(tree_with_views());
    // Up to the assistant entry where the branches part, and fold what is under it.
    for _ in 0..4 {
        key(&mut app, KeyCode::Up);
    }
    key(&mut app, KeyCode::Left);
    insta::assert_snapshot!("tree_picker_folded", snapshot(&mut app, 80, 16));
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Tab);
    insta::assert_snapshot!("tree_picker_your_messages", snapshot(&mut app, 80, 16));
    key(&mut app, KeyCode::Tab);
    insta::assert_snapshot!("tree_picker_labelled", snapshot(&mut app, 80, 16));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        user_actions(&mut app),
        vec![Action::Picked {
            kind: PickerKind::Tree,
            value: "b1".into()
        }]
    );
}

/// Ctrl+R asks for a name in the picker's bottom line; Enter sends the rename and the picker
/// stays open for the program to send again.
#[test]
fn session_picker_renames_and_deletes() {
    let mut app = finished();
    let item = |label: &str, value: &str, tags: u32| PickerItem {
        label: label.into(),
        detail: format!("{value} · 2026-11-30 10:00"),
        value: value.into(),
        tags,
        depth: 0,
    };
    app.apply(UiEvent::Picker(Picker {
        kind: PickerKind::Session,
        title: "Resume a session".into(),
        items: vec![
            item("* fix the parser", "/s/1.jsonl", 1),
            item("  add a flag", "/s/2.jsonl", 1),
            item("  another project", "/s/3.jsonl", 0),
        ],
        selected: 0,
        views: vec![
            PickerView {
                name: "this folder".into(),
                tags: 1,
            },
            PickerView {
                name: "all folders".into(),
                tags: 0,
            },
        ],
        view: 0,
        editable: true,
        notice: None,
    }));
    insta::assert_snapshot!("session_picker_this_folder", snapshot(&mut app, 80, 14));
    key(&mut app, KeyCode::Down);
    ctrl(&mut app, 'r');
    type_text(&mut app, "flags");
    insta::assert_snapshot!("session_picker_renaming", snapshot(&mut app, 80, 14));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        user_actions(&mut app),
        vec![Action::PickerEdit {
            kind: PickerKind::Session,
            value: "/s/2.jsonl".into(),
            edit: PickerEdit::Rename("flags".into()),
        }]
    );
    ctrl(&mut app, 'd');
    insta::assert_snapshot!("session_picker_confirm_delete", snapshot(&mut app, 80, 14));
    ctrl(&mut app, 'd');
    assert_eq!(
        user_actions(&mut app),
        vec![Action::PickerEdit {
            kind: PickerKind::Session,
            value: "/s/2.jsonl".into(),
            edit: PickerEdit::Delete,
        }]
    );
}

/// A user message with an image: its size, and a thumbnail of half blocks when images show,
/// the size alone when they do not; the editor padded on both sides.
#[test]
fn an_image_in_the_transcript_and_a_padded_editor() {
    // A 4×2 picture: red on the left half, blue on the right.
    let png: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xf0,
        0xca, 0xea, 0x34, 0x00, 0x00, 0x00, 0x13, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8,
        0xcf, 0xc0, 0x00, 0x44, 0x60, 0xe2, 0x3f, 0x03, 0x32, 0x07, 0x00, 0x67, 0xb2, 0x07, 0xf9,
        0xf7, 0x92, 0x56, 0x82, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60,
        0x82,
    ];
    let message = tack_core::message::Message::User(tack_core::message::UserMessage {
        content: vec![
            tack_core::message::Content::text("[image 1] what is this?"),
            tack_core::message::Content::Image(tack_core::message::ImageContent {
                data: base64::Engine::encode(&base64::engine::general_purpose::STANDARD, png),
                mime_type: "image/png".into(),
            }),
        ],
        timestamp: 0,
    });
    let mut app = app();
    app.apply(UiEvent::Transcript(vec![std::sync::Arc::new(message)]));
    app.apply(UiEvent::Display(Display {
        show_images: true,
        editor_padding: 2,
    }));
    type_text(&mut app, "padded");
    let terminal = draw(&mut app, 40, 12);
    let buffer = terminal.backend().buffer();
    let cell = buffer
        .content()
        .iter()
        .find(|c| c.symbol() == "▀")
        .expect("a thumbnail cell");
    assert_eq!(cell.fg, Color::Rgb(255, 0, 0), "the left half is red");
    insta::assert_snapshot!("image_shown", format!("{}", terminal.backend()));
    app.apply(UiEvent::Display(Display {
        show_images: false,
        editor_padding: 0,
    }));
    insta::assert_snapshot!("image_hidden", snapshot(&mut app, 40, 12));
}

#[test]
fn narrow_terminal() {
    let mut app = running();
    insta::assert_snapshot!(snapshot(&mut app, 30, 14));
    // Too small for anything but the transcript and the editor: still no panic.
    snapshot(&mut app, 8, 4);
    snapshot(&mut app, 1, 1);
}

#[test]
fn scrolled_up() {
    let mut app = finished();
    key(&mut app, KeyCode::PageUp);
    let first = snapshot(&mut app, 80, 20);
    key(&mut app, KeyCode::PageUp);
    insta::assert_snapshot!(snapshot(&mut app, 80, 20));
    assert_ne!(first, snapshot(&mut app, 80, 20));
}

#[test]
fn quit_takes_two_ctrl_c() {
    let mut app = finished();
    ctrl(&mut app, 'c');
    insta::assert_snapshot!(snapshot(&mut app, 80, 10));
    assert!(!app.should_quit());
    ctrl(&mut app, 'c');
    assert!(app.should_quit());
    assert_eq!(user_actions(&mut app), [Action::Quit]);
}

#[test]
fn keys_while_running_steer_follow_up_and_abort() {
    let mut app = running();
    type_text(&mut app, "steer me");
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, "later");
    app.handle_event(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT)));
    key(&mut app, KeyCode::Esc);
    assert_eq!(
        user_actions(&mut app),
        [
            Action::Steer("steer me".into()),
            Action::FollowUp("later".into()),
            Action::Abort
        ]
    );
    app.handle_event(Event::Paste("line one\r\nline two".into()));
    assert_eq!(app.editor_text(), "line one\nline two");
}

#[test]
fn no_color_mode_draws_no_colour() {
    let mut app = App::new(Theme::plain());
    app.apply(UiEvent::Transcript(conversation()));
    let terminal = draw(&mut app, 80, 60);
    let buffer = terminal.backend().buffer();
    for cell in buffer.content() {
        assert_eq!(cell.fg, Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, Color::Reset, "{cell:?}");
    }
    // The colour theme does colour the same screen.
    let mut app = finished();
    let terminal = draw(&mut app, 80, 60);
    assert!(terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .any(|c| c.fg != Color::Reset));
}

#[test]
fn a_scrolled_view_holds_while_output_arrives() {
    let mut app = finished();
    key(&mut app, KeyCode::PageUp);
    let before = snapshot(&mut app, 80, 20);
    for event in streaming_events() {
        app.apply(UiEvent::Agent(event));
    }
    let after = snapshot(&mut app, 80, 20);
    let transcript = |s: &str| s.lines().take(12).collect::<Vec<_>>().join("\n");
    assert_eq!(transcript(&before), transcript(&after));
    // Ctrl+End follows the end again, where the new output is.
    app.handle_event(Event::Key(KeyEvent::new(
        KeyCode::End,
        KeyModifiers::CONTROL,
    )));
    assert!(snapshot(&mut app, 80, 20).contains("test three ... ok"));
}

/// What plugins did to the conversation is visible: a call whose arguments a hook changed says
/// who changed them, and a message a plugin added says which plugin, even a hidden one.
#[test]
fn plugin_changes_are_attributed() {
    let mut app = app();
    let assistant = assistant(
        vec![call("r1", "bash", serde_json::json!({"command": "ls"}))],
        StopReason::ToolUse,
    );
    app.apply(UiEvent::Transcript(vec![
        user("list the files"),
        Arc::new(Message::Assistant(assistant)),
        Arc::new(Message::from_plugin(
            "reminders",
            "note",
            "Remember the deadline.",
            true,
        )),
        Arc::new(Message::from_plugin(
            "hidden-helper",
            "context",
            "secret context",
            false,
        )),
    ]));
    app.apply(UiEvent::Agent(AgentEvent::ToolExecutionStart {
        tool_call_id: "r1".into(),
        tool_name: "bash".into(),
        args: serde_json::json!({"command": "ls -la"}),
        rewritten_by: vec!["safe-ls".into()],
    }));
    insta::assert_snapshot!(snapshot(&mut app, 80, 20));
}

/// The `subagent` details the host streams as a child's progress.
fn child_progress(
    id: &str,
    description: &str,
    calls: &[(&str, &str, &str)],
    said: &str,
) -> AgentEvent {
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, summary, state))| {
            serde_json::json!({"id": format!("{id}-{i}"), "tool": tool, "summary": summary, "state": state})
        })
        .collect();
    let turns = calls.len() as u64 + 1;
    let mut partial = ToolResult::text(format!("{} calls", calls.len()));
    partial.details = Some(serde_json::json!({
        "subagent": {
            "description": description,
            "calls": calls,
            "earlierCalls": 0,
            "said": said,
            "usage": {"input": 4000 * turns, "output": 150 * turns, "cacheRead": 0,
                      "cacheWrite": 0, "cost": 0.0, "turns": turns, "toolCalls": calls.len()},
            "elapsedMs": 2300 * turns,
        }
    }));
    AgentEvent::ToolExecutionUpdate {
        tool_call_id: id.into(),
        tool_name: "task".into(),
        partial,
    }
}

/// Two sub-agents started by one assistant message, both running: one on the `explorer`
/// agent three calls in, one general agent just started.
fn two_children() -> App {
    let mut app = app();
    let tasks = assistant(
        vec![
            text("I'll split this between two sub-agents."),
            call(
                "t1",
                "task",
                serde_json::json!({"description": "Find the config loader", "agent": "explorer",
                                   "prompt": "Where is the config loaded?"}),
            ),
            call(
                "t2",
                "task",
                serde_json::json!({"description": "Check the tests", "prompt": "Run the tests"}),
            ),
        ],
        StopReason::ToolUse,
    );
    app.apply(UiEvent::Transcript(vec![
        user("where is the config loaded, and do the tests pass?"),
        Arc::new(Message::Assistant(tasks)),
    ]));
    for (id, args) in [
        (
            "t1",
            serde_json::json!({"description": "Find the config loader", "agent": "explorer",
                               "prompt": "Where is the config loaded?"}),
        ),
        (
            "t2",
            serde_json::json!({"description": "Check the tests", "prompt": "Run the tests"}),
        ),
    ] {
        app.apply(UiEvent::Agent(AgentEvent::ToolExecutionStart {
            tool_call_id: id.into(),
            tool_name: "task".into(),
            args,
            rewritten_by: Vec::new(),
        }));
    }
    app.apply(UiEvent::Agent(child_progress(
        "t1",
        "Find the config loader",
        &[
            ("grep", "load_config  in src", "done"),
            ("read", "src/config.rs", "done"),
            ("read", "src/main.rs", "running"),
        ],
        "The loader is in src/config.rs; checking who calls it.",
    )));
    app.apply(UiEvent::Agent(child_progress(
        "t2",
        "Check the tests",
        &[("bash", "cargo test", "running")],
        "",
    )));
    app
}

#[test]
fn subagents_running_collapsed() {
    // Ctrl+O off (the default): each child is its card's header and one summary line naming
    // its latest call.
    insta::assert_snapshot!(snapshot(&mut two_children(), 80, 20));
}

#[test]
fn subagents_running_expanded() {
    let mut app = two_children();
    ctrl(&mut app, 'o');
    insta::assert_snapshot!(snapshot(&mut app, 80, 24));
}

fn finished_child() -> App {
    let mut app = two_children();
    let mut last = child_progress(
        "t1",
        "Find the config loader",
        &[
            ("grep", "load_config  in src", "done"),
            ("read", "src/config.rs", "done"),
            ("read", "src/main.rs", "error"),
        ],
        "`Config::load` in **src/config.rs**, called from `main`.",
    );
    if let AgentEvent::ToolExecutionUpdate { partial, .. } = &mut last {
        if let Some(run) = partial.details.as_mut().and_then(|d| d.get_mut("subagent")) {
            run["status"] = "completed".into();
        }
    }
    app.apply(UiEvent::Agent(last));
    app.apply(UiEvent::Agent(AgentEvent::ToolExecutionEnd {
        tool_call_id: "t1".into(),
        tool_name: "task".into(),
        result: ToolResult {
            content: vec![tack_core::message::Content::text(
                "`Config::load` in **src/config.rs**, called from `main`.",
            )],
            details: Some(serde_json::json!({
                "subagent": {
                    "description": "Find the config loader", "agent": "explorer",
                    "status": "completed", "model": "anthropic/claude-haiku-4-5",
                    "usage": {"input": 16000, "output": 600, "cacheRead": 0, "cacheWrite": 0,
                              "cost": 0.02, "turns": 4, "toolCalls": 3},
                }
            })),
            is_error: false,
        },
        is_error: false,
    }));
    app
}

#[test]
fn subagent_finished_collapsed() {
    insta::assert_snapshot!(snapshot(&mut finished_child(), 80, 20));
}

#[test]
fn subagent_finished_expanded() {
    let mut app = finished_child();
    ctrl(&mut app, 'o');
    insta::assert_snapshot!(snapshot(&mut app, 80, 26));
}

/// A plugin's drawings of its own blocks (`tack:plugin/renderers`): the UI asks for each block
/// it lays out that a plugin may draw, once per change and width, and shows the answer inside
/// its own frame (the icon and the tool's name, the message's type and sender).
#[test]
fn blocks_drawn_by_their_plugins() {
    let mut app = app();
    let mut messages = vec![
        user("Add a todo"),
        Arc::new(Message::Assistant(assistant(
            vec![call(
                "t1",
                "todo",
                serde_json::json!({"action": "add", "text": "write tests"}),
            )],
            StopReason::ToolUse,
        ))),
        result(
            "t1",
            "todo",
            "Added todo #1",
            Some(serde_json::json!({"id": 1})),
            false,
        ),
    ];
    messages.push(Arc::new(Message::from_plugin(
        "status",
        "status-update",
        "disk almost full",
        true,
    )));
    app.apply(UiEvent::Transcript(messages));
    draw(&mut app, 60, 16);
    let asked: Vec<_> = app
        .take_actions()
        .into_iter()
        .filter_map(|action| match action {
            Action::Render {
                key,
                columns,
                query,
            } => Some((key, columns, query)),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    for (key, columns, query) in asked {
        let drawing = match query {
            RenderQuery::Tool { tool, result, .. } => {
                assert_eq!(tool, "todo");
                assert_eq!(columns, 56);
                assert!(result.is_some_and(|r| !r.partial && r.details.is_some()));
                PluginDrawing {
                    heading: Some(vec!["todo add \"write tests\"".into()]),
                    body: Some(vec!["✓ Added #1 write tests".into()]),
                }
            }
            RenderQuery::Message {
                plugin,
                custom_type,
                ..
            } => {
                assert_eq!(
                    (plugin.as_str(), custom_type.as_str()),
                    ("status", "status-update")
                );
                PluginDrawing {
                    heading: None,
                    body: Some(vec!["[WARN] disk almost full".into(), "  at 12:00".into()]),
                }
            }
        };
        app.apply(UiEvent::Rendered {
            key,
            drawing: Some(drawing),
            never: false,
        });
    }
    insta::assert_snapshot!(snapshot(&mut app, 60, 16));
    // Drawn once: the same width asks nothing again.
    assert!(app.take_actions().is_empty());
}

/// A plugin's widget keeps the colours its SGR sequences ask for (Pi's `theme.fg`), parsed by
/// the UI: the text shows without them, coloured, and nothing else in the line is obeyed.
#[test]
fn widget_lines_keep_their_colours() {
    let mut app = running();
    app.apply(UiEvent::Widget {
        plugin: "pi-status".into(),
        key: "status".into(),
        lines: vec!["\u{1b}[32m✓ ready\u{1b}[39m and ␛[2J plain".into()],
        below: false,
    });
    let terminal = draw(&mut app, 60, 16);
    let screen = format!("{}", terminal.backend());
    assert!(screen.contains("✓ ready and ␛[2J plain"), "{screen}");
    let buffer = terminal.backend().buffer();
    let tick = buffer
        .content()
        .iter()
        .find(|c| c.symbol() == "✓")
        .expect("the widget's tick");
    assert_eq!(tick.fg, Color::Green);
    let plain = buffer
        .content()
        .iter()
        .find(|c| c.symbol() == "␛")
        .expect("the neutralised escape");
    assert_eq!(plain.fg, Color::Reset);
}
