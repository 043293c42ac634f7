//! `openai-responses`: OpenAI models through the Responses API, which streams reasoning
//! summaries and hands back encrypted reasoning to replay on the next turn.
//!
//! The plugin only translates: [`request`] builds a streamed `POST /responses`, [`decode`] turns
//! its events into unified events, and [`errors`] classifies failures. The host sends the
//! request to the configured base URL and attaches `OPENAI_API_KEY` as a bearer token; the key
//! never enters the guest.
//!
//! Options: `supports_reasoning_effort` (bool) sends a reasoning effort to models outside the
//! catalogue, or withholds it from catalogue models.

mod call_ids;
mod decode;
mod errors;
mod request;

use provider_common::openai_models;
use tack_sdk::{
    export_incremental_provider, export_plugin, AuthScheme, Decoder, IncrementalProvider,
    InitContext, Plugin, ProviderError, ProviderRequest, ProviderSpec, Registration, RequestPlan,
};

#[derive(Default)]
struct OpenAiResponses {
    /// The conversation converted for the previous request: the host serves a session's turns
    /// from the same instance when it can, and each turn converts only the new messages.
    cache: request::Cache,
}

impl Plugin for OpenAiResponses {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        let mut spec = ProviderSpec::new("openai-responses", "OpenAI (Responses API)")
            .base_url("https://api.openai.com/v1")
            .secret("OPENAI_API_KEY", AuthScheme::Bearer);
        for model in openai_models::specs() {
            spec = spec.model(model);
        }
        Ok(Registration::new().provider(spec))
    }

    fn build_request(&mut self, request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        let after = self.cache.take_after();
        request::build_with(&mut self.cache, request, after).map(RequestPlan::Http)
    }

    fn decode_error(
        &mut self,
        _provider: &str,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> ProviderError {
        errors::from_response(status, headers, body)
    }

    fn new_decoder(&mut self, _provider: &str, _model: &str) -> Box<dyn Decoder> {
        Box::<decode::ResponsesDecoder>::default()
    }
}

impl IncrementalProvider for OpenAiResponses {
    fn expect_messages_after(
        &mut self,
        kept: u32,
        provider: &str,
        model: &str,
        held_body: u64,
    ) -> bool {
        self.cache
            .expect(&request::cache_key(provider, model), kept, held_body)
    }

    fn body_prefix(&mut self) -> u64 {
        self.cache.body_prefix()
    }
}

export_plugin!(OpenAiResponses);
export_incremental_provider!(OpenAiResponses);
