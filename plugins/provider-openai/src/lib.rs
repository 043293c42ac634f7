//! `openai`: OpenAI's Chat Completions API, and every server that speaks it (Ollama, vLLM,
//! llama.cpp, OpenRouter) through a configured base URL and the compat flags of [`compat`].
//!
//! The plugin only translates: [`request`] builds a streamed `POST /chat/completions`,
//! [`decode`] turns its chunks into unified events, and [`errors`] classifies failures. The host
//! sends the request to the configured base URL and attaches `OPENAI_API_KEY` as a bearer token;
//! the key never enters the guest.

mod compat;
mod decode;
mod errors;
mod request;

use provider_common::openai_models;
use tack_sdk::{
    export_incremental_provider, export_plugin, AuthScheme, Decoder, IncrementalProvider,
    InitContext, Plugin, ProviderError, ProviderRequest, ProviderSpec, Registration, RequestPlan,
};

#[derive(Default)]
struct OpenAi {
    /// The conversation converted for the previous request: the host serves a session's turns
    /// from the same instance when it can, and each turn converts only the new messages.
    cache: request::Cache,
    /// The reasoning delta fields of the latest request's compat flags. The host decodes a
    /// response in the instance that built its request, right after building it, and the
    /// decoder constructor has no access to the options, so they are kept here.
    reasoning_fields: Option<Vec<String>>,
}

impl Plugin for OpenAi {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        let mut spec = ProviderSpec::new("openai", "OpenAI")
            .base_url("https://api.openai.com/v1")
            .secret("OPENAI_API_KEY", AuthScheme::Bearer);
        for model in openai_models::specs() {
            spec = spec.model(model);
        }
        Ok(Registration::new().provider(spec))
    }

    fn build_request(&mut self, request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        let after = self.cache.take_after();
        let (call, compat) = request::build_with(&mut self.cache, request, after)?;
        self.reasoning_fields = Some(compat.reasoning_fields);
        Ok(RequestPlan::Http(call))
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
        let fields = self
            .reasoning_fields
            .clone()
            .unwrap_or_else(compat::default_reasoning_fields);
        Box::new(decode::ChatDecoder::new(fields))
    }
}

impl IncrementalProvider for OpenAi {
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

export_plugin!(OpenAi);
export_incremental_provider!(OpenAi);
