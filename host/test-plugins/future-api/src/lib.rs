//! A plugin built against `tack:plugin@0.9.0`: the released WIT (`wit/plugin/v0.1.0`) under that version
//! plus a `clock` import no host has, written by build.rs. The host must refuse the API version it
//! does not support, with a message naming both versions, before it looks for the imports. It is
//! otherwise a complete, working plugin.

#[allow(clippy::all, unsafe_op_in_unsafe_fn)]
mod bindings {
    wit_bindgen::generate!({
        path: concat!(env!("OUT_DIR"), "/wit"),
        world: "plugin-future",
    });
}

use bindings::exports::tack::plugin::guest::{
    AgentStartPatch, CompactDecision, CompactRequest, ErrorKind, Guest, GuestDecoder, InputAction,
    ProviderError, ProviderRequest, RequestPlan, SseEvent, StreamEvent, ToolDecision,
};
use bindings::tack::plugin::types::{
    ContentBlock, EventKind, ExecutionMode, InitContext, Registration, ToolCall, ToolResult,
    ToolSpec,
};

struct FutureApi;

fn not_a_provider() -> ProviderError {
    ProviderError {
        kind: ErrorKind::Other,
        message: "future-api is not a provider".into(),
        retry_after_ms: None,
    }
}

impl Guest for FutureApi {
    type Decoder = NoDecoder;

    fn init(_ctx: InitContext) -> Result<Registration, String> {
        Ok(Registration {
            tools: vec![ToolSpec {
                name: "future_tool".into(),
                label: "Future tool".into(),
                description: "Answers `from the future` with the time.".into(),
                parameters: r#"{"type":"object","properties":{}}"#.into(),
                mode: ExecutionMode::Parallel,
                prompt_snippet: None,
            }],
            commands: Vec::new(),
            hooks: Vec::new(),
            events: Vec::new(),
            providers: Vec::new(),
        })
    }

    fn call_tool(_call: ToolCall) -> ToolResult {
        let now = bindings::tack::plugin::clock::now_ms();
        ToolResult {
            content: vec![ContentBlock::Text(format!("from the future, at {now} ms"))],
            details: None,
            is_error: false,
        }
    }

    fn run_command(name: String, _args: String) -> Result<Option<String>, String> {
        Err(format!("unknown command `/{name}`"))
    }

    fn before_tool_call(_call: ToolCall) -> ToolDecision {
        ToolDecision::Allow
    }

    fn after_tool_call(_call: ToolCall, _result: ToolResult) -> Option<ToolResult> {
        None
    }

    fn on_input(_text: String) -> InputAction {
        InputAction::Continue
    }

    fn before_agent_start(_prompt: String, _system_prompt: String) -> AgentStartPatch {
        AgentStartPatch {
            system_prompt: None,
            append_system_prompt: None,
            inject: Vec::new(),
        }
    }

    fn context(_messages: String) -> Option<String> {
        None
    }

    fn before_compact(_request: CompactRequest) -> CompactDecision {
        CompactDecision::Proceed
    }

    fn on_event(_kind: EventKind, _data: String) {}

    fn build_request(_request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        Err(not_a_provider())
    }

    fn decode_error(
        _provider: String,
        _status: u16,
        _headers: Vec<(String, String)>,
        _body: Vec<u8>,
    ) -> ProviderError {
        not_a_provider()
    }
}

struct NoDecoder;

impl GuestDecoder for NoDecoder {
    fn new(_provider: String, _model: String) -> Self {
        NoDecoder
    }

    fn push(&self, _event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        Err(not_a_provider())
    }

    fn finish(&self) -> Result<Vec<StreamEvent>, ProviderError> {
        Err(not_a_provider())
    }
}

bindings::export!(FutureApi with_types_in bindings);
