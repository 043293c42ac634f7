//! A plugin's own model calls (`tack:plugin/models`): one request without tools on a model the
//! session may use, recorded beside the sub-agents' transcripts so the session's stats count
//! what it cost.

use std::collections::BTreeMap;
use std::sync::Arc;

use tack_core::agent::{complete, CompleteError, ModelInfo, ProviderRequest, ReasoningLevel};
use tack_core::message::{
    AssistantContent, AssistantMessage, Content, Message, StopReason, TextContent, Usage,
    UserMessage,
};
use tokio_util::sync::CancellationToken;

use super::{transcript, ChildOutcome, ChildRequest, ChildRuns, ChildStatus, ChildUsage, Chosen};

/// The most a model call's conversation and system prompt may hold together.
pub const MAX_COMPLETION_BYTES: usize = 4 << 20;

/// Who said a message of a model call's conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// What a model call asks (WIT `completion-request`).
#[derive(Debug, Clone, Default)]
pub struct CompletionRequest {
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub messages: Vec<(Role, String)>,
    pub max_tokens: Option<u32>,
    pub thinking: Option<String>,
}

/// A model call's answer.
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    /// `provider/id`.
    pub model: String,
    pub usage: ChildUsage,
    pub entry_id: Option<String>,
}

/// Why a model call gave no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompletionError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Failed(String),
    #[error("aborted")]
    Aborted,
}

impl ChildRuns {
    /// The models a model call (or a child) may name: the session's provider's, and those of
    /// every other provider the resolver can set up now (its key set, its endpoint allowed).
    pub fn available_models(&self) -> Vec<ModelInfo> {
        let Some(parent) = self.parent.get() else {
            return Vec::new();
        };
        let current = parent.factory.parts().config.model;
        let models = self.known_models(parent);
        let mut usable: BTreeMap<&str, bool> = BTreeMap::new();
        models
            .iter()
            .filter(|m| {
                if m.provider == current.provider {
                    return true;
                }
                *usable.entry(m.provider.as_str()).or_insert_with(|| {
                    self.resolver
                        .get()
                        .is_some_and(|resolve| resolve(m).is_ok())
                })
            })
            .cloned()
            .collect()
    }

    /// Asks a model for `plugin` and waits for the whole answer. `cancel` is the asking call's.
    pub async fn complete(
        &self,
        plugin: &str,
        request: CompletionRequest,
        cancel: CancellationToken,
    ) -> Result<Completion, CompletionError> {
        let parent = self.parent.get().ok_or_else(|| {
            CompletionError::Unavailable("no agent is running to take a model from".into())
        })?;
        if request.messages.is_empty() {
            return Err(CompletionError::Invalid(
                "a model call needs at least one message".into(),
            ));
        }
        let size = request.system_prompt.as_deref().map_or(0, str::len)
            + request.messages.iter().map(|(_, t)| t.len()).sum::<usize>();
        if size > MAX_COMPLETION_BYTES {
            return Err(CompletionError::Invalid(format!(
                "a model call may hold at most {} MiB of text; this one holds {size} bytes",
                MAX_COMPLETION_BYTES >> 20
            )));
        }
        let mut parts = parent.factory.parts();
        let mut reasoning = match request.thinking.as_deref() {
            None => parts.config.reasoning,
            Some(level) => ReasoningLevel::parse(level).ok_or_else(|| {
                CompletionError::Invalid(format!(
                    "unknown thinking level '{level}' (off, minimal, low, medium, high)"
                ))
            })?,
        };
        if let Some(wanted) = &request.model {
            let chosen = self
                .model(parent, &parts.config.model, wanted)
                .map_err(|e| CompletionError::Invalid(e.to_string()))?;
            match chosen {
                Chosen::Parents(model) => parts.config.model = model,
                Chosen::Other(resolved) => {
                    parts.config.model = resolved.model;
                    parts.config.provider_options = resolved.options;
                    parts.provider = resolved.provider;
                }
            }
        }
        let model = parts.config.model;
        if !model.reasoning {
            reasoning = ReasoningLevel::Off;
        }
        let messages: Vec<Arc<Message>> = request
            .messages
            .iter()
            .map(|(role, text)| Arc::new(message(*role, text, &model)))
            .collect();
        let shared = Arc::new(messages.clone());
        let build = || ProviderRequest {
            model: model.clone(),
            system_prompt: request.system_prompt.clone().unwrap_or_default(),
            messages: shared.clone(),
            tools: Vec::new(),
            max_tokens: request.max_tokens,
            reasoning,
            options: parts.config.provider_options.clone(),
            cancel: cancel.child_token(),
        };
        self.started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let answered = complete(parts.provider.as_ref(), build, &parts.config.retry, &cancel).await;
        let model_name = format!("{}/{}", model.provider, model.id);
        let (completed, status, error) = match answered {
            Ok(completed) => (completed, ChildStatus::Completed, None),
            Err(CompleteError::Aborted) => (Default::default(), ChildStatus::Aborted, None),
            Err(CompleteError::Provider(e)) => {
                (Default::default(), ChildStatus::Failed, Some(e.to_string()))
            }
        };
        let cost = model.cost.of(&completed.usage);
        let usage = ChildUsage {
            input: completed.usage.input,
            output: completed.usage.output,
            cache_read: completed.usage.cache_read,
            cache_write: completed.usage.cache_write,
            cost: cost.total,
            turns: u32::from(status == ChildStatus::Completed),
            tool_calls: 0,
        };
        tack_core::sync::lock(&self.totals).add(&usage);
        let text = completed.text("\n\n");
        let mut transcript_messages = messages;
        if status == ChildStatus::Completed {
            transcript_messages.push(Arc::new(Message::Assistant(AssistantMessage {
                content: vec![AssistantContent::Text(TextContent { text: text.clone() })],
                provider: model.provider.clone(),
                model: model.id.clone(),
                usage: Usage {
                    input: usage.input,
                    output: usage.output,
                    cache_read: usage.cache_read,
                    cache_write: usage.cache_write,
                    cost,
                },
                stop_reason: StopReason::Stop,
                error_message: None,
                timestamp: tack_core::message::now_ms(),
            })));
        }
        let described = ChildRequest {
            description: "model call".into(),
            prompt: request
                .messages
                .last()
                .map(|(_, text)| text.clone())
                .unwrap_or_default(),
            system_prompt: request.system_prompt.clone(),
            tools: Some(Vec::new()),
            model: Some(model_name.clone()),
            ..ChildRequest::default()
        };
        let outcome = ChildOutcome {
            status,
            text,
            error,
            usage,
            model: model_name,
            entry_id: None,
        };
        let entry_id = transcript::record(
            &parent.session,
            plugin,
            &described,
            &outcome,
            &transcript_messages,
            self.limits.transcript_bytes,
        );
        match outcome.status {
            ChildStatus::Completed => Ok(Completion {
                text: outcome.text,
                model: outcome.model,
                usage: outcome.usage,
                entry_id,
            }),
            ChildStatus::Aborted => Err(CompletionError::Aborted),
            _ => {
                Err(CompletionError::Failed(outcome.error.unwrap_or_else(
                    || "the provider gave no answer".to_owned(),
                )))
            }
        }
    }
}

fn message(role: Role, text: &str, model: &ModelInfo) -> Message {
    match role {
        Role::User => Message::User(UserMessage {
            content: vec![Content::text(text)],
            timestamp: tack_core::message::now_ms(),
        }),
        Role::Assistant => Message::Assistant(AssistantMessage {
            content: vec![AssistantContent::Text(TextContent {
                text: text.to_owned(),
            })],
            provider: model.provider.clone(),
            model: model.id.clone(),
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            error_message: None,
            timestamp: tack_core::message::now_ms(),
        }),
    }
}
