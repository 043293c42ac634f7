//! The provider kit: an HTTP provider is its wire format ([`HttpProvider`]) and
//! [`export_http_provider!`](crate::export_http_provider), which makes it a component.
//!
//! Everything that does not depend on the API lives here once: the plugin's registration, the
//! conversation kept across turns ([`Kept`]), the order in which a request is read (messages,
//! tools, the provider's own checks, then the body), the body's framing and the headers every
//! streamed JSON call sends, and the `tack:provider` answers about what the instance holds.

use tack_sdk::{
    Decoder, HttpCall, IncrementalProvider, InitContext, ModelSpec, Plugin, ProviderError,
    ProviderRequest, ProviderSpec, Registration, RequestPlan,
};

use crate::body::Body;
use crate::cache::{Converted, Kept, Messages};
use crate::errors::classify_response;
use crate::json::{self, Object};
use crate::unified::{self, Message, Tool};

/// One API's wire format: the unified request in, its events out.
pub trait HttpProvider: Default + 'static {
    type Fragment: Fragment;
    type Decoder: Decoder + 'static;

    /// The provider as it registers: id, name, base URL, secret and models.
    fn spec() -> ProviderSpec;

    /// The model as the API names it.
    fn model_id(model: &str) -> &str {
        model
    }

    /// What a message's conversion depends on besides the message: a change of it converts the
    /// whole conversation anew. By default the provider and model, because replayed signatures
    /// go back to the model that wrote them only.
    fn cache_key(provider: &str, model: &str) -> String {
        format!("{provider}\n{model}")
    }

    /// Decides what the request needs before its body is written (compat flags, a reasoning
    /// effort, whether the model id is usable), keeping it for [`write`](Self::write). A refusal
    /// here leaves the kept body as the previous request left it.
    fn plan(&mut self, request: &Request<'_, Self::Fragment>) -> Result<(), ProviderError> {
        let _ = request;
        Ok(())
    }

    /// Writes the body's fields and says where the call goes.
    fn write(
        &mut self,
        request: &Request<'_, Self::Fragment>,
        body: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError>;

    /// A non-2xx response as an error.
    fn decode_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
        classify_response(status, headers, body)
    }

    /// A decoder for the response to the request built last.
    fn decoder(&self) -> Self::Decoder;
}

/// What the kept conversation holds of one message: its converted form, serialized.
pub trait Fragment: Clone + Default + 'static {
    /// `message` in the API's form. `provider` and `model` are those of the request, for the
    /// opaque data (signatures, reasoning items) that goes back only to the model that wrote it.
    fn convert(message: &Message, provider: &str, model: &str) -> Result<Self, ProviderError>;

    /// About how many bytes it takes in the body, to size the body once.
    fn size(&self) -> usize;
}

/// A request as the provider writes it: messages converted, tools parsed.
pub struct Request<'a, F: Clone> {
    /// The unified request; its `messages` are in `messages`, converted.
    pub unified: &'a ProviderRequest,
    /// The model as the API names it ([`HttpProvider::model_id`]).
    pub model: &'a str,
    pub messages: &'a [Converted<'a, F>],
    pub tools: &'a [Tool],
}

/// Where a call goes: its path below the base URL, and the headers it sends besides the JSON
/// body's and the event stream's.
pub struct Route {
    pub path: String,
    pub headers: Vec<(String, String)>,
}

impl Route {
    pub fn new(path: impl Into<String>) -> Self {
        Route {
            path: path.into(),
            headers: Vec::new(),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// The request as a streamed `POST`, converting only the messages `cache` has not seen.
/// `after` is what the latest `expect-messages-after` agreed on.
pub fn build<P: HttpProvider>(
    provider: &mut P,
    cache: &mut Kept<P::Fragment>,
    mut request: ProviderRequest,
    after: Option<u32>,
) -> Result<HttpCall, ProviderError> {
    let messages = Messages::of(std::mem::take(&mut request.messages), after);
    let model = P::model_id(&request.model);
    let provider_id = request.provider.as_str();
    let messages =
        cache
            .messages
            .update(&P::cache_key(provider_id, model), messages, |message| {
                P::Fragment::convert(message, provider_id, model)
            })?;
    let tools = unified::parse_tools(&request.tools)?;
    let view = Request {
        unified: &request,
        model,
        messages: &messages,
        tools: &tools,
    };
    provider.plan(&view)?;
    let body = cache.body.begin(json::body_capacity(
        messages.iter().map(|m| m.fragment.size()).sum(),
        &request.tools,
        &request.system_prompt,
    ));
    let mut object = Object::begin(body);
    let route = provider.write(&view, &mut object)?;
    object.end();
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), "text/event-stream".to_string()),
    ];
    // A route's header replaces the default of its name (Bedrock accepts AWS's event stream).
    for (name, value) in route.headers {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
        headers.push((name, value));
    }
    Ok(HttpCall {
        method: "POST".to_string(),
        path: route.path,
        headers,
        body: body.finish(),
    })
}

/// The request built by a fresh instance, as the provider's tests and benches compare with.
pub fn build_fresh<P: HttpProvider>(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
    build(
        &mut P::default(),
        &mut Kept::default(),
        request.clone(),
        None,
    )
}

/// An [`HttpProvider`] as a plugin: what [`export_http_provider!`](crate::export_http_provider)
/// exports.
pub struct Kit<P: HttpProvider> {
    provider: P,
    /// The conversation converted for the previous request: the host serves a session's turns
    /// from the same instance when it can, and each turn converts only the new messages.
    cache: Kept<P::Fragment>,
}

impl<P: HttpProvider> Default for Kit<P> {
    fn default() -> Self {
        Kit {
            provider: P::default(),
            cache: Kept::default(),
        }
    }
}

impl<P: HttpProvider> Plugin for Kit<P> {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new().provider(P::spec()))
    }

    fn build_request(&mut self, request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        let after = self.cache.take_after();
        build(&mut self.provider, &mut self.cache, request, after).map(RequestPlan::Http)
    }

    fn decode_error(
        &mut self,
        _provider: &str,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> ProviderError {
        P::decode_error(status, headers, body)
    }

    fn new_decoder(&mut self, _provider: &str, _model: &str) -> Box<dyn Decoder> {
        Box::new(self.provider.decoder())
    }
}

impl<P: HttpProvider> IncrementalProvider for Kit<P> {
    fn expect_messages_after(
        &mut self,
        kept: u32,
        provider: &str,
        model: &str,
        held_body: u64,
    ) -> bool {
        let key = P::cache_key(provider, P::model_id(model));
        self.cache.expect(&key, kept, held_body)
    }

    fn body_prefix(&mut self) -> u64 {
        self.cache.body_prefix()
    }
}

/// Exports an [`HttpProvider`] as this component's plugin and `tack:provider/incremental`
/// interfaces. Invoke it once, at the root of the provider's `cdylib` crate:
/// `provider_common::export_http_provider!(MyProvider);`.
#[macro_export]
macro_rules! export_http_provider {
    ($provider:ty) => {
        #[doc(hidden)]
        type __TackHttpProvider = $crate::kit::Kit<$provider>;
        $crate::__sdk::export_plugin!(__TackHttpProvider);
        $crate::__sdk::export_incremental_provider!(__TackHttpProvider);
    };
}

/// Adds a catalogue to a provider's registration.
pub trait WithModels {
    fn with_models(self, models: Vec<ModelSpec>) -> Self;
}

impl WithModels for ProviderSpec {
    fn with_models(self, models: Vec<ModelSpec>) -> Self {
        models.into_iter().fold(self, ProviderSpec::model)
    }
}
