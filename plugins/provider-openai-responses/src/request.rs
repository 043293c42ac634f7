//! The unified request as a Responses API call (`POST /responses`, streamed, not stored).
//!
//! Nothing is stored on OpenAI's side (`store: false`), so reasoning carries over turns as the
//! encrypted reasoning items the previous responses returned: the decoder keeps each item,
//! whole, as its thinking block's signature, and they go back here in place.

use provider_common::openai_models;
use provider_common::options::Options;
use provider_common::unified::{self, Assistant, AssistantPart, Message, Part, Tool};
use serde_json::{json, Value};
use tack_sdk::{HttpCall, ProviderError, ProviderRequest, ReasoningLevel};

use crate::call_ids;

/// Introduces the images tool results returned; function outputs hold text only, so the images
/// follow in a user message.
pub const TOOL_IMAGES_NOTE: &str = "Images returned by the tool calls above:";

pub fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
    let messages = unified::parse_messages(&request.messages)?;
    let tools = unified::parse_tools(&request.tools)?;
    let options = Options::parse(&request.options)?;

    let mut body = json!({
        "model": request.model,
        "input": convert_messages(&messages, &request.provider, &request.model),
        "stream": true,
        "store": false,
    });
    if !request.system_prompt.trim().is_empty() {
        body["instructions"] = json!(request.system_prompt);
    }
    if let Some(max_tokens) = request.max_tokens {
        body["max_output_tokens"] = json!(max_tokens);
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.iter().map(tool).collect());
    }
    let supported = options.bool("supports_reasoning_effort")?;
    if let Some(effort) = openai_models::effort(&request.model, request.reasoning, supported) {
        let mut reasoning = json!({"effort": effort});
        if request.reasoning != ReasoningLevel::Off {
            reasoning["summary"] = json!("auto");
        }
        body["reasoning"] = reasoning;
        body["include"] = json!(["reasoning.encrypted_content"]);
    }
    Ok(HttpCall {
        method: "POST".to_string(),
        path: "/responses".to_string(),
        headers: vec![
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
        ],
        body: body.to_string().into_bytes(),
    })
}

/// `strict: false` because the API's default (strict schemas) requires every property to be
/// listed as required, which tools' schemas do not promise.
fn tool(tool: &Tool) -> Value {
    json!({
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": false,
    })
}

fn convert_messages(messages: &[Message], provider: &str, model: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut tool_images: Vec<Value> = Vec::new();
    let mut text_items = 0usize;
    for message in messages {
        if !matches!(message, Message::ToolResult(_)) {
            flush_tool_images(&mut tool_images, &mut items);
        }
        match message {
            Message::User(parts) => {
                let content: Vec<Value> = parts.iter().filter_map(input_part).collect();
                if !content.is_empty() {
                    items.push(json!({"role": "user", "content": content}));
                }
            }
            Message::Assistant(assistant) => {
                assistant_items(assistant, provider, model, &mut text_items, &mut items);
            }
            Message::ToolResult(result) => {
                let (call_id, _) = call_ids::split(&result.call_id);
                let text = result.text();
                items.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": if text.trim().is_empty() { "(no output)".to_string() } else { text },
                }));
                tool_images.extend(result.images().filter_map(input_part));
            }
        }
    }
    flush_tool_images(&mut tool_images, &mut items);
    items
}

fn flush_tool_images(images: &mut Vec<Value>, items: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut content = vec![json!({"type": "input_text", "text": TOOL_IMAGES_NOTE})];
    content.append(images);
    items.push(json!({"role": "user", "content": content}));
}

fn input_part(part: &Part) -> Option<Value> {
    match part {
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(json!({"type": "input_text", "text": text})),
        Part::Image { mime_type, data } => Some(json!({
            "type": "input_image",
            "detail": "auto",
            "image_url": format!("data:{mime_type};base64,{data}"),
        })),
    }
}

/// A reasoning item kept as a thinking block's signature, if it is one.
fn reasoning_item(signature: Option<&str>) -> Option<Value> {
    let item: Value = serde_json::from_str(signature?).ok()?;
    (item.get("type").and_then(Value::as_str) == Some("reasoning")).then_some(item)
}

/// The assistant's output items. Its reasoning goes back only to the model that wrote it and
/// only when every thinking block carries its item; the function calls name their item ids only
/// then too, because the API refuses a call item whose paired reasoning item is missing.
fn assistant_items(
    assistant: &Assistant,
    provider: &str,
    model: &str,
    text_items: &mut usize,
    items: &mut Vec<Value>,
) {
    let replay = assistant.is_from(provider, model)
        && assistant.content.iter().all(|part| match part {
            AssistantPart::Thinking { signature, .. } => {
                reasoning_item(signature.as_deref()).is_some()
            }
            _ => true,
        });
    for part in &assistant.content {
        match part {
            AssistantPart::Thinking { signature, .. } => {
                if let Some(item) = reasoning_item(signature.as_deref()).filter(|_| replay) {
                    items.push(item);
                }
            }
            AssistantPart::Text(text) if text.trim().is_empty() => {}
            AssistantPart::Text(text) => {
                // Output messages need an id; the real one is not kept, and any `msg_` id will
                // do for a response that is not stored.
                *text_items += 1;
                items.push(json!({
                    "type": "message",
                    "role": "assistant",
                    "id": format!("msg_{text_items}"),
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }));
            }
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => {
                let (call_id, item_id) = call_ids::split(id);
                let mut item = json!({
                    "type": "function_call",
                    "call_id": call_id,
                    "name": name,
                    "arguments": arguments.to_string(),
                });
                if let Some(item_id) = item_id.filter(|_| replay) {
                    item["id"] = json!(item_id);
                }
                items.push(item);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_sdk::{ExecutionMode, ToolSpec};

    const REASONING: &str = r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Look, then read."}],"encrypted_content":"gAAA"}"#;

    fn request(model: &str, messages: Value) -> ProviderRequest {
        ProviderRequest {
            provider: "openai-responses".into(),
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
            reasoning: ReasoningLevel::Medium,
            options: "{}".into(),
        }
    }

    fn body(request: &ProviderRequest) -> Value {
        serde_json::from_slice(&build(request).unwrap().body).unwrap()
    }

    fn conversation(model: &str) -> Value {
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture and in a.txt?"},
                {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}
            ]},
            {"role": "assistant", "provider": "openai-responses", "model": model, "content": [
                {"type": "thinking", "thinking": "Look, then read.", "signature": REASONING},
                {"type": "text", "text": "A cat. Reading the file."},
                {"type": "toolCall", "id": "call_1|fc_1", "name": "read",
                 "arguments": {"path": "a.txt"}}
            ]},
            {"role": "toolResult", "toolCallId": "call_1|fc_1", "toolName": "read",
             "content": [{"type": "text", "text": "hello"},
                         {"type": "image", "data": "R0lG", "mimeType": "image/gif"}],
             "isError": false}
        ])
    }

    #[test]
    fn golden_body_with_text_image_tool_call_result_and_reasoning() {
        let call = build(&request("o4-mini", conversation("o4-mini"))).unwrap();
        assert_eq!(
            (call.method.as_str(), call.path.as_str()),
            ("POST", "/responses")
        );
        let reasoning: Value = serde_json::from_str(REASONING).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&call.body).unwrap(),
            json!({
                "model": "o4-mini",
                "stream": true,
                "store": false,
                "instructions": "You are terse.",
                "max_output_tokens": 2048,
                "reasoning": {"effort": "medium", "summary": "auto"},
                "include": ["reasoning.encrypted_content"],
                "tools": [{"type": "function", "name": "read", "description": "Reads a file",
                           "parameters": {"type": "object",
                                          "properties": {"path": {"type": "string"}}},
                           "strict": false}],
                "input": [
                    {"role": "user", "content": [
                        {"type": "input_text", "text": "What is in this picture and in a.txt?"},
                        {"type": "input_image", "detail": "auto",
                         "image_url": "data:image/png;base64,iVBORw0K"}
                    ]},
                    reasoning,
                    {"type": "message", "role": "assistant", "id": "msg_1",
                     "status": "completed",
                     "content": [{"type": "output_text", "text": "A cat. Reading the file.",
                                  "annotations": []}]},
                    {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                     "name": "read", "arguments": "{\"path\":\"a.txt\"}"},
                    {"type": "function_call_output", "call_id": "call_1", "output": "hello"},
                    {"role": "user", "content": [
                        {"type": "input_text", "text": TOOL_IMAGES_NOTE},
                        {"type": "input_image", "detail": "auto",
                         "image_url": "data:image/gif;base64,R0lG"}
                    ]}
                ]
            })
        );
    }

    #[test]
    fn another_models_reasoning_and_item_ids_stay_behind() {
        let body = body(&request("gpt-5", conversation("o4-mini")));
        let input = body["input"].as_array().unwrap();
        assert!(input
            .iter()
            .all(|item| item.get("type") != Some(&json!("reasoning"))));
        let call = input
            .iter()
            .find(|item| item["type"] == "function_call")
            .unwrap();
        assert_eq!(call.get("id"), None);
        assert_eq!(call["call_id"], "call_1");
    }

    #[test]
    fn models_without_reasoning_get_no_reasoning_fields() {
        let plain = body(&request(
            "gpt-4.1",
            json!([{"role": "user", "content": "hi"}]),
        ));
        assert!(plain.get("reasoning").is_none() && plain.get("include").is_none());
        let mut off = request("gpt-5", json!([]));
        off.reasoning = ReasoningLevel::Off;
        assert_eq!(body(&off)["reasoning"], json!({"effort": "minimal"}));
    }
}
