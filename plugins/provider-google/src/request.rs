//! The unified request as a `streamGenerateContent` call (`POST
//! /v1beta/models/{model}:streamGenerateContent?alt=sse`).

use provider_common::unified::{self, Assistant, AssistantPart, Message, Part, Tool, ToolResult};
use serde_json::{json, Map, Value};
use tack_sdk::{ErrorKind, HttpCall, ProviderError, ProviderRequest};

use crate::thinking;

/// Introduces the images tool results returned; function responses hold text only, so the
/// images follow in a user turn.
pub const TOOL_IMAGES_NOTE: &str = "Images returned by the tool calls above:";

/// Gemini 3 refuses a function call without a thought signature when it thinks; calls written by
/// another model have none, and this documented value tells it not to check.
const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

pub fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
    let messages = unified::parse_messages(&request.messages)?;
    let tools = unified::parse_tools(&request.tools)?;
    let model = request
        .model
        .strip_prefix("models/")
        .unwrap_or(&request.model);
    // The model id goes into the path: refuse anything that could change the path's meaning.
    let valid = !model.is_empty()
        && !model.contains("..")
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(ProviderError::new(
            ErrorKind::InvalidRequest,
            format!("`{model}` is not a valid Gemini model id"),
        ));
    }

    let mut body = json!({
        "contents": contents(&messages, &request.provider, model),
    });
    if !request.system_prompt.trim().is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": request.system_prompt}]});
    }
    if !tools.is_empty() {
        body["tools"] = json!([{
            "functionDeclarations": tools.iter().map(declaration).collect::<Vec<_>>(),
        }]);
    }
    let mut generation = Map::new();
    if let Some(max_tokens) = request.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(max_tokens));
    }
    if let Some(config) = thinking::config(model, request.reasoning) {
        generation.insert("thinkingConfig".into(), config);
    }
    if !generation.is_empty() {
        body["generationConfig"] = Value::Object(generation);
    }
    Ok(HttpCall {
        method: "POST".to_string(),
        path: format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
        headers: vec![
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
        ],
        body: body.to_string().into_bytes(),
    })
}

/// `parametersJsonSchema` takes full JSON Schema; the older `parameters` takes only an OpenAPI
/// subset and refuses common keywords such as `additionalProperties`.
fn declaration(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "parametersJsonSchema": tool.parameters,
    })
}

fn contents(messages: &[Message], provider: &str, model: &str) -> Vec<Value> {
    let mut contents: Vec<Value> = Vec::new();
    // Whether the last content holds function responses, which the results of one batch share.
    let mut results_open = false;
    let mut tool_images: Vec<Value> = Vec::new();
    for message in messages {
        if !matches!(message, Message::ToolResult(_)) {
            flush_tool_images(&mut tool_images, &mut contents);
            results_open = false;
        }
        match message {
            Message::User(parts) => {
                let parts: Vec<Value> = parts.iter().filter_map(part).collect();
                if !parts.is_empty() {
                    contents.push(json!({"role": "user", "parts": parts}));
                }
            }
            Message::Assistant(assistant) => {
                let parts = model_parts(assistant, provider, model);
                if !parts.is_empty() {
                    contents.push(json!({"role": "model", "parts": parts}));
                }
            }
            Message::ToolResult(result) => {
                let response = function_response(result);
                match contents.last_mut().and_then(|c| c.get_mut("parts")) {
                    Some(Value::Array(parts)) if results_open => parts.push(response),
                    _ => contents.push(json!({"role": "user", "parts": [response]})),
                }
                results_open = true;
                tool_images.extend(result.images().filter_map(part));
            }
        }
    }
    flush_tool_images(&mut tool_images, &mut contents);
    contents
}

fn flush_tool_images(images: &mut Vec<Value>, contents: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut parts = vec![json!({"text": TOOL_IMAGES_NOTE})];
    parts.append(images);
    contents.push(json!({"role": "user", "parts": parts}));
}

fn part(part: &Part) -> Option<Value> {
    match part {
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(json!({"text": text})),
        Part::Image { mime_type, data } => {
            Some(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
        }
    }
}

fn function_response(result: &ToolResult) -> Value {
    let text = result.text();
    let text = if text.trim().is_empty() {
        "(no output)".to_string()
    } else {
        text
    };
    let key = if result.is_error { "error" } else { "output" };
    json!({"functionResponse": {"name": result.tool_name, "response": {key: text}}})
}

/// The model's parts. Thought signatures are only valid for the model that wrote them; a
/// thinking block without text holds the signature of the part before it (see the decoder),
/// or of the part after it when it comes first.
fn model_parts(assistant: &Assistant, provider: &str, model: &str) -> Vec<Value> {
    let same_model = assistant.is_from(provider, model);
    let mut parts: Vec<Value> = Vec::new();
    let mut waiting: Option<&str> = None;
    for block in &assistant.content {
        let mut next = match block {
            AssistantPart::Thinking { text, signature } => {
                let Some(signature) = signature.as_deref().filter(|_| same_model) else {
                    // Unsigned thoughts are summaries the model does not need back.
                    continue;
                };
                if text.trim().is_empty() {
                    match parts.last_mut() {
                        Some(last) => last["thoughtSignature"] = json!(signature),
                        None => waiting = Some(signature),
                    }
                    continue;
                }
                json!({"thought": true, "text": text, "thoughtSignature": signature})
            }
            AssistantPart::Text(text) if text.trim().is_empty() => continue,
            AssistantPart::Text(text) => json!({"text": text}),
            AssistantPart::ToolCall {
                name, arguments, ..
            } => json!({"functionCall": {"name": name, "args": arguments}}),
        };
        if let Some(signature) = waiting.take() {
            if next.get("thoughtSignature").is_none() {
                next["thoughtSignature"] = json!(signature);
            }
        }
        parts.push(next);
    }
    if model.starts_with("gemini-3") {
        for part in &mut parts {
            if part.get("functionCall").is_some() && part.get("thoughtSignature").is_none() {
                part["thoughtSignature"] = json!(SKIP_SIGNATURE);
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_sdk::{ExecutionMode, ReasoningLevel, ToolSpec};

    fn request(model: &str, messages: Value) -> ProviderRequest {
        ProviderRequest {
            provider: "google".into(),
            model: model.into(),
            system_prompt: "You are terse.".into(),
            messages: messages.to_string(),
            tools: vec![ToolSpec {
                name: "read".into(),
                label: "Read".into(),
                description: "Reads a file".into(),
                parameters: r#"{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}"#
                    .into(),
                mode: ExecutionMode::Parallel,
                prompt_snippet: None,
            }],
            max_tokens: Some(2048),
            reasoning: ReasoningLevel::Medium,
            options: "{}".into(),
        }
    }

    fn conversation(model: &str) -> Value {
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture and in a.txt and b.txt?"},
                {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}
            ]},
            {"role": "assistant", "provider": "google", "model": model, "content": [
                {"type": "thinking", "thinking": "Look, then read."},
                {"type": "text", "text": "A cat. Reading the files."},
                {"type": "toolCall", "id": "call_r_1", "name": "read", "arguments": {"path": "a.txt"}},
                {"type": "thinking", "thinking": "", "signature": "c2ln"},
                {"type": "toolCall", "id": "call_r_2", "name": "read", "arguments": {"path": "b.txt"}}
            ]},
            {"role": "toolResult", "toolCallId": "call_r_1", "toolName": "read",
             "content": [{"type": "text", "text": "hello"}], "isError": false},
            {"role": "toolResult", "toolCallId": "call_r_2", "toolName": "read",
             "content": [{"type": "image", "data": "R0lG", "mimeType": "image/gif"}],
             "isError": true}
        ])
    }

    #[test]
    fn golden_body_with_text_image_tool_calls_results_and_signatures() {
        let call = build(&request(
            "gemini-2.5-flash",
            conversation("gemini-2.5-flash"),
        ))
        .unwrap();
        assert_eq!(call.method, "POST");
        assert_eq!(
            call.path,
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            serde_json::from_slice::<Value>(&call.body).unwrap(),
            json!({
                "systemInstruction": {"parts": [{"text": "You are terse."}]},
                "tools": [{"functionDeclarations": [{
                    "name": "read", "description": "Reads a file",
                    "parametersJsonSchema": {"type": "object",
                                             "properties": {"path": {"type": "string"}},
                                             "additionalProperties": false}}]}],
                "generationConfig": {
                    "maxOutputTokens": 2048,
                    "thinkingConfig": {"thinkingBudget": 8192, "includeThoughts": true}
                },
                "contents": [
                    {"role": "user", "parts": [
                        {"text": "What is in this picture and in a.txt and b.txt?"},
                        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0K"}}
                    ]},
                    {"role": "model", "parts": [
                        {"text": "A cat. Reading the files."},
                        {"functionCall": {"name": "read", "args": {"path": "a.txt"}},
                         "thoughtSignature": "c2ln"},
                        {"functionCall": {"name": "read", "args": {"path": "b.txt"}}}
                    ]},
                    {"role": "user", "parts": [
                        {"functionResponse": {"name": "read", "response": {"output": "hello"}}},
                        {"functionResponse": {"name": "read",
                                              "response": {"error": "(no output)"}}}
                    ]},
                    {"role": "user", "parts": [
                        {"text": TOOL_IMAGES_NOTE},
                        {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}}
                    ]}
                ]
            })
        );
    }

    #[test]
    fn signatures_stay_with_their_model_and_gemini_3_gets_the_sentinel() {
        let body: Value = serde_json::from_slice(
            &build(&request(
                "gemini-3-pro-preview",
                conversation("gemini-2.5-flash"),
            ))
            .unwrap()
            .body,
        )
        .unwrap();
        let parts = &body["contents"][1]["parts"];
        assert_eq!(parts[1]["thoughtSignature"], SKIP_SIGNATURE);
        assert_eq!(parts[2]["thoughtSignature"], SKIP_SIGNATURE);
        assert_eq!(
            body["generationConfig"]["thinkingConfig"],
            json!({"thinkingLevel": "high", "includeThoughts": true})
        );
    }

    #[test]
    fn a_leading_signature_goes_to_the_next_part() {
        let messages = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "provider": "google", "model": "gemini-2.5-pro", "content": [
                {"type": "thinking", "thinking": "", "signature": "Zmlyc3Q="},
                {"type": "text", "text": "Hello"}
            ]}
        ]);
        let body: Value =
            serde_json::from_slice(&build(&request("gemini-2.5-pro", messages)).unwrap().body)
                .unwrap();
        assert_eq!(
            body["contents"][1]["parts"],
            json!([{"text": "Hello", "thoughtSignature": "Zmlyc3Q="}])
        );
    }

    #[test]
    fn model_ids_cannot_change_the_path() {
        for bad in ["", "../x", "..x", "gemini?key=1", "a/b"] {
            let mut req = request("x", json!([]));
            req.model = bad.into();
            assert!(build(&req).is_err(), "{bad}");
        }
        let mut req = request("x", json!([]));
        req.model = "models/gemini-2.5-pro".into();
        assert_eq!(
            build(&req).unwrap().path,
            "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
    }
}
