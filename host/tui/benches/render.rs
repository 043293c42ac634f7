//! Frame render time over a 10k-message session: the first frame after loading it (only the
//! blocks on screen are laid out), a frame with warm caches, a frame while the last message
//! streams, a frame after typing one key (only the editor changes), and paging up through the
//! scrollback.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

#[path = "../tests/support.rs"]
mod support;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tack_core::event::{AgentEvent, MessageDelta};
use tack_core::message::{Message, StopReason};
use tack_tui::{App, UiEvent};

const MESSAGES: usize = 10_000;

fn loaded(messages: &[Arc<Message>]) -> App {
    let mut app = support::app();
    app.apply(UiEvent::Transcript(messages.to_vec()));
    app
}

fn frames(c: &mut Criterion) {
    let messages = support::many_messages(MESSAGES);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");

    c.bench_function("load 10k messages + first frame", |b| {
        b.iter_batched(
            || messages.clone(),
            |messages| {
                let mut app = support::app();
                app.apply(UiEvent::Transcript(messages));
                terminal.draw(|f| app.render(f)).expect("draw");
                black_box(app)
            },
            BatchSize::LargeInput,
        )
    });

    let mut app = loaded(&messages);
    c.bench_function("frame, 10k messages, warm", |b| {
        b.iter(|| terminal.draw(|f| app.render(f)).expect("draw").area)
    });

    // A streaming delta changes the last block: only it is laid out again.
    let mut app = loaded(&messages);
    let mut text = String::from(support::ANSWER);
    c.bench_function("frame, 10k messages, streaming delta", |b| {
        b.iter(|| {
            text.push_str(" more");
            let message = Arc::new(Message::Assistant(support::assistant(
                vec![support::text(&text)],
                StopReason::Stop,
            )));
            app.apply(UiEvent::Agent(AgentEvent::MessageUpdate {
                message,
                delta: MessageDelta::TextDelta {
                    content_index: 0,
                    delta: " more".into(),
                },
            }));
            terminal.draw(|f| app.render(f)).expect("draw").area
        })
    });

    // A key typed in the editor changes the editor alone; the transcript's lines are reused.
    let mut app = loaded(&messages);
    let key = Event::Key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE));
    let backspace = Event::Key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
    let mut typed = false;
    c.bench_function("type one key + frame, 10k messages", |b| {
        b.iter(|| {
            // Typing and erasing in turn keeps every frame the same size.
            typed = !typed;
            app.handle_event(if typed {
                key.clone()
            } else {
                backspace.clone()
            });
            terminal.draw(|f| app.render(f)).expect("draw").area
        })
    });

    // Paging up lays out each block once; later frames reuse the cache.
    let mut app = loaded(&messages);
    let page_up = Event::Key(KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE));
    c.bench_function("page up + frame, 10k messages", |b| {
        b.iter(|| {
            app.handle_event(page_up.clone());
            terminal.draw(|f| app.render(f)).expect("draw").area
        })
    });
}

criterion_group!(benches, frames);
criterion_main!(benches);
