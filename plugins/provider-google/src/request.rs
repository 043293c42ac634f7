//! The unified request as a `streamGenerateContent` call (`POST
//! /v1beta/models/{model}:streamGenerateContent?alt=sse`).
//!
//! Each message's parts are kept by the provider kit and reused on the next turn; only the
//! messages it has not seen are converted.

use provider_common::body::{Body, Sink, Spot};
use provider_common::cache::{Converted, Role};
use provider_common::json::{Items, Object};
use provider_common::kit::{self, HttpProvider, Request, Route, WithModels};
use provider_common::tool_images::TOOL_IMAGES_NOTE;
use provider_common::unified::{Assistant, AssistantPart, Message, Part, Tool, ToolResult};
use serde::Serialize;
use serde_json::{json, Map, Value};
use tack_sdk::{AuthScheme, ErrorKind, ProviderError, ProviderSpec};

use crate::{decode, errors, models, thinking};

/// Gemini 3 refuses a function call without a thought signature when it thinks; calls written by
/// another model have none, and this documented value tells it not to check.
const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

/// What the cache keeps of one message: its parts, serialized, and for a tool result its
/// images, which follow the run of results.
#[derive(Clone, Debug, Default)]
pub struct Fragment {
    parts: Items,
    /// Where `parts` were written in the previous body.
    spot: Spot,
    /// Where the opening of the content it starts, and the closing of the content it ends,
    /// were written.
    open_spot: Spot,
    close_spot: Spot,
    images: Items,
}

/// Google as the provider kit sees it: what it registers, and how it writes requests and
/// reads answers.
#[derive(Default)]
pub struct Google;

impl HttpProvider for Google {
    type Fragment = Fragment;
    type Decoder = decode::GeminiDecoder;

    fn spec() -> ProviderSpec {
        ProviderSpec::new("google", "Google Gemini")
            .base_url("https://generativelanguage.googleapis.com")
            .secret(
                "GEMINI_API_KEY",
                AuthScheme::Header("x-goog-api-key".into()),
            )
            .with_models(provider_common::models::specs(models::MODELS))
    }

    /// Without its `models/` prefix, so that both spellings replay the same thought signatures.
    fn model_id(model: &str) -> &str {
        model.strip_prefix("models/").unwrap_or(model)
    }

    /// The model id goes into the path: anything that could change the path's meaning is refused.
    fn plan(&mut self, request: &Request<'_, Fragment>) -> Result<(), ProviderError> {
        let model = request.model;
        let valid = !model.is_empty()
            && !model.contains("..")
            && model
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if valid {
            Ok(())
        } else {
            Err(ProviderError::new(
                ErrorKind::InvalidRequest,
                format!("`{model}` is not a valid Gemini model id"),
            ))
        }
    }

    /// Writes the body.
    fn write(
        &mut self,
        request: &Request<'_, Fragment>,
        object: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        let (unified, model) = (request.unified, request.model);
        // Fields in the order of their names, as the `Value` this body was once built as wrote them.
        write_contents(object.key("contents")?, request.messages)?;
        let mut generation = Map::new();
        if let Some(max_tokens) = unified.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(max_tokens));
        }
        if let Some(config) = thinking::config(model, unified.reasoning) {
            generation.insert("thinkingConfig".into(), config);
        }
        if !generation.is_empty() {
            object.field("generationConfig", &generation)?;
        }
        if !unified.system_prompt.trim().is_empty() {
            let system = Content {
                parts: [UserPart::text(&unified.system_prompt)],
                role: None,
            };
            object.field("systemInstruction", &system)?;
        }
        if !request.tools.is_empty() {
            let declarations = [Declarations {
                function_declarations: request.tools.iter().map(Declaration::from).collect(),
            }];
            object.field("tools", &declarations)?;
        }
        // Vertex AI's base URL holds its version, project and location, and a gateway's
        // (`versioned_base_url`, OpenCode Zen's `…/zen/v1`) its version: only the model's path
        // follows them.
        let options = provider_common::options::Options::parse(&unified.options)?;
        let versioned = options.bool("vertex")? == Some(true)
            || options.bool("versioned_base_url")? == Some(true);
        let version = if versioned { "" } else { "/v1beta" };
        Ok(Route::new(format!(
            "{version}/models/{model}:streamGenerateContent?alt=sse"
        )))
    }

    fn decode_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
        errors::from_response(status, headers, body)
    }

    fn decoder(&self) -> decode::GeminiDecoder {
        decode::GeminiDecoder::default()
    }
}

// The body's parts, fields in the order of their names.

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Declarations<'a> {
    function_declarations: Vec<Declaration<'a>>,
}

/// `parametersJsonSchema` takes full JSON Schema; the older `parameters` takes only an OpenAPI
/// subset and refuses common keywords such as `additionalProperties`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Declaration<'a> {
    description: &'a str,
    name: &'a str,
    parameters_json_schema: &'a Value,
}

impl<'a> From<&'a Tool> for Declaration<'a> {
    fn from(tool: &'a Tool) -> Self {
        Declaration {
            description: &tool.description,
            name: &tool.name,
            parameters_json_schema: &tool.parameters,
        }
    }
}

#[derive(Serialize)]
struct Content<P: Serialize> {
    parts: P,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UserPart<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    inline_data: Option<InlineData<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

impl<'a> UserPart<'a> {
    fn text(text: &'a str) -> Self {
        UserPart {
            inline_data: None,
            text: Some(text),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InlineData<'a> {
    data: &'a str,
    mime_type: &'a str,
}

#[derive(Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelPart<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<FunctionCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<&'a str>,
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    args: &'a Value,
    name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FunctionResponsePart<'a> {
    function_response: FunctionResponse<'a>,
}

#[derive(Serialize)]
struct FunctionResponse<'a> {
    name: &'a str,
    response: ResponseText<'a>,
}

#[derive(Serialize)]
struct ResponseText<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a str>,
}

/// Writes the contents: a tool result's function response joins the content of the results
/// before it (the results of one batch share a content), and images of tool results follow the
/// batch in a user content.
///
/// A content's opening and closing are pieces placed by the spots of its first and last
/// message, so a content repeated from the previous body costs no comparison.
fn write_contents(
    out: &mut Body,
    messages: &[Converted<'_, Fragment>],
) -> Result<(), ProviderError> {
    out.put(b"[");
    let mut contents = Contents { out, first: true };
    let mut results: Vec<&Fragment> = Vec::new();
    let mut tool_images: Vec<&Items> = Vec::new();
    for message in messages {
        if message.role != Role::ToolResult {
            contents.flush_results(&mut results, &mut tool_images)?;
        }
        let fragment: &Fragment = &message.fragment;
        match message.role {
            Role::ToolResult => {
                results.push(fragment);
                if !fragment.images.is_empty() {
                    tool_images.push(&fragment.images);
                }
            }
            Role::User if !fragment.parts.is_empty() => contents.cached("user", &[fragment]),
            Role::Assistant if !fragment.parts.is_empty() => contents.cached("model", &[fragment]),
            Role::User | Role::Assistant => {}
        }
    }
    contents.flush_results(&mut results, &mut tool_images)?;
    contents.out.put(b"]");
    Ok(())
}

/// The contents array being written.
struct Contents<'a> {
    out: &'a mut Body,
    first: bool,
}

impl Contents<'_> {
    fn separator(&mut self) -> Option<u8> {
        let separator = (!self.first).then_some(b',');
        self.first = false;
        separator
    }

    /// A content of cached messages' parts.
    fn cached(&mut self, role: &str, messages: &[&Fragment]) {
        let (Some(first), Some(last)) = (messages.first(), messages.last()) else {
            return;
        };
        let separator = self.separator();
        self.out
            .fragment(separator, b"{\"parts\":[", &first.open_spot);
        let mut separator = None;
        for message in messages.iter().filter(|m| !m.parts.is_empty()) {
            self.out
                .fragment(separator, message.parts.as_bytes(), &message.spot);
            separator = Some(b',');
        }
        self.out.fragment(None, closing(role), &last.close_spot);
    }

    /// A content of parts written afresh.
    fn fresh(&mut self, role: &str, parts: &[&Items]) {
        if let Some(separator) = self.separator() {
            self.out.put(&[separator]);
        }
        self.out.put(b"{\"parts\":[");
        let mut separator = None;
        for items in parts.iter().filter(|items| !items.is_empty()) {
            if let Some(separator) = separator {
                self.out.put(&[separator]);
            }
            self.out.put(items.as_bytes());
            separator = Some(b',');
        }
        self.out.put(closing(role));
    }

    fn flush_results(
        &mut self,
        results: &mut Vec<&Fragment>,
        images: &mut Vec<&Items>,
    ) -> Result<(), ProviderError> {
        if !results.is_empty() {
            self.cached("user", results);
            results.clear();
        }
        if !images.is_empty() {
            let mut note = Items::default();
            note.push(&UserPart::text(TOOL_IMAGES_NOTE))?;
            let parts: Vec<&Items> = std::iter::once(&note).chain(images.drain(..)).collect();
            self.fresh("user", &parts);
        }
        Ok(())
    }
}

/// The end of a content of `role`: its parts' closing bracket and its role.
fn closing(role: &str) -> &'static [u8] {
    if role == "user" {
        br#"],"role":"user"}"#
    } else {
        br#"],"role":"model"}"#
    }
}

impl kit::Fragment for Fragment {
    /// One message's parts.
    fn convert(message: &Message, provider: &str, model: &str) -> Result<Self, ProviderError> {
        let mut fragment = Fragment::default();
        match message {
            Message::User(parts) => {
                for user_part in parts.iter().filter_map(part) {
                    fragment.parts.push(&user_part)?;
                }
            }
            Message::Assistant(assistant) => {
                for model_part in model_parts(assistant, provider, model) {
                    fragment.parts.push(&model_part)?;
                }
            }
            Message::ToolResult(result) => {
                let text = result.text();
                fragment.parts.push(&function_response(result, &text))?;
                for image in result.images().filter_map(part) {
                    fragment.images.push(&image)?;
                }
            }
        }
        Ok(fragment)
    }

    /// About how many bytes it takes in the body.
    fn size(&self) -> usize {
        self.parts.byte_len() + 32
    }
}

fn part(part: &Part) -> Option<UserPart<'_>> {
    match part {
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(UserPart::text(text)),
        Part::Image { mime_type, data } => Some(UserPart {
            inline_data: Some(InlineData { data, mime_type }),
            text: None,
        }),
    }
}

fn function_response<'a>(result: &'a ToolResult, text: &'a str) -> FunctionResponsePart<'a> {
    let text = if text.trim().is_empty() {
        "(no output)"
    } else {
        text
    };
    let (error, output) = if result.is_error {
        (Some(text), None)
    } else {
        (None, Some(text))
    };
    FunctionResponsePart {
        function_response: FunctionResponse {
            name: &result.tool_name,
            response: ResponseText { error, output },
        },
    }
}

/// The model's parts. Thought signatures are only valid for the model that wrote them; a
/// thinking block without text holds the signature of the part before it (see the decoder),
/// or of the part after it when it comes first.
fn model_parts<'a>(assistant: &'a Assistant, provider: &str, model: &str) -> Vec<ModelPart<'a>> {
    let same_model = assistant.is_from(provider, model);
    let mut parts: Vec<ModelPart<'a>> = Vec::new();
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
                        Some(last) => last.thought_signature = Some(signature),
                        None => waiting = Some(signature),
                    }
                    continue;
                }
                ModelPart {
                    text: Some(text),
                    thought: Some(true),
                    thought_signature: Some(signature),
                    ..ModelPart::default()
                }
            }
            AssistantPart::Text(text) if text.trim().is_empty() => continue,
            AssistantPart::Text(text) => ModelPart {
                text: Some(text),
                ..ModelPart::default()
            },
            AssistantPart::ToolCall {
                name, arguments, ..
            } => ModelPart {
                function_call: Some(FunctionCall {
                    args: arguments,
                    name,
                }),
                ..ModelPart::default()
            },
        };
        if let Some(signature) = waiting.take() {
            if next.thought_signature.is_none() {
                next.thought_signature = Some(signature);
            }
        }
        parts.push(next);
    }
    if model.starts_with("gemini-3") {
        for part in &mut parts {
            if part.function_call.is_some() && part.thought_signature.is_none() {
                part.thought_signature = Some(SKIP_SIGNATURE);
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::fixtures;
    use provider_common::kit;
    use tack_sdk::{HttpCall, ProviderRequest};

    fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
        kit::build_fresh::<Google>(request)
    }

    fn request(model: &str, messages: Value) -> ProviderRequest {
        // Gemini refuses `additionalProperties`; the request must drop it.
        fixtures::request(
            "google",
            model,
            &messages,
            r#"{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}"#,
        )
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

    #[test]
    fn cached_bodies_are_the_bytes_of_fresh_ones_through_a_long_session() {
        provider_common::script::assert_kit_matches_fresh::<Google>(
            &provider_common::script::GOOGLE,
            240,
        );
    }
}
