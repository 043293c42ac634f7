//! The unified request as a Responses API call (`POST /responses`, streamed, not stored).
//!
//! Nothing is stored on OpenAI's side (`store: false`), so reasoning carries over turns as the
//! encrypted reasoning items the previous responses returned: the decoder keeps each item,
//! whole, as its thinking block's signature, and they go back here in place.
//!
//! Each message's items are kept by the provider kit and reused on the next turn; only the
//! messages it has not seen are converted.

use provider_common::body::{Body, Sink, Spot};
use provider_common::cache::{Converted, Role};
use provider_common::json::{self, DataUrl, Items, Object};
use provider_common::kit::{self, Request, Route};
use provider_common::openai_models;
use provider_common::options::Options;
use provider_common::tool_images::{flush as flush_tool_images, TOOL_IMAGES_NOTE};
use provider_common::unified::{Assistant, AssistantPart, Message, Part, Tool};
use serde::Serialize;
use serde_json::Value;
use tack_sdk::{ProviderError, ProviderRequest, ReasoningLevel};

use crate::call_ids;

/// What the cache keeps of one message: its input items, serialized, and for a tool result its
/// images, which follow the run of results.
#[derive(Clone, Debug, Default)]
pub struct Fragment {
    items: Vec<InputItem>,
    images: Items,
}

#[derive(Clone, Debug)]
enum InputItem {
    /// An item, and where it was written in the previous body.
    Raw(Vec<u8>, Spot),
    /// The `content` of an assistant output message, whose id is numbered across the whole
    /// conversation when the request is written.
    Output(Vec<u8>, Spot),
}

/// What ChatGPT's backend is told when the conversation has no system prompt of its own, as
/// Codex's other clients do.
const CHATGPT_DEFAULT_INSTRUCTIONS: &str = "You are a helpful assistant.";

/// The reasoning effort to send: `supports_reasoning_effort` (bool) sends one to models outside
/// the catalogue, or withholds it from catalogue models.
pub fn effort(request: &ProviderRequest) -> Result<Option<&'static str>, ProviderError> {
    let options = Options::parse(&request.options)?;
    // Every model ChatGPT's backend serves reasons, including ones newer than the catalogue.
    let chatgpt = options.bool("chatgpt")?.unwrap_or(false);
    let supported = options
        .bool("supports_reasoning_effort")?
        .or(chatgpt.then_some(true));
    Ok(openai_models::effort(
        &request.model,
        request.reasoning,
        supported,
    ))
}

/// Writes the body with the reasoning effort [`effort`] chose.
pub fn write(
    request: &Request<'_, Fragment>,
    effort: Option<&'static str>,
    object: &mut Object<'_, Body>,
) -> Result<Route, ProviderError> {
    let unified = request.unified;
    // Fields in the order of their names, as the `Value` this body was once built as wrote them.
    if effort.is_some() {
        object.field("include", &["reasoning.encrypted_content"])?;
    }
    let options = Options::parse(&unified.options)?;
    // ChatGPT's backend for subscription logins (Codex) takes the Responses API with two
    // differences: instructions are required, and the output limit is its own to set.
    let chatgpt = options.bool("chatgpt")?.unwrap_or(false);
    write_input(object.key("input")?, request.messages)?;
    if !unified.system_prompt.trim().is_empty() {
        object.field("instructions", &unified.system_prompt)?;
    } else if chatgpt {
        object.field("instructions", &CHATGPT_DEFAULT_INSTRUCTIONS)?;
    }
    if let Some(max_tokens) = unified.max_tokens.filter(|_| !chatgpt) {
        object.field("max_output_tokens", &max_tokens)?;
    }
    // Azure names a model by the deployment that serves it.
    let model = options
        .string_in("deployments", &unified.model)?
        .unwrap_or(&unified.model);
    object.field("model", &model)?;
    if let Some(effort) = effort {
        let reasoning = Reasoning {
            effort,
            summary: (unified.reasoning != ReasoningLevel::Off).then_some("auto"),
        };
        object.field("reasoning", &reasoning)?;
    }
    object.field("store", &false)?;
    object.field("stream", &true)?;
    if !request.tools.is_empty() {
        let tools: Vec<ToolDef> = request.tools.iter().map(ToolDef::from).collect();
        object.field("tools", &tools)?;
    }
    Ok(Route::new("/responses"))
}

// The body's parts, fields in the order of their names.

#[derive(Serialize)]
struct Reasoning<'a> {
    effort: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'static str>,
}

/// `strict: false` because the API's default (strict schemas) requires every property to be
/// listed as required, which tools' schemas do not promise.
#[derive(Serialize)]
struct ToolDef<'a> {
    description: &'a str,
    name: &'a str,
    parameters: &'a Value,
    strict: bool,
    #[serde(rename = "type")]
    kind: &'static str,
}

impl<'a> From<&'a Tool> for ToolDef<'a> {
    fn from(tool: &'a Tool) -> Self {
        ToolDef {
            description: &tool.description,
            name: &tool.name,
            parameters: &tool.parameters,
            strict: false,
            kind: "function",
        }
    }
}

#[derive(Serialize)]
struct UserItem<P: Serialize> {
    content: P,
    role: &'static str,
}

#[derive(Serialize)]
#[serde(untagged)]
enum InputPart<'a> {
    Text {
        text: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
    },
    Image {
        detail: &'static str,
        image_url: DataUrl<'a>,
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

#[derive(Serialize)]
struct OutputText<'a> {
    annotations: [(); 0],
    text: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    arguments: String,
    call_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct FunctionCallOutput<'a> {
    call_id: String,
    output: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

fn write_input(out: &mut Body, messages: &[Converted<'_, Fragment>]) -> Result<(), ProviderError> {
    let mut items = json::Array::begin(out);
    let mut tool_images: Vec<&Items> = Vec::new();
    let mut text_items = 0usize;
    for message in messages {
        if message.role != Role::ToolResult {
            flush_tool_images(&mut tool_images, &mut items, &input_text(TOOL_IMAGES_NOTE))?;
        }
        let fragment: &Fragment = &message.fragment;
        for item in &fragment.items {
            match item {
                InputItem::Raw(bytes, spot) => items.fragment(bytes, spot),
                InputItem::Output(content, spot) => {
                    // Output messages need an id; the real one is not kept, and any `msg_` id
                    // will do for a response that is not stored.
                    text_items += 1;
                    let mut object = json::Object::begin(items.item());
                    object.key("content")?.fragment(None, content, spot);
                    object.field("id", &format_args!("msg_{text_items}"))?;
                    object.field("role", &"assistant")?;
                    object.field("status", &"completed")?;
                    object.field("type", &"message")?;
                    object.end();
                }
            }
        }
        if !fragment.images.is_empty() {
            tool_images.push(&fragment.images);
        }
    }
    flush_tool_images(&mut tool_images, &mut items, &input_text(TOOL_IMAGES_NOTE))?;
    items.end();
    Ok(())
}

impl kit::Fragment for Fragment {
    /// One message's input items.
    fn convert(message: &Message, provider: &str, model: &str) -> Result<Self, ProviderError> {
        let mut fragment = Fragment::default();
        match message {
            Message::User(parts) => {
                let content: Vec<InputPart> = parts.iter().filter_map(input_part).collect();
                if !content.is_empty() {
                    let item = UserItem {
                        content,
                        role: "user",
                    };
                    fragment
                        .items
                        .push(InputItem::Raw(json::to_vec(&item)?, Spot::default()));
                }
            }
            Message::Assistant(assistant) => {
                assistant_items(assistant, provider, model, &mut fragment.items)?;
            }
            Message::ToolResult(result) => {
                let (call_id, _) = call_ids::split(&result.call_id);
                let text = result.text();
                let output = FunctionCallOutput {
                    call_id,
                    output: if text.trim().is_empty() {
                        "(no output)"
                    } else {
                        &text
                    },
                    kind: "function_call_output",
                };
                fragment
                    .items
                    .push(InputItem::Raw(json::to_vec(&output)?, Spot::default()));
                for image in result.images().filter_map(input_part) {
                    fragment.images.push(&image)?;
                }
            }
        }
        Ok(fragment)
    }

    /// About how many bytes it takes in the body.
    fn size(&self) -> usize {
        self.items
            .iter()
            .map(|item| match item {
                InputItem::Raw(bytes, _) | InputItem::Output(bytes, _) => bytes.len() + 128,
            })
            .sum()
    }
}

fn input_text(text: &str) -> InputPart<'_> {
    InputPart::Text {
        text,
        kind: "input_text",
    }
}

fn input_part(part: &Part) -> Option<InputPart<'_>> {
    match part {
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(input_text(text)),
        Part::Image { mime_type, data } => Some(InputPart::Image {
            detail: "auto",
            image_url: DataUrl { mime_type, data },
            kind: "input_image",
        }),
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
    items: &mut Vec<InputItem>,
) -> Result<(), ProviderError> {
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
                    items.push(InputItem::Raw(json::to_vec(&item)?, Spot::default()));
                }
            }
            AssistantPart::Text(text) if text.trim().is_empty() => {}
            AssistantPart::Text(text) => {
                let content = [OutputText {
                    annotations: [],
                    text,
                    kind: "output_text",
                }];
                items.push(InputItem::Output(json::to_vec(&content)?, Spot::default()));
            }
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => {
                let (call_id, item_id) = call_ids::split(id);
                let call = FunctionCall {
                    arguments: arguments.to_string(),
                    call_id,
                    id: item_id.filter(|_| replay),
                    name,
                    kind: "function_call",
                };
                items.push(InputItem::Raw(json::to_vec(&call)?, Spot::default()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::fixtures::{self, READ_PARAMETERS};
    use provider_common::kit;
    use tack_sdk::HttpCall;

    use crate::provider::OpenAiResponses;

    use serde_json::json;

    fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
        kit::build_fresh::<OpenAiResponses>(request)
    }

    const REASONING: &str = r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Look, then read."}],"encrypted_content":"gAAA"}"#;

    fn request(model: &str, messages: Value) -> ProviderRequest {
        fixtures::request("openai-responses", model, &messages, READ_PARAMETERS)
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
    fn chatgpts_backend_always_gets_instructions_and_sets_its_own_output_limit() {
        let mut request = request("gpt-5.4", json!([{"role": "user", "content": "hi"}]));
        request.options = json!({"chatgpt": true}).to_string();
        request.system_prompt = String::new();
        let body = body(&request);
        assert_eq!(body["instructions"], CHATGPT_DEFAULT_INSTRUCTIONS);
        assert!(body.get("max_output_tokens").is_none(), "{body}");
        assert_eq!(body["store"], false);
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
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

    #[test]
    fn cached_bodies_are_the_bytes_of_fresh_ones_through_a_long_session() {
        provider_common::script::assert_kit_matches_fresh::<OpenAiResponses>(
            &provider_common::script::OPENAI_RESPONSES,
            240,
        );
    }
}
