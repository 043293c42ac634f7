//! The Responses API as the provider kit sees it: what it registers, and which of this crate's
//! modules write its requests and read its answers.

use provider_common::body::Body;
use provider_common::json::Object;
use provider_common::kit::{HttpProvider, Request, Route};
use provider_common::openai_models;
use tack_sdk::{ProviderError, ProviderSpec};

use crate::{decode, request};

#[derive(Default)]
pub struct OpenAiResponses {
    /// The reasoning effort of the request being built.
    effort: Option<&'static str>,
}

impl HttpProvider for OpenAiResponses {
    type Fragment = request::Fragment;
    type Decoder = decode::ResponsesDecoder;

    fn spec() -> ProviderSpec {
        openai_models::provider("openai-responses", "OpenAI (Responses API)")
    }

    fn plan(&mut self, request: &Request<'_, request::Fragment>) -> Result<(), ProviderError> {
        self.effort = request::effort(request.unified)?;
        Ok(())
    }

    fn write(
        &mut self,
        request: &Request<'_, request::Fragment>,
        body: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        request::write(request, self.effort, body)
    }

    fn decode_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
        provider_common::errors::openai_response(status, headers, body)
    }

    fn decoder(&self) -> decode::ResponsesDecoder {
        decode::ResponsesDecoder::default()
    }
}
