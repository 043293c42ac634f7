//! Between the WIT types and tack-core's.

use base64::Engine as _;
use tack_core::agent::{
    ExecutionMode, ProviderError, ProviderErrorKind, StopKind, StreamEvent, TokenUsage, ToolSpec,
};
use tack_core::message::{Content, ImageContent, ToolCall, ToolResult};

use crate::api;

pub fn tool_spec(spec: &api::ToolSpec) -> Option<ToolSpec> {
    Some(ToolSpec {
        name: spec.name.clone(),
        label: spec.label.clone(),
        description: spec.description.clone(),
        parameters: serde_json::from_str(&spec.parameters).ok()?,
        mode: match spec.mode {
            api::ExecutionMode::Parallel => ExecutionMode::Parallel,
            api::ExecutionMode::Sequential => ExecutionMode::Sequential,
        },
        prompt_snippet: spec.prompt_snippet.clone(),
    })
}

pub fn wit_tool_spec(spec: &ToolSpec) -> api::ToolSpec {
    api::ToolSpec {
        name: spec.name.clone(),
        label: spec.label.clone(),
        description: spec.description.clone(),
        parameters: spec.parameters.to_string(),
        mode: match spec.mode {
            ExecutionMode::Parallel => api::ExecutionMode::Parallel,
            ExecutionMode::Sequential => api::ExecutionMode::Sequential,
        },
        prompt_snippet: spec.prompt_snippet.clone(),
    }
}

pub fn wit_call(call: &ToolCall) -> api::ToolCall {
    api::ToolCall {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.to_string(),
    }
}

pub fn result(result: api::ToolResult) -> ToolResult {
    ToolResult {
        content: result.content.into_iter().map(content).collect(),
        details: result
            .details
            .map(|d| serde_json::from_str(&d).unwrap_or(serde_json::Value::String(d))),
        is_error: result.is_error,
    }
}

pub fn wit_result(result: &ToolResult) -> api::ToolResult {
    api::ToolResult {
        content: result.content.iter().filter_map(wit_content).collect(),
        details: result.details.as_ref().map(|d| d.to_string()),
        is_error: result.is_error,
    }
}

fn content(block: api::ContentBlock) -> Content {
    match block {
        api::ContentBlock::Text(text) => Content::text(text),
        api::ContentBlock::Image(image) => Content::Image(ImageContent {
            data: base64::engine::general_purpose::STANDARD.encode(&image.data),
            mime_type: image.mime_type,
        }),
    }
}

fn wit_content(block: &Content) -> Option<api::ContentBlock> {
    Some(match block {
        Content::Text(t) => api::ContentBlock::Text(t.text.clone()),
        Content::Image(image) => api::ContentBlock::Image(api::Image {
            mime_type: image.mime_type.clone(),
            data: base64::engine::general_purpose::STANDARD
                .decode(&image.data)
                .ok()?,
        }),
    })
}

pub fn provider_error(error: api::ProviderError) -> ProviderError {
    ProviderError {
        kind: match error.kind {
            api::ErrorKind::Auth => ProviderErrorKind::Auth,
            api::ErrorKind::RateLimited => ProviderErrorKind::RateLimited,
            api::ErrorKind::Overloaded => ProviderErrorKind::Overloaded,
            api::ErrorKind::Server => ProviderErrorKind::Server,
            api::ErrorKind::ContextOverflow => ProviderErrorKind::ContextOverflow,
            api::ErrorKind::InvalidRequest => ProviderErrorKind::InvalidRequest,
            api::ErrorKind::Other => ProviderErrorKind::Other,
        },
        message: error.message,
        retry_after_ms: error.retry_after_ms,
    }
}

pub fn stream_event(event: api::StreamEvent) -> StreamEvent {
    match event {
        api::StreamEvent::TextDelta(d) => StreamEvent::TextDelta {
            index: d.index,
            delta: d.delta,
        },
        api::StreamEvent::ThinkingDelta(d) => StreamEvent::ThinkingDelta {
            index: d.index,
            delta: d.delta,
        },
        api::StreamEvent::ThinkingSignature(d) => StreamEvent::ThinkingSignature {
            index: d.index,
            delta: d.delta,
        },
        api::StreamEvent::ToolCallStart(s) => StreamEvent::ToolCallStart {
            index: s.index,
            id: s.id,
            name: s.name,
        },
        api::StreamEvent::ToolCallDelta(d) => StreamEvent::ToolCallDelta {
            index: d.index,
            delta: d.delta,
        },
        api::StreamEvent::Usage(u) => StreamEvent::Usage(TokenUsage {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
        }),
        api::StreamEvent::Stop(reason) => StreamEvent::Stop(match reason {
            api::StopReason::Stop => StopKind::Stop,
            api::StopReason::Length => StopKind::Length,
            api::StopReason::ToolUse => StopKind::ToolUse,
        }),
        api::StreamEvent::Error(e) => StreamEvent::Error(provider_error(e)),
    }
}
