//! Gemini as the provider kit sees it: what it registers, and which of this crate's modules
//! write its requests and read its answers.

use provider_common::body::Body;
use provider_common::cache::Converted;
use provider_common::json::Object;
use provider_common::kit::{HttpProvider, Request, Route, WithModels};
use provider_common::unified::Message;
use tack_sdk::{AuthScheme, ProviderError, ProviderSpec};

use crate::{decode, errors, models, request};

#[derive(Default)]
pub struct Google;

impl HttpProvider for Google {
    type Fragment = request::Fragment;
    type Decoder = decode::GeminiDecoder;

    fn spec() -> ProviderSpec {
        ProviderSpec::new("google", "Google Gemini")
            .base_url("https://generativelanguage.googleapis.com")
            .secret(
                "GEMINI_API_KEY",
                AuthScheme::Header("x-goog-api-key".into()),
            )
            .with_models(models::specs())
    }

    fn model_id(model: &str) -> &str {
        request::model_id(model)
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
        request::check_model(request.model)
    }

    fn write(
        &mut self,
        request: &Request<'_, request::Fragment>,
        body: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        request::write(request, body)
    }

    fn decode_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
        errors::from_response(status, headers, body)
    }

    fn decoder(&self) -> decode::GeminiDecoder {
        decode::GeminiDecoder::default()
    }
}
