//! The conversation as the UI shows it: blocks built from agent events (streaming included) or
//! from a session's messages, each with its rendered lines cached per width.

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::text::Line;
use serde_json::Value;
use tack_core::event::{AgentEvent, MessageDelta, NoticeLevel};
use tack_core::message::{
    AssistantContent, AssistantMessage, Content, Message, StopReason, ToolResult,
};

use crate::render::image::Thumbnail;

mod child;

pub use child::{ChildCall, ChildRun};

/// One thing in the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    User {
        text: String,
        /// The images attached to the message.
        images: Vec<Arc<Thumbnail>>,
    },
    Assistant(AssistantBlock),
    Tool(ToolCard),
    /// A plugin's message, or a compaction or branch summary.
    Custom {
        label: String,
        text: String,
        /// The plugin that sent it, when it is shown and that plugin may draw it.
        source: Option<CustomSource>,
    },
    Notice {
        level: NoticeLevel,
        text: String,
    },
    /// Output of a command, as markdown.
    Info(String),
}

/// A plugin's shown message, as that plugin's renderer is asked to draw it.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomSource {
    pub plugin: String,
    pub custom_type: String,
    pub details: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssistantBlock {
    pub text: String,
    pub thinking: String,
    pub streaming: bool,
    pub error: Option<String>,
    pub aborted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCard {
    pub id: String,
    pub name: String,
    pub args: Value,
    /// The arguments' JSON as it streams in, before the call is complete.
    pub args_text: String,
    pub state: ToolState,
    /// Progress while running, the result when done.
    pub output: String,
    /// A unified diff from the result's details (edits).
    pub diff: Option<String>,
    /// The details of the result, or of the latest progress.
    pub details: Option<Value>,
    /// Plugins whose before-tool-call hooks changed the model's arguments into `args`.
    pub rewritten_by: Vec<String>,
    /// Images the tool returned.
    pub images: Vec<Arc<Thumbnail>>,
    /// The sub-agent this call started, drawn as a nested card (boxed: most calls start none).
    pub child: Option<Box<ChildRun>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolState {
    /// The model is still writing the call, or it waits for its turn in the batch.
    Pending,
    Running,
    Done,
    Failed,
}

/// A block and its rendered lines.
#[derive(Debug)]
pub struct Item {
    pub block: Block,
    /// Lines for a width and view options; cleared when the block changes.
    pub cache: Option<Rendered>,
    /// What its plugin drew for it, and what it was asked.
    pub drawn: Drawn,
}

impl Item {
    /// What a plugin would draw this block from: a tool's call once its arguments are whole
    /// (with what it returned so far), or a plugin's shown message; `None` for a block only tack
    /// draws.
    pub fn render_query(&self) -> Option<crate::protocol::RenderQuery> {
        use crate::protocol::{RenderQuery, RenderedResult};
        if self.drawn.never {
            return None;
        }
        match &self.block {
            Block::Tool(card) if !card.args.is_null() && card.child.is_none() => {
                let finished = matches!(card.state, ToolState::Done | ToolState::Failed);
                let result = (finished || !card.output.is_empty()).then(|| RenderedResult {
                    text: card.output.clone(),
                    details: card.details.clone(),
                    is_error: card.state == ToolState::Failed,
                    partial: !finished,
                });
                Some(RenderQuery::Tool {
                    tool: card.name.clone(),
                    call_id: card.id.clone(),
                    args: card.args.clone(),
                    started: card.state != ToolState::Pending,
                    result,
                })
            }
            Block::Custom {
                text,
                source: Some(source),
                ..
            } => Some(RenderQuery::Message {
                plugin: source.plugin.clone(),
                custom_type: source.custom_type.clone(),
                content: text.clone(),
                details: source.details.clone(),
            }),
            _ => None,
        }
    }
}

/// A plugin's drawing of a block (`tack:plugin/renderers`): asked per change, width and
/// expansion, and shown until the next answer replaces it.
#[derive(Debug, Default)]
pub struct Drawn {
    /// Counts the block's changes; a drawing asked before the latest is dropped.
    pub version: u64,
    /// The version, width and expansion last asked, so one question is put once.
    pub asked: Option<(u64, u16, bool)>,
    /// No plugin draws this block: never ask.
    pub never: bool,
    pub drawing: Option<crate::protocol::PluginDrawing>,
}

#[derive(Debug)]
pub struct Rendered {
    pub width: u16,
    pub options: u8,
    pub lines: Vec<Line<'static>>,
}

#[derive(Debug, Default)]
pub struct Transcript {
    items: Vec<Item>,
    /// Tool cards by call id.
    cards: HashMap<String, usize>,
    /// The assistant block being streamed.
    streaming: Option<usize>,
    /// The call whose arguments are streaming.
    streaming_call: Option<String>,
    /// Counts changes to what the blocks show, so a view can tell its lines are still good.
    revision: u64,
    /// Counts loads: a plugin's drawing asked for a block of an earlier load is dropped.
    generation: u64,
}

impl Transcript {
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// For laying blocks out into their caches; blocks change through the methods that count
    /// the change in [`Transcript::revision`].
    pub fn items_mut(&mut self) -> &mut [Item] {
        &mut self.items
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A plugin's answer for block `key.index`: shown unless the block changed or the
    /// transcript was loaded again since it was asked.
    pub fn drawn(
        &mut self,
        key: crate::protocol::RenderKey,
        drawing: Option<crate::protocol::PluginDrawing>,
        never: bool,
    ) {
        if key.generation != self.generation {
            return;
        }
        let Some(item) = self.items.get_mut(key.index) else {
            return;
        };
        if never {
            item.drawn.never = true;
        } else if item.drawn.version != key.version {
            return;
        }
        if item.drawn.drawing != drawing {
            item.drawn.drawing = drawing;
            item.cache = None;
            self.revision += 1;
        }
    }

    pub fn push(&mut self, block: Block) -> usize {
        if let Block::Tool(card) = &block {
            self.cards.insert(card.id.clone(), self.items.len());
        }
        self.items.push(Item {
            block,
            cache: None,
            drawn: Drawn::default(),
        });
        self.revision += 1;
        self.items.len() - 1
    }

    /// Changes block `index` and drops its cached lines.
    fn change(&mut self, index: usize, f: impl FnOnce(&mut Block)) {
        if let Some(item) = self.items.get_mut(index) {
            f(&mut item.block);
            item.cache = None;
            item.drawn.version += 1;
            self.revision += 1;
        }
    }

    fn card(&mut self, id: &str, f: impl FnOnce(&mut ToolCard)) {
        if let Some(&index) = self.cards.get(id) {
            self.change(index, |b| {
                if let Block::Tool(card) = b {
                    f(card)
                }
            });
        }
    }

    fn ensure_card(&mut self, id: &str, name: &str) {
        if !self.cards.contains_key(id) {
            self.push(Block::Tool(ToolCard {
                id: id.to_string(),
                name: name.to_string(),
                args: Value::Null,
                args_text: String::new(),
                state: ToolState::Pending,
                output: String::new(),
                diff: None,
                details: None,
                rewritten_by: Vec::new(),
                images: Vec::new(),
                child: None,
            }));
        }
    }

    /// Drops every cached rendering (the width or a view option changed).
    pub fn invalidate(&mut self) {
        for item in &mut self.items {
            item.cache = None;
        }
        self.revision += 1;
    }

    /// Rebuilds the transcript from a session's messages.
    /// Takes the notices out, for a [`load`](Self::load) to keep; the rest goes with the load.
    pub fn take_notices(&mut self) -> Vec<Block> {
        std::mem::take(&mut self.items)
            .into_iter()
            .map(|item| item.block)
            .filter(|block| matches!(block, Block::Notice { .. }))
            .collect()
    }

    pub fn load(&mut self, messages: &[Arc<Message>]) {
        *self = Transcript {
            revision: self.revision + 1,
            generation: self.generation + 1,
            ..Transcript::default()
        };
        for message in messages {
            self.add_message(message, false);
        }
    }

    fn add_message(&mut self, message: &Message, streaming: bool) {
        match message {
            Message::User(m) => {
                self.push(Block::User {
                    text: m.text_content(),
                    images: thumbnails(&m.content),
                });
            }
            Message::Assistant(m) => {
                let index = self.push(Block::Assistant(AssistantBlock::default()));
                self.streaming = streaming.then_some(index);
                self.update_assistant(index, m, streaming);
                self.add_calls(m);
            }
            Message::ToolResult(m) => {
                self.ensure_card(&m.tool_call_id, &m.tool_name);
                let result = ToolResult {
                    content: m.content.clone(),
                    details: m.details.clone(),
                    is_error: m.is_error,
                };
                self.card(&m.tool_call_id, |card| finish(card, &result, m.is_error));
            }
            Message::Custom(m) => {
                let block = match (&m.plugin, m.display) {
                    (None, true) => Block::Custom {
                        label: m.custom_type.clone(),
                        text: m.content.clone(),
                        source: None,
                    },
                    (Some(plugin), true) => Block::Custom {
                        label: format!("{} · from plugin {plugin}", m.custom_type),
                        text: m.content.clone(),
                        source: Some(CustomSource {
                            plugin: plugin.clone(),
                            custom_type: m.custom_type.clone(),
                            details: m.details.clone(),
                        }),
                    },
                    // The model reads what a plugin adds even when it asks not to be shown, so
                    // the user sees at least that it was added, and by whom.
                    (Some(plugin), false) => Block::Custom {
                        label: format!(
                            "hidden {} message from plugin {plugin} ({} chars)",
                            m.custom_type,
                            m.content.chars().count()
                        ),
                        text: String::new(),
                        source: None,
                    },
                    (None, false) => return,
                };
                self.push(block);
            }
            Message::BranchSummary(m) => {
                self.push(Block::Custom {
                    label: "branch summary".into(),
                    text: m.summary.clone(),
                    source: None,
                });
            }
            Message::CompactionSummary(m) => {
                self.push(Block::Custom {
                    label: format!("compacted (~{} tokens before)", m.tokens_before),
                    text: m.summary.clone(),
                    source: None,
                });
            }
        }
    }

    fn update_assistant(&mut self, index: usize, m: &AssistantMessage, streaming: bool) {
        let mut text = String::new();
        let mut thinking = String::new();
        for block in &m.content {
            match block {
                AssistantContent::Text(t) => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&t.text);
                }
                AssistantContent::Thinking(t) => {
                    if !thinking.is_empty() {
                        thinking.push('\n');
                    }
                    thinking.push_str(&t.thinking);
                }
                AssistantContent::ToolCall(_) => {}
            }
        }
        let error = (m.stop_reason == StopReason::Error)
            .then(|| m.error_message.clone().unwrap_or_else(|| "error".into()));
        let aborted = m.stop_reason == StopReason::Aborted;
        self.change(index, |b| {
            if let Block::Assistant(a) = b {
                a.text = text;
                a.thinking = thinking;
                a.streaming = streaming;
                a.error = error;
                a.aborted = aborted && !streaming;
            }
        });
    }

    fn add_calls(&mut self, m: &AssistantMessage) {
        for call in m.tool_calls() {
            self.ensure_card(&call.id, &call.name);
            let args = call.arguments.clone();
            self.card(&call.id, |card| {
                card.args = args;
                card.args_text.clear();
            });
        }
    }

    /// Applies an agent event.
    pub fn apply(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::MessageStart { message } => {
                let streaming = matches!(**message, Message::Assistant(_));
                if !matches!(**message, Message::ToolResult(_)) {
                    self.add_message(message, streaming);
                }
            }
            AgentEvent::MessageUpdate { message, delta } => {
                let Message::Assistant(m) = &**message else {
                    return;
                };
                let index = match self.streaming {
                    Some(index) => index,
                    None => {
                        let index = self.push(Block::Assistant(AssistantBlock::default()));
                        self.streaming = Some(index);
                        index
                    }
                };
                match delta {
                    MessageDelta::TextDelta { .. } | MessageDelta::ThinkingDelta { .. } => {
                        self.update_assistant(index, m, true)
                    }
                    MessageDelta::ToolCallStart { id, name, .. } => {
                        self.ensure_card(id, name);
                        self.streaming_call = Some(id.clone());
                    }
                    MessageDelta::ToolCallDelta { delta, .. } => {
                        if let Some(id) = self.streaming_call.clone() {
                            let delta = delta.clone();
                            self.card(&id, |card| card.args_text.push_str(&delta));
                        }
                    }
                }
            }
            AgentEvent::MessageEnd { message } => {
                if let Message::Assistant(m) = &**message {
                    if let Some(index) = self.streaming.take() {
                        self.update_assistant(index, m, false);
                        self.add_calls(m);
                    }
                    self.streaming_call = None;
                }
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
                rewritten_by,
            } => {
                self.ensure_card(tool_call_id, tool_name);
                let args = args.clone();
                let rewritten_by = rewritten_by.clone();
                self.card(tool_call_id, |card| {
                    card.state = ToolState::Running;
                    card.args = args;
                    card.rewritten_by = rewritten_by;
                });
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial,
                ..
            } => {
                let text = partial.text_content();
                let details = partial.details.clone();
                self.card(tool_call_id, |card| {
                    card.output = text;
                    ChildRun::observe(&mut card.child, details.as_ref());
                    card.details = details;
                });
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
            } => {
                self.ensure_card(tool_call_id, tool_name);
                self.card(tool_call_id, |card| finish(card, result, *is_error));
            }
            AgentEvent::AgentEnd { .. } => {
                if let Some(index) = self.streaming.take() {
                    self.change(index, |b| {
                        if let Block::Assistant(a) = b {
                            a.streaming = false;
                        }
                    });
                }
            }
            AgentEvent::Error { message } => {
                self.push(Block::Notice {
                    level: NoticeLevel::Error,
                    text: message.clone(),
                });
            }
            AgentEvent::Notice { level, message } => {
                self.push(Block::Notice {
                    level: *level,
                    text: message.clone(),
                });
            }
            AgentEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => {
                self.push(Block::Notice {
                    level: NoticeLevel::Warn,
                    text: format!(
                        "{error_message}; retrying in {:.1} s ({attempt}/{max_attempts})",
                        *delay_ms as f64 / 1000.0
                    ),
                });
            }
            AgentEvent::CompactionEnd {
                error_message: Some(error),
                ..
            } => {
                self.push(Block::Notice {
                    level: NoticeLevel::Warn,
                    text: format!("no compaction: {error}"),
                });
            }
            _ => {}
        }
    }
}

fn thumbnails(content: &[Content]) -> Vec<Arc<Thumbnail>> {
    content
        .iter()
        .filter_map(|c| match c {
            Content::Image(image) => Some(Arc::new(Thumbnail::new(image))),
            Content::Text(_) => None,
        })
        .collect()
}

fn finish(card: &mut ToolCard, result: &ToolResult, is_error: bool) {
    card.state = if is_error {
        ToolState::Failed
    } else {
        ToolState::Done
    };
    card.output = result.text_content();
    card.images = thumbnails(&result.content);
    card.diff = result
        .details
        .as_ref()
        .and_then(|d| d.get("diff"))
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    ChildRun::observe(&mut card.child, result.details.as_ref());
    card.details = result.details.clone();
}
