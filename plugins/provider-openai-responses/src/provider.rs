//! The Responses API as the provider kit sees it: what it registers, and which of this crate's
//! modules write its requests and read its answers.

use provider_common::body::Body;
use provider_common::cache::Converted;
use provider_common::json::Object;
use provider_common::kit::{HttpProvider, Request, Route, WithModels};
use provider_common::openai_models;
use provider_common::unified::Message;
use tack_sdk::{AuthScheme, ProviderError, ProviderSpec};

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
        ProviderSpec::new("openai-responses", "OpenAI (Responses API)")
            .base_url("https://api.openai.com/v1")
            .secret("OPENAI_API_KEY", AuthScheme::Bearer)
            .with_models(openai_models::specs())
    }

    fn convert(
        message: &Message,
        provider: &str,
        model: &str,
    ) -> Result<request::Fragment, ProviderError> {
        request::convert(message, provider, model)
    }

    fn messages_size(messages: &[Converted<'_, request::Fragment>]) -> usize {
        request::messages_size(messages)
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
