//! Chat Completions as the provider kit sees it: what it registers, and which of this crate's
//! modules write its requests and read its answers.

use provider_common::body::Body;
use provider_common::json::Object;
use provider_common::kit::{HttpProvider, Request, Route};
use provider_common::openai_models;
use provider_common::options::Options;
use tack_sdk::{ErrorKind, ProviderError, ProviderSpec};

use crate::compat::{self, Compat};
use crate::{decode, request};

#[derive(Default)]
pub struct OpenAi {
    /// The compat flags of the request being built, from its options.
    compat: Option<Compat>,
    /// The reasoning delta fields of the latest request's compat flags. The host decodes a
    /// response in the instance that built its request, right after building it, and the
    /// decoder constructor has no access to the options, so they are kept here.
    reasoning_fields: Option<Vec<String>>,
}

impl HttpProvider for OpenAi {
    type Fragment = request::Fragment;
    type Decoder = decode::ChatDecoder;

    fn spec() -> ProviderSpec {
        openai_models::provider("openai", "OpenAI")
    }

    /// The provider: Chat Completions replays no signatures, but some providers take messages
    /// in a form of their own (Mistral's call ids, DeepSeek's empty reasoning).
    fn cache_key(provider: &str, _model: &str) -> String {
        provider.to_string()
    }

    fn plan(&mut self, request: &Request<'_, request::Fragment>) -> Result<(), ProviderError> {
        let options = Options::parse(&request.unified.options)?;
        self.compat = Some(Compat::from_options(&options, &request.unified.model)?);
        Ok(())
    }

    fn write(
        &mut self,
        request: &Request<'_, request::Fragment>,
        body: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        let compat = self.compat.take().ok_or_else(|| {
            ProviderError::new(ErrorKind::Other, "the request was written before its plan")
        })?;
        let route = request::write(request, &compat, body)?;
        self.reasoning_fields = Some(compat.reasoning_fields);
        Ok(route)
    }

    fn decode_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
        provider_common::errors::openai_response(status, headers, body)
    }

    fn decoder(&self) -> decode::ChatDecoder {
        let fields = self
            .reasoning_fields
            .clone()
            .unwrap_or_else(compat::default_reasoning_fields);
        decode::ChatDecoder::new(fields)
    }
}
