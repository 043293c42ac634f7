//! The unified request as a Chat Completions call (`POST /chat/completions`, streamed).

use provider_common::ids;
use provider_common::openai_models;
use provider_common::options::Options;
use provider_common::unified::{self, Assistant, AssistantPart, Message, Part, Tool};
use serde_json::{json, Value};
use tack_sdk::{HttpCall, ProviderError, ProviderRequest};

use crate::compat::Compat;

/// OpenAI refuses tool-call ids longer than this.
const MAX_ID_CHARS: usize = 40;

/// Introduces the images tool results returned; Chat Completions' tool messages hold text only,
/// so the images follow in a user message.
pub const TOOL_IMAGES_NOTE: &str = "Images returned by the tool calls above:";

/// The request, and the compat flags it was built with (the decoder needs some of them).
pub fn build(request: &ProviderRequest) -> Result<(HttpCall, Compat), ProviderError> {
    let messages = unified::parse_messages(&request.messages)?;
    let tools = unified::parse_tools(&request.tools)?;
    let compat = Compat::from_options(&Options::parse(&request.options)?, &request.model)?;

    let mut body = json!({
        "model": request.model,
        "messages": convert_messages(&request.system_prompt, &messages, &compat),
        "stream": true,
    });
    if compat.usage_in_stream {
        body["stream_options"] = json!({"include_usage": true});
    }
    if let Some(max_tokens) = request.max_tokens {
        body[compat.max_tokens_field] = json!(max_tokens);
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.iter().map(tool).collect());
    }
    if let Some(effort) =
        openai_models::effort(&request.model, request.reasoning, compat.reasoning_effort)
    {
        body["reasoning_effort"] = json!(effort);
    }
    let call = HttpCall {
        method: "POST".to_string(),
        path: "/chat/completions".to_string(),
        headers: vec![
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
        ],
        body: body.to_string().into_bytes(),
    };
    Ok((call, compat))
}

fn tool(tool: &Tool) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    })
}

fn convert_messages(system_prompt: &str, messages: &[Message], compat: &Compat) -> Vec<Value> {
    let mut out = Vec::new();
    if !system_prompt.trim().is_empty() {
        let role = if compat.developer_role {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": system_prompt}));
    }
    // Images of the current run of tool results, sent after the run.
    let mut tool_images: Vec<Value> = Vec::new();
    for message in messages {
        if !matches!(message, Message::ToolResult(_)) {
            flush_tool_images(&mut tool_images, &mut out);
        }
        match message {
            Message::User(parts) => {
                if let Some(content) = user_content(parts) {
                    out.push(json!({"role": "user", "content": content}));
                }
            }
            Message::Assistant(assistant) => {
                if let Some(message) = assistant_message(assistant) {
                    out.push(message);
                }
            }
            Message::ToolResult(result) => {
                let text = result.text();
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": ids::sanitize(&result.call_id, MAX_ID_CHARS),
                    "content": if text.trim().is_empty() { "(no output)".to_string() } else { text },
                }));
                tool_images.extend(result.images().filter_map(image_part));
            }
        }
    }
    flush_tool_images(&mut tool_images, &mut out);
    out
}

fn flush_tool_images(images: &mut Vec<Value>, out: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut content = vec![json!({"type": "text", "text": TOOL_IMAGES_NOTE})];
    content.append(images);
    out.push(json!({"role": "user", "content": content}));
}

/// A plain string when the message is text only (what every compatible server accepts), else
/// an array of text and image parts. `None` when there is nothing to send.
fn user_content(parts: &[Part]) -> Option<Value> {
    let has_images = parts.iter().any(|p| matches!(p, Part::Image { .. }));
    if !has_images {
        let texts: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(text) => Some(text.as_str()),
                Part::Image { .. } => None,
            })
            .collect();
        let text = texts.join("\n");
        return (!text.trim().is_empty()).then(|| json!(text));
    }
    let content: Vec<Value> = parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) if text.trim().is_empty() => None,
            Part::Text(text) => Some(json!({"type": "text", "text": text})),
            Part::Image { .. } => image_part(part),
        })
        .collect();
    Some(Value::Array(content))
}

fn image_part(part: &Part) -> Option<Value> {
    match part {
        Part::Image { mime_type, data } => Some(json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{mime_type};base64,{data}")},
        })),
        Part::Text(_) => None,
    }
}

/// The assistant's text and tool calls. Thinking is left out: Chat Completions has no field to
/// send it back in.
fn assistant_message(assistant: &Assistant) -> Option<Value> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for part in &assistant.content {
        match part {
            AssistantPart::Text(text) if !text.trim().is_empty() => texts.push(text.as_str()),
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => calls.push(json!({
                "id": ids::sanitize(id, MAX_ID_CHARS),
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            })),
            _ => {}
        }
    }
    if texts.is_empty() && calls.is_empty() {
        return None;
    }
    let mut message = json!({"role": "assistant"});
    if !texts.is_empty() {
        message["content"] = json!(texts.join("\n"));
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_sdk::{ExecutionMode, ReasoningLevel, ToolSpec};

    fn request(model: &str, messages: Value, options: Value) -> ProviderRequest {
        ProviderRequest {
            provider: "openai".into(),
            model: model.into(),
            system_prompt: "You are terse.".into(),
            messages: messages.to_string(),
            tools: vec![ToolSpec {
                name: "read".into(),
                label: "Read".into(),
                description: "Reads a file".into(),
                parameters: r#"{"type":"object","properties":{"path":{"type":"string"}}}"#.into(),
                mode: ExecutionMode::Parallel,
                prompt_snippet: None,
            }],
            max_tokens: Some(2048),
            reasoning: ReasoningLevel::High,
            options: options.to_string(),
        }
    }

    fn body(request: &ProviderRequest) -> Value {
        let (call, _) = build(request).unwrap();
        serde_json::from_slice(&call.body).unwrap()
    }

    fn conversation() -> Value {
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture and in a.txt?"},
                {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}
            ]},
            {"role": "assistant", "provider": "openai", "model": "o4-mini", "content": [
                {"type": "thinking", "thinking": "Look, then read."},
                {"type": "text", "text": "A cat. Reading the file."},
                {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}
            ]},
            {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
             "content": [{"type": "text", "text": "hello"},
                         {"type": "image", "data": "R0lG", "mimeType": "image/gif"}],
             "isError": false},
            {"role": "user", "content": [{"type": "text", "text": "Thanks"}]}
        ])
    }

    #[test]
    fn golden_body_with_text_image_tool_call_result_and_thinking() {
        let (call, _) = build(&request("o4-mini", conversation(), json!({}))).unwrap();
        assert_eq!(
            (call.method.as_str(), call.path.as_str()),
            ("POST", "/chat/completions")
        );
        assert!(!call
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("authorization")));
        assert_eq!(
            serde_json::from_slice::<Value>(&call.body).unwrap(),
            json!({
                "model": "o4-mini",
                "stream": true,
                "stream_options": {"include_usage": true},
                "max_completion_tokens": 2048,
                "reasoning_effort": "high",
                "tools": [{"type": "function", "function": {
                    "name": "read", "description": "Reads a file",
                    "parameters": {"type": "object",
                                   "properties": {"path": {"type": "string"}}}}}],
                "messages": [
                    {"role": "developer", "content": "You are terse."},
                    {"role": "user", "content": [
                        {"type": "text", "text": "What is in this picture and in a.txt?"},
                        {"type": "image_url",
                         "image_url": {"url": "data:image/png;base64,iVBORw0K"}}
                    ]},
                    {"role": "assistant", "content": "A cat. Reading the file.",
                     "tool_calls": [{"id": "call_1", "type": "function",
                                     "function": {"name": "read",
                                                  "arguments": "{\"path\":\"a.txt\"}"}}]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
                    {"role": "user", "content": [
                        {"type": "text", "text": TOOL_IMAGES_NOTE},
                        {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lG"}}
                    ]},
                    {"role": "user", "content": "Thanks"}
                ]
            })
        );
    }

    #[test]
    fn compat_flags_shape_the_body() {
        let messages = json!([{"role": "user", "content": "hi"}]);
        let plain = body(&request("gpt-4.1", messages.clone(), json!({})));
        assert_eq!(plain["messages"][0]["role"], "system");
        assert!(plain.get("reasoning_effort").is_none());

        let ollama = body(&request(
            "qwen3:8b",
            messages,
            json!({"max_tokens_field": "max_tokens", "supports_usage_in_stream": false,
                   "supports_reasoning_effort": true}),
        ));
        assert_eq!(ollama["max_tokens"], 2048);
        assert!(ollama.get("max_completion_tokens").is_none());
        assert!(ollama.get("stream_options").is_none());
        assert_eq!(ollama["reasoning_effort"], "high");

        let bad = request(
            "gpt-4.1",
            json!([]),
            json!({"supports_usage_in_stream": "yes"}),
        );
        assert!(build(&bad).is_err());
    }

    #[test]
    fn long_foreign_ids_are_shortened_consistently() {
        let id = "call_abcdefghijklmnopqrstuvwx|fc_0123456789abcdef0123456789";
        let messages = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "toolCall", "id": id, "name": "read", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": id, "toolName": "read", "content": []}
        ]);
        let body = body(&request("gpt-4.1", messages, json!({})));
        let call_id = &body["messages"][2]["tool_calls"][0]["id"];
        assert_eq!(call_id.as_str().map(str::len), Some(40));
        assert_eq!(body["messages"][2].get("content"), None);
        assert_eq!(&body["messages"][3]["tool_call_id"], call_id);
        assert_eq!(body["messages"][3]["content"], "(no output)");
    }
}
