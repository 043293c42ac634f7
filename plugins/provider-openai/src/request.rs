//! The unified request as a Chat Completions call (`POST /chat/completions`, streamed).
//!
//! Each message's Chat Completions form is kept by the provider kit and reused on the next
//! turn; only the messages it has not seen are converted.

use provider_common::body::{Body, Spot};
use provider_common::cache::{Converted, Role};
use provider_common::ids;
use provider_common::json::{self, DataUrl, Items, Object};
use provider_common::kit::{self, Request, Route};
use provider_common::openai_models;
use provider_common::tool_images::{flush as flush_tool_images, TOOL_IMAGES_NOTE};
use provider_common::unified::{Assistant, AssistantPart, Message, Part, Tool};
use serde::Serialize;
use serde_json::Value;
use tack_sdk::ProviderError;

use crate::compat::{Compat, ThinkingFormat};

/// OpenAI refuses tool-call ids longer than this.
const MAX_ID_CHARS: usize = 40;

/// Mistral refuses a tool call id of anything but nine letters and digits.
const MISTRAL_ID_CHARS: usize = 9;

/// What the cache keeps of one message: its Chat Completions message (none when there is
/// nothing to send) and, for a tool result, its images, which follow the run of results.
#[derive(Clone, Debug, Default)]
pub struct Fragment {
    message: Option<Vec<u8>>,
    images: Items,
    /// Where `message` was written in the previous body.
    spot: Spot,
}

/// Writes the body with the compat flags the request's options set.
pub fn write(
    request: &Request<'_, Fragment>,
    compat: &Compat,
    object: &mut Object<'_, Body>,
) -> Result<Route, ProviderError> {
    let unified = request.unified;
    // Fields in the order of their names, as the `Value` this body was once built as wrote them.
    if let Some(max_tokens) = unified.max_tokens {
        object.field(compat.max_tokens_field, &max_tokens)?;
    }
    write_messages(
        object.key("messages")?,
        &unified.system_prompt,
        request.messages,
        compat,
    )?;
    object.field("model", &unified.model)?;
    let effort = match compat.thinking_format {
        ThinkingFormat::OpenAi => {
            openai_models::effort(&unified.model, unified.reasoning, compat.reasoning_effort)
        }
        ThinkingFormat::DeepSeek => deepseek_effort(unified.reasoning),
        ThinkingFormat::Mistral => {
            // The host sends a level other than off only to a model its catalog says reasons.
            let thinks = unified.reasoning != tack_sdk::ReasoningLevel::Off;
            let by_effort = MISTRAL_EFFORT_MODELS.contains(&unified.model.as_str());
            if thinks && !by_effort {
                object.field("prompt_mode", &"reasoning")?;
            }
            (thinks && by_effort).then_some("high")
        }
    };
    if let Some(effort) = effort {
        object.field("reasoning_effort", &effort)?;
    }
    object.field("stream", &true)?;
    if compat.usage_in_stream {
        object.field(
            "stream_options",
            &StreamOptions {
                include_usage: true,
            },
        )?;
    }
    if compat.thinking_format == ThinkingFormat::DeepSeek {
        let kind = if effort.is_some() {
            "enabled"
        } else {
            "disabled"
        };
        object.field("thinking", &Thinking { kind })?;
    }
    if !request.tools.is_empty() {
        let tools: Vec<ToolDef> = request.tools.iter().map(ToolDef::from).collect();
        object.field("tools", &tools)?;
    }
    Ok(Route::new("/chat/completions"))
}

/// The Mistral models that think by `reasoning_effort` (which takes `high` alone); the others
/// that reason (Magistral's) by `prompt_mode`, as Pi's Mistral provider sends them.
const MISTRAL_EFFORT_MODELS: &[&str] = &[
    "mistral-small-2603",
    "mistral-small-latest",
    "mistral-medium-3.5",
];

/// DeepSeek's `reasoning_effort` for a level; none when thinking is off.
fn deepseek_effort(level: tack_sdk::ReasoningLevel) -> Option<&'static str> {
    use tack_sdk::ReasoningLevel;
    match level {
        ReasoningLevel::Off => None,
        ReasoningLevel::Minimal | ReasoningLevel::Low => Some("low"),
        ReasoningLevel::Medium => Some("medium"),
        ReasoningLevel::High => Some("high"),
    }
}

/// The delta fields whose reasoning goes back in an assistant message (a signature is the field
/// a thinking block came in; any other name is not replayed, so it can never collide with
/// `role` or `content`).
const REPLAYED_REASONING_FIELDS: &[&str] = &["reasoning", "reasoning_content", "reasoning_text"];

// The body's parts, fields in the order of their names.

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct ToolDef<'a> {
    function: FunctionDef<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct FunctionDef<'a> {
    description: &'a str,
    name: &'a str,
    parameters: &'a Value,
}

impl<'a> From<&'a Tool> for ToolDef<'a> {
    fn from(tool: &'a Tool) -> Self {
        ToolDef {
            function: FunctionDef {
                description: &tool.description,
                name: &tool.name,
                parameters: &tool.parameters,
            },
            kind: "function",
        }
    }
}

#[derive(Serialize)]
struct ChatMessage<'a, C: Serialize> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<C>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_text: Option<String>,
    role: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ToolCallDef<'a>>,
}

impl<'a, C: Serialize> ChatMessage<'a, C> {
    fn new(role: &'a str, content: Option<C>) -> Self {
        ChatMessage {
            content,
            reasoning: None,
            reasoning_content: None,
            reasoning_text: None,
            role,
            tool_call_id: None,
            tool_calls: Vec::new(),
        }
    }
}

#[derive(Serialize)]
struct ToolCallDef<'a> {
    function: FunctionCall<'a>,
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    arguments: String,
    name: &'a str,
}

#[derive(Serialize)]
#[serde(untagged)]
enum ContentPart<'a> {
    Text {
        text: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
    },
    Image {
        image_url: ImageUrl<'a>,
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

#[derive(Serialize)]
struct ImageUrl<'a> {
    url: DataUrl<'a>,
}

fn text_part(text: &str) -> ContentPart<'_> {
    ContentPart::Text { text, kind: "text" }
}

fn write_messages(
    out: &mut Body,
    system_prompt: &str,
    messages: &[Converted<'_, Fragment>],
    compat: &Compat,
) -> Result<(), ProviderError> {
    let mut array = json::Array::begin(out);
    if !system_prompt.trim().is_empty() {
        let role = if compat.developer_role {
            "developer"
        } else {
            "system"
        };
        json::write(array.item(), &ChatMessage::new(role, Some(system_prompt)))?;
    }
    // Images of the current run of tool results, sent after the run.
    let mut tool_images: Vec<&Items> = Vec::new();
    for message in messages {
        if message.role != Role::ToolResult {
            flush_tool_images(&mut tool_images, &mut array, &text_part(TOOL_IMAGES_NOTE))?;
        }
        if let Some(bytes) = &message.fragment.message {
            array.fragment(bytes, &message.fragment.spot);
        }
        if !message.fragment.images.is_empty() {
            tool_images.push(&message.fragment.images);
        }
    }
    flush_tool_images(&mut tool_images, &mut array, &text_part(TOOL_IMAGES_NOTE))?;
    array.end();
    Ok(())
}

impl kit::Fragment for Fragment {
    /// One message's Chat Completions form.
    fn convert(message: &Message, provider: &str, model: &str) -> Result<Self, ProviderError> {
        let mut fragment = Fragment::default();
        match message {
            Message::User(parts) => {
                fragment.message = user_message(parts)?;
            }
            Message::Assistant(assistant) => {
                fragment.message = assistant_message(assistant, provider, model)?;
            }
            Message::ToolResult(result) => {
                let text = result.text();
                let content = if text.trim().is_empty() {
                    "(no output)"
                } else {
                    text.as_str()
                };
                let message = ChatMessage {
                    tool_call_id: Some(call_id(&result.call_id, provider)),
                    ..ChatMessage::new("tool", Some(content))
                };
                fragment.message = Some(json::to_vec(&message)?);
                for part in result.images() {
                    if let Some(image) = image_part(part) {
                        fragment.images.push(&image)?;
                    }
                }
            }
        }
        Ok(fragment)
    }

    /// About how many bytes it takes in the body.
    fn size(&self) -> usize {
        self.message.as_ref().map_or(0, Vec::len) + 1
    }
}

/// A plain string when the message is text only (what every compatible server accepts), else
/// an array of text and image parts. `None` when there is nothing to send.
fn user_message(parts: &[Part]) -> Result<Option<Vec<u8>>, ProviderError> {
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
        if text.trim().is_empty() {
            return Ok(None);
        }
        return json::to_vec(&ChatMessage::new("user", Some(text))).map(Some);
    }
    let content: Vec<ContentPart> = parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) if text.trim().is_empty() => None,
            Part::Text(text) => Some(text_part(text)),
            Part::Image { .. } => image_part(part),
        })
        .collect();
    json::to_vec(&ChatMessage::new("user", Some(content))).map(Some)
}

fn image_part(part: &Part) -> Option<ContentPart<'_>> {
    match part {
        Part::Image { mime_type, data } => Some(ContentPart::Image {
            image_url: ImageUrl {
                url: DataUrl { mime_type, data },
            },
            kind: "image_url",
        }),
        Part::Text(_) => None,
    }
}

/// The assistant's text and tool calls, and its reasoning in the field it came in when it goes
/// back to the provider and model that wrote it (see `compat`). Chat Completions itself has no
/// field for thinking.
/// A tool call's id as the provider takes it back: Mistral only takes nine letters and digits.
fn call_id(id: &str, provider: &str) -> String {
    match provider {
        "mistral" => ids::alphanumeric(id, MISTRAL_ID_CHARS),
        _ => ids::sanitize(id, MAX_ID_CHARS),
    }
}

fn assistant_message(
    assistant: &Assistant,
    provider: &str,
    model: &str,
) -> Result<Option<Vec<u8>>, ProviderError> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut reasoning: Option<(&str, Vec<&str>)> = None;
    let same_model = assistant.is_from(provider, model);
    for part in &assistant.content {
        match part {
            AssistantPart::Thinking {
                text,
                signature: Some(field),
            } if same_model
                && !text.trim().is_empty()
                && REPLAYED_REASONING_FIELDS.contains(&field.as_str()) =>
            {
                match &mut reasoning {
                    Some((first, texts)) if *first == field.as_str() => texts.push(text),
                    Some(_) => {}
                    None => reasoning = Some((field.as_str(), vec![text.as_str()])),
                }
            }
            AssistantPart::Text(text) if !text.trim().is_empty() => texts.push(text.as_str()),
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => calls.push(ToolCallDef {
                function: FunctionCall {
                    arguments: arguments.to_string(),
                    name,
                },
                id: call_id(id, provider),
                kind: "function",
            }),
            _ => {}
        }
    }
    if texts.is_empty() && calls.is_empty() {
        return Ok(None);
    }
    let mut message = ChatMessage {
        tool_calls: calls,
        ..ChatMessage::new("assistant", (!texts.is_empty()).then(|| texts.join("\n")))
    };
    match reasoning {
        Some(("reasoning", texts)) => message.reasoning = Some(texts.join("\n")),
        Some(("reasoning_text", texts)) => message.reasoning_text = Some(texts.join("\n")),
        Some((_, texts)) => message.reasoning_content = Some(texts.join("\n")),
        None if provider == "deepseek" => message.reasoning_content = Some(String::new()),
        None => {}
    }
    json::to_vec(&message).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::fixtures::{self, READ_PARAMETERS};
    use provider_common::kit;
    use serde_json::json;
    use tack_sdk::{HttpCall, ProviderRequest, ReasoningLevel};

    use crate::provider::OpenAi;

    fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
        kit::build_fresh::<OpenAi>(request)
    }

    fn request(model: &str, messages: Value, options: Value) -> ProviderRequest {
        ProviderRequest {
            reasoning: ReasoningLevel::High,
            options: options.to_string(),
            ..fixtures::request("openai", model, &messages, READ_PARAMETERS)
        }
    }

    fn body(request: &ProviderRequest) -> Value {
        let call = build(request).unwrap();
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
        let call = build(&request("o4-mini", conversation(), json!({}))).unwrap();
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
    fn deepseek_thinks_by_switch_and_gets_its_reasoning_back() {
        let messages = json!([
            {"role": "user", "content": [{"type": "text", "text": "Read a.txt"}]},
            {"role": "assistant", "provider": "openai", "model": "gpt-4.1", "content": [
                {"type": "text", "text": "An earlier model's answer."}
            ]},
            {"role": "user", "content": [{"type": "text", "text": "Again"}]},
            {"role": "assistant", "provider": "deepseek", "model": "deepseek-v4-pro", "content": [
                {"type": "thinking", "thinking": "The file first.", "thinkingSignature": "reasoning_content"},
                {"type": "thinking", "thinking": "Then answer.", "thinkingSignature": "reasoning_content"},
                {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}
            ]},
            {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
             "content": [{"type": "text", "text": "hello"}], "isError": false}
        ]);
        let deepseek = |level: ReasoningLevel| ProviderRequest {
            reasoning: level,
            options: json!({"thinking_format": "deepseek", "supports_developer_role": false})
                .to_string(),
            ..fixtures::request("deepseek", "deepseek-v4-pro", &messages, READ_PARAMETERS)
        };
        let thinking = body(&deepseek(ReasoningLevel::High));
        assert_eq!(thinking["thinking"], json!({"type": "enabled"}));
        assert_eq!(thinking["reasoning_effort"], "high");
        let sent = &thinking["messages"];
        assert_eq!(
            sent[2]["reasoning_content"], "",
            "DeepSeek wants the field on every assistant message"
        );
        assert_eq!(
            sent[4]["reasoning_content"],
            "The file first.\nThen answer."
        );
        let off = body(&deepseek(ReasoningLevel::Off));
        assert_eq!(off["thinking"], json!({"type": "disabled"}));
        assert!(off.get("reasoning_effort").is_none(), "{off}");
        // Another provider gets no reasoning another model wrote, and no empty field.
        let elsewhere = body(&request("gpt-4.1", messages.clone(), json!({})));
        for message in elsewhere["messages"].as_array().unwrap() {
            assert!(message.get("reasoning_content").is_none(), "{message}");
        }
        assert!(elsewhere.get("thinking").is_none());
    }

    #[test]
    fn mistral_thinks_by_prompt_mode_or_by_effort_as_the_model_takes_it() {
        let messages = json!([{"role": "user", "content": "hi"}]);
        let mistral = json!({"thinking_format": "mistral", "supports_developer_role": false});
        let magistral = body(&request(
            "magistral-medium-latest",
            messages.clone(),
            mistral.clone(),
        ));
        assert_eq!(magistral["prompt_mode"], "reasoning");
        assert!(magistral.get("reasoning_effort").is_none(), "{magistral}");
        let small = body(&request(
            "mistral-small-latest",
            messages.clone(),
            mistral.clone(),
        ));
        assert_eq!(small["reasoning_effort"], "high");
        assert!(small.get("prompt_mode").is_none(), "{small}");
        let mut off = request("magistral-medium-latest", messages, mistral);
        off.reasoning = ReasoningLevel::Off;
        let off = body(&off);
        assert!(off.get("prompt_mode").is_none() && off.get("reasoning_effort").is_none());
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

    #[test]
    fn cached_bodies_are_the_bytes_of_fresh_ones_through_a_long_session() {
        provider_common::script::assert_kit_matches_fresh::<OpenAi>(
            &provider_common::script::OPENAI,
            240,
        );
    }
}
