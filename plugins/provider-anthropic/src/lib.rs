//! `anthropic`: Claude through Anthropic's Messages API.
//!
//! The plugin only translates. [`request`] turns the unified request into a streamed
//! `POST /v1/messages` (prompt caching on the system prompt and the newest user turn, tools,
//! images, thinking budgets, signed thinking replayed), [`decode`] turns the event stream back
//! into unified events, and [`errors`] classifies failures. The host sends the request to the
//! configured base URL and attaches `ANTHROPIC_API_KEY` as `x-api-key`; the key never enters
//! the guest.

mod decode;
mod errors;
mod models;
mod request;
mod thinking;

use tack_sdk::{
    export_incremental_provider, export_plugin, AuthScheme, Decoder, IncrementalProvider,
    InitContext, Plugin, ProviderError, ProviderRequest, ProviderSpec, Registration, RequestPlan,
};

#[derive(Default)]
struct Anthropic {
    /// The conversation converted for the previous request: the host serves a session's turns
    /// from the same instance when it can, and each turn converts only the new messages.
    cache: request::Cache,
}

impl Plugin for Anthropic {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        let mut spec = ProviderSpec::new("anthropic", "Anthropic")
            .base_url("https://api.anthropic.com")
            .secret("ANTHROPIC_API_KEY", AuthScheme::Header("x-api-key".into()));
        for model in models::specs() {
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
        Box::<decode::MessagesDecoder>::default()
    }
}

impl IncrementalProvider for Anthropic {
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

export_plugin!(Anthropic);
export_incremental_provider!(Anthropic);
