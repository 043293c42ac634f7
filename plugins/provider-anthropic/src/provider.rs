//! Anthropic as the provider kit sees it: what it registers, and which of this crate's modules
//! write its requests and read its answers.

use provider_common::body::Body;
use provider_common::cache::Converted;
use provider_common::json::Object;
use provider_common::kit::{HttpProvider, Request, Route, WithModels};
use provider_common::unified::Message;
use tack_sdk::{AuthScheme, ProviderError, ProviderSpec};

use crate::{decode, models, request};

#[derive(Default)]
pub struct Anthropic;

impl HttpProvider for Anthropic {
    type Fragment = request::Fragment;
    type Decoder = decode::MessagesDecoder;

    fn spec() -> ProviderSpec {
        ProviderSpec::new("anthropic", "Anthropic")
            .base_url("https://api.anthropic.com")
            .secret("ANTHROPIC_API_KEY", AuthScheme::Header("x-api-key".into()))
            .with_models(models::specs())
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

    fn write(
        &mut self,
        request: &Request<'_, request::Fragment>,
        body: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        request::write(request, body)
    }

    fn decoder(&self) -> decode::MessagesDecoder {
        decode::MessagesDecoder::default()
    }
}
