//! `demo`: tack's offline, deterministic provider, the default when no API key is configured.
//!
//! It runs no model. It recognizes a few requests by keyword (list files, read a file, search,
//! git status, write a note), answers them with calls to the core tools that the request offers,
//! summarizes the tool results when they come back, and otherwise explains what it can do and how
//! to configure a real provider. Every answer's text starts with `[demo] `. The same
//! conversation always gets the same answer: no randomness, no clock.
//!
//! The answer is produced locally as an SSE body ([`RequestPlan::Local`]) and decoded by the
//! SDK's [`LocalDecoder`], so it streams through the host exactly like a network provider's.

mod answer;
mod intents;

use serde_json::Value;
use tack_sdk::sse_local::{LocalDecoder, SseWriter};
use tack_sdk::{
    export_plugin, Decoder, ErrorKind, InitContext, ModelSpec, Plugin, ProviderError,
    ProviderRequest, ProviderSpec, Registration, RequestPlan, StopReason, Usage,
};

#[derive(Default)]
struct Demo;

impl Plugin for Demo {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        let model = ModelSpec::new("demo-1", "Demo 1 (offline)", 200_000, 8192);
        Ok(Registration::new().provider(ProviderSpec::new("demo", "Demo (offline)").model(model)))
    }

    fn build_request(&mut self, request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        let messages: Vec<Value> = serde_json::from_str(&request.messages).map_err(|e| {
            ProviderError::new(
                ErrorKind::InvalidRequest,
                format!("messages are not a JSON array: {e}"),
            )
        })?;
        let tools: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
        let answer = answer::respond(&messages, &tools);

        let mut sse = SseWriter::new();
        sse.text(&answer.text);
        let mut output_chars = answer.text.len();
        for call in &answer.calls {
            sse.tool_call(&call.id, &call.name, &call.arguments);
            output_chars += call.name.len() + call.arguments.to_string().len();
        }
        let input_chars = request.system_prompt.len()
            + request.messages.len()
            + request
                .tools
                .iter()
                .map(|t| t.name.len() + t.description.len() + t.parameters.len())
                .sum::<usize>();
        sse.usage(&Usage {
            input: (input_chars / 4) as u64,
            output: (output_chars / 4) as u64,
            ..Usage::default()
        });
        sse.stop(if answer.calls.is_empty() {
            StopReason::Stop
        } else {
            StopReason::ToolUse
        });
        Ok(RequestPlan::Local(sse.into_bytes()))
    }

    fn new_decoder(&mut self, _provider: &str, _model: &str) -> Box<dyn Decoder> {
        Box::new(LocalDecoder::new())
    }
}

export_plugin!(Demo);
