//! A provider plugin as a tack-core provider. The plugin translates; this does the I/O: it sends
//! the request the plugin described to the configured base URL only, attaches the API key the
//! provider names (the guest never sees it), frames the response body into server-sent events
//! and feeds them to the plugin's decoder, forwarding the unified events it returns.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use eventsource_stream::Eventsource;
use futures::StreamExt;
use tack_core::agent::{
    Provider, ProviderError, ProviderErrorKind, ProviderRequest, ProviderStream, ReasoningLevel,
    StreamEvent,
};
use tokio::sync::mpsc;

use super::aws::{AwsSigner, EventStreamFrames, EVENT_STREAM_CONTENT_TYPE};
use super::convert;
use super::google_auth::GoogleTokenSource;
use super::login_token::LoginTokenSource;
use super::message_json::{self, MessageJson};
use super::provider_authority::{self, UserChoice};
use super::provider_hooks::{PayloadHooks, RequestHead};
use crate::api;
use crate::broker::http::{apply_auth, host_owned_header, on_this_machine, private_transport};
use crate::broker::http::{header_pairs, under};
use crate::broker::secrets::{SecretError, SecretStore};
use crate::error::PluginError;
use crate::plugin::{LoadedPlugin, ProviderSession};

/// Largest error body read from a failed response.
const MAX_ERROR_BODY: usize = 64 << 10;

/// How long a provider's response may take, in three parts, each of which fails the attempt
/// with a network error naming it (the agent loop then retries with backoff), so a server that
/// stops answering never hangs a run: print, JSON and RPC modes have no Esc to press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamTimeouts {
    /// Opening the connection (TCP and TLS).
    pub connect: Duration,
    /// From sending the request to the first event of the response. Generous by default: a
    /// thinking model may say nothing for minutes while it reasons.
    pub first_byte: Duration,
    /// Between one event of the stream and the next.
    pub idle: Duration,
}

impl Default for StreamTimeouts {
    fn default() -> Self {
        StreamTimeouts {
            connect: crate::broker::http::CONNECT_TIMEOUT,
            first_byte: Duration::from_secs(300),
            idle: Duration::from_secs(300),
        }
    }
}

/// Headers only the host may set: the transport's own, and anything carrying credentials.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
    "proxy-authorization",
    "authorization",
    "cookie",
];

/// Whether `name` is a header only the host sets on a provider's requests.
pub fn reserved_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    RESERVED_HEADERS.contains(&lower.as_str()) || host_owned_header(&lower)
}

pub struct PluginProvider {
    plugin: Arc<LoadedPlugin>,
    /// The plugin whose grants decide where requests go and with which secret, when it is not
    /// `plugin`: one that registered a provider served by another plugin's API.
    authority: Option<Arc<LoadedPlugin>>,
    spec: api::ProviderSpec,
    /// The id requests name and the session records: the spec's, or the preset's the host
    /// serves with this plugin (`deepseek` on the OpenAI plugin).
    id: String,
    base_url: String,
    /// What the user chose rather than the plugin (see [`provider_authority`]).
    user: UserChoice,
    secrets: SecretStore,
    http: reqwest::Client,
    /// The last request's messages as JSON, reused up to the first message that changed.
    messages: MessageJson,
    /// Whether an instance that exports `tack:provider/incremental` is sent only the messages it
    /// does not hold (off only to compare with whole conversations).
    incremental: bool,
    /// How many messages the latest request left out because the instance held them.
    left_out: AtomicUsize,
    /// How many bytes of the latest body the host repeated from the instance's previous one.
    repeated: AtomicUsize,
    timeouts: StreamTimeouts,
    /// Headers the user's config (or a provider preset) adds to every request.
    headers: Vec<(String, String)>,
    /// Plugins granted `provider_payload`, which see each body before it goes.
    payload_hooks: Option<Arc<PayloadHooks>>,
    /// The host signs each request with the user's AWS credentials (Bedrock).
    aws: Option<Arc<AwsSigner>>,
    /// The host adds an access token from the user's Google credentials (Vertex AI).
    google: Option<Arc<GoogleTokenSource>>,
    /// The host adds the access token of the user's subscription login (ChatGPT).
    login: Option<Arc<dyn LoginTokenSource>>,
    /// What goes before the key in its header, where a host preset's API wants it there
    /// (Cloudflare's AI Gateway: `cf-aig-authorization: Bearer <key>`).
    key_prefix: Option<String>,
}

/// Why a configured request header cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the header `{0}` is set by the host (it routes, frames or authenticates the request); it \
     cannot be configured"
)]
pub struct ReservedHeader(pub String);

impl PluginProvider {
    /// `base_url` overrides the provider's default (a local server, a proxy, a compatible API);
    /// it is the user's choice, so it needs no grant of the plugin.
    pub fn new(
        plugin: Arc<LoadedPlugin>,
        spec: api::ProviderSpec,
        base_url: Option<String>,
        secrets: SecretStore,
        http: reqwest::Client,
    ) -> Self {
        let user = UserChoice {
            base_url: base_url.is_some(),
            secret: false,
        };
        let base_url = base_url.unwrap_or_else(|| spec.default_base_url.clone());
        Self {
            plugin,
            authority: None,
            id: spec.id.clone(),
            spec,
            base_url,
            user,
            secrets,
            http,
            messages: Default::default(),
            incremental: true,
            left_out: AtomicUsize::new(0),
            repeated: AtomicUsize::new(0),
            timeouts: StreamTimeouts::default(),
            headers: Vec::new(),
            payload_hooks: None,
            aws: None,
            google: None,
            login: None,
            key_prefix: None,
        }
    }

    /// Signs every request with SigV4 (Amazon Bedrock): the host finds the credentials and
    /// signs the final request, so neither the plugin nor a payload hook ever sees them.
    pub fn with_aws_signer(mut self, signer: Arc<AwsSigner>) -> Self {
        self.aws = Some(signer);
        self
    }

    /// Sends every request with an access token the host exchanges the user's Google
    /// credentials for (Vertex AI), renewed before it expires.
    pub fn with_google_token_source(mut self, source: Arc<GoogleTokenSource>) -> Self {
        self.google = Some(source);
        self
    }

    /// Sends every request with the access token of the user's subscription login, which the
    /// host refreshes before it expires.
    pub fn with_login_token_source(mut self, source: Arc<dyn LoginTokenSource>) -> Self {
        self.login = Some(source);
        self
    }

    /// The plugins that see (and may replace) each request's body and the head of its answer
    /// ([`PayloadHooks::new`]).
    pub fn with_payload_hooks(mut self, hooks: Option<Arc<PayloadHooks>>) -> Self {
        self.payload_hooks = hooks;
        self
    }

    /// Judges where requests go, and with which secret, by `authority`'s grants rather than the
    /// serving plugin's (a provider `authority` registered on another plugin's API).
    pub fn judged_by(mut self, authority: Option<Arc<LoadedPlugin>>) -> Self {
        self.authority = authority;
        self
    }

    /// Serves the host's preset `id` with this plugin's API: requests name it, so the plugin
    /// knows which of its messages it wrote (a reasoning signature goes back only to the
    /// provider and model that made it).
    pub fn named(mut self, id: &str) -> Self {
        self.id = id.to_string();
        self
    }

    /// Headers to send with every request (`[providers.<id>] headers`), replacing the plugin's
    /// of the same name. Those that route, frame or authenticate a request stay the host's.
    pub fn with_headers(mut self, headers: Vec<(String, String)>) -> Result<Self, ReservedHeader> {
        if let Some((name, _)) = headers.iter().find(|(name, _)| reserved_header(name)) {
            return Err(ReservedHeader(name.clone()));
        }
        self.headers = headers;
        Ok(self)
    }

    /// Timeouts other than the defaults (`[providers.<id>]` in config.toml). A connect timeout
    /// of its own needs a client of its own: reqwest sets it per client.
    pub fn with_timeouts(mut self, timeouts: StreamTimeouts) -> Result<Self, ProviderError> {
        if timeouts.connect != self.timeouts.connect {
            self.http = crate::broker::http::client_builder(timeouts.connect)
                .build()
                .map_err(|e| {
                    ProviderError::new(
                        ProviderErrorKind::Other,
                        format!("cannot build an HTTP client: {e}"),
                    )
                })?;
        }
        self.timeouts = timeouts;
        Ok(self)
    }

    /// With `false`, every request carries the whole conversation even to a plugin that could
    /// take only what is new: for comparing the two.
    pub fn with_incremental(mut self, incremental: bool) -> Self {
        self.incremental = incremental;
        self
    }

    /// How many messages the latest request left out because the plugin's instance held them.
    pub fn messages_left_out(&self) -> usize {
        self.left_out.load(Ordering::Relaxed)
    }

    /// How many bytes of the latest request's body the host repeated from the body the
    /// plugin's instance built before, rather than taking them from the plugin.
    pub fn body_bytes_repeated(&self) -> usize {
        self.repeated.load(Ordering::Relaxed)
    }

    /// The secret's name came from the user's config, not the plugin's registration.
    pub fn with_user_secret(mut self, user_secret: bool) -> Self {
        self.user.secret = user_secret;
        self
    }

    /// Puts `prefix` before the key wherever the spec's auth scheme attaches it.
    pub fn with_key_prefix(mut self, prefix: Option<String>) -> Self {
        self.key_prefix = prefix;
        self
    }

    pub fn spec(&self) -> &api::ProviderSpec {
        &self.spec
    }

    fn plugin_error(&self, e: PluginError) -> ProviderError {
        ProviderError::new(
            ProviderErrorKind::Other,
            format!("provider plugin failed: {e}"),
        )
    }

    /// The body to send: the returned `body` after the prefix of the held body the plugin says
    /// it repeats. A prefix longer than what the host holds, or a body larger than the plugin's
    /// memory (more than it could have returned whole), is refused.
    async fn whole_body(
        &self,
        session: &mut ProviderSession,
        held: usize,
        body: Vec<u8>,
    ) -> Result<Bytes, ProviderError> {
        self.repeated.store(0, Ordering::Relaxed);
        if held == 0 {
            return Ok(Bytes::from(body));
        }
        let prefix = session
            .body_prefix()
            .await
            .map_err(|e| self.plugin_error(e))?;
        let refuse = |why: String| {
            ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!("provider plugin '{}' {why}", self.plugin.name()),
            )
        };
        let prefix = match usize::try_from(prefix) {
            Ok(prefix) if prefix <= held => prefix,
            _ => {
                return Err(refuse(format!(
                    "repeats {prefix} bytes of its previous request body, which has {held}"
                )))
            }
        };
        let limit = self.plugin.runtime.config().memory_limit;
        if prefix + body.len() > limit {
            return Err(refuse(format!(
                "built a request body of {} bytes, more than its memory limit of {limit}",
                prefix + body.len()
            )));
        }
        if prefix == 0 {
            return Ok(Bytes::from(body));
        }
        // The previous request is long sent, so its buffer is usually ours alone again: cut and
        // extended in place, a turn costs what it adds, not a fresh megabyte (whose pages the
        // kernel would zero) and a copy into it.
        let held_body = session.take_held_body();
        if held_body.len() < prefix {
            return Err(refuse("lost its previous request body".into()));
        }
        let whole = match held_body.try_into_mut() {
            Ok(mut reused) => {
                reused.truncate(prefix);
                reused.extend_from_slice(&body);
                reused
            }
            Err(shared) => {
                let mut whole = bytes::BytesMut::with_capacity(prefix + body.len());
                whole.extend_from_slice(&shared[..prefix]);
                whole.extend_from_slice(&body);
                whole
            }
        };
        self.repeated.store(prefix, Ordering::Relaxed);
        Ok(whole.freeze())
    }

    async fn open_body(
        &self,
        session: &mut ProviderSession,
        plan: Outgoing,
        model: &str,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<(ResponseBody, Framing), ProviderError> {
        let (call, body) = match plan {
            Outgoing::Local(bytes) => {
                let body = futures::stream::once(async move { Ok(bytes) }).boxed();
                return Ok((body, Framing::Sse));
            }
            Outgoing::Http(call, body) => (call, body),
        };
        if self.base_url.is_empty() {
            return Err(ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!("provider '{}' has no base URL configured", self.id),
            ));
        }
        let base = url::Url::parse(&self.base_url).map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!("bad base URL {}: {e}", self.base_url),
            )
        })?;
        let mut url = join_base(&base, &call.path);
        if !under(&url, &base) || !call.path.starts_with('/') || call.path.contains("..") {
            return Err(ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!(
                    "provider plugin '{}' asked for {url}, outside its base URL {}",
                    self.plugin.name(),
                    self.base_url
                ),
            ));
        }
        let mut headers = guest_headers(call.headers, &self.spec.auth);
        for (name, value) in &self.headers {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.clone()));
        }
        if let Some(secret) = &self.spec.secret {
            match self.secrets.lookup(secret) {
                Ok(value) => {
                    let value = match &self.key_prefix {
                        Some(prefix) => format!("{prefix}{value}"),
                        None => value.to_string(),
                    };
                    apply_auth(&self.spec.auth, &value, &mut headers, &mut url)
                }
                // A server on this machine that the user pointed the provider at (Ollama,
                // vLLM) rarely wants a key; one that does says so in its answer.
                Err(SecretError::Missing(_)) if self.user.base_url && on_this_machine(&url) => {}
                Err(e) => return Err(ProviderError::new(ProviderErrorKind::Auth, e.to_string())),
            }
        }
        let method = reqwest::Method::from_bytes(call.method.as_bytes()).map_err(|_| {
            ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!("bad method {}", call.method),
            )
        })?;
        let path = call.path.split('?').next().unwrap_or_default();
        let head = RequestHead {
            provider: &self.id,
            model,
            method: &call.method,
            path,
        };
        let body = match &self.payload_hooks {
            Some(hooks) => hooks.before_request(&head, body).await?,
            None => body,
        };
        // The host's own credentials (a Google token; a signature whose temporary credentials
        // send their session token along) go only over https or to this machine.
        let held = match (&self.google, &self.aws, &self.login) {
            (Some(_), _, _) => Some("a Google access token"),
            (None, Some(_), _) => Some("signed AWS credentials"),
            (None, None, Some(_)) => Some("a subscription login's token"),
            (None, None, None) => None,
        };
        if let Some(held) = held.filter(|_| !private_transport(&url)) {
            return Err(ProviderError::new(
                ProviderErrorKind::Auth,
                format!(
                    "provider '{}' would send {held} in clear text to {url}; they only go over \
                     https, or to this machine",
                    self.id
                ),
            ));
        }
        if let Some(source) = &self.google {
            let token = source
                .token()
                .await
                .map_err(|e| ProviderError::new(ProviderErrorKind::Auth, e.to_string()))?;
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case("authorization"));
            headers.push(("authorization".into(), format!("Bearer {}", token.value)));
            if let Some(project) = token.quota_project {
                // A gcloud user login bills its quota to the project it names, as Google's own
                // libraries send it.
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case("x-goog-user-project"));
                headers.push(("x-goog-user-project".into(), project));
            }
        }
        if let Some(source) = &self.login {
            // A refresh waits on the network and on other tacks: the user may stop it.
            let token = tokio::select! {
                token = source.token() => token,
                () = cancel.cancelled() => {
                    return Err(ProviderError::new(ProviderErrorKind::Other, "aborted"))
                }
            }
            .map_err(|e| ProviderError::new(ProviderErrorKind::Auth, e))?;
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case("authorization"));
            headers.push(("authorization".into(), format!("Bearer {}", token.access)));
            for (name, value) in token.headers {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
                headers.push((name, value));
            }
        }
        if let Some(signer) = &self.aws {
            // Finding credentials may run the profile's `credential_process` (up to 30 s):
            // off the async workers.
            let (signer, method, target, payload) = (
                signer.clone(),
                call.method.clone(),
                url.clone(),
                body.clone(),
            );
            let mut unsigned = std::mem::take(&mut headers);
            headers = tokio::task::spawn_blocking(move || {
                signer
                    .sign(&method, &target, &mut unsigned, &payload)
                    .map(|()| unsigned)
            })
            .await
            .map_err(|e| {
                ProviderError::new(ProviderErrorKind::Other, format!("signing stopped: {e}"))
            })?
            .map_err(|e| ProviderError::new(ProviderErrorKind::Auth, e.to_string()))?;
        }
        let mut builder = self.http.request(method, url).body(body);
        for (name, value) in &headers {
            builder = builder.header(name, value);
        }
        // Sending includes connecting, which has a timeout of its own: the first byte is waited
        // for once a connection could have been made, so each expiry names the right stage.
        let first_byte = self.timeouts.first_byte;
        let response = tokio::select! {
            r = tokio::time::timeout(self.timeouts.connect + first_byte, builder.send()) => match r {
                Ok(sent) => sent.map_err(|e| network_error(e, &self.id, &self.timeouts))?,
                Err(_) => return Err(first_byte_expired(&self.id, first_byte)),
            },
            _ = cancel.cancelled() => return Err(ProviderError::new(ProviderErrorKind::Other, "aborted")),
        };
        let status = response.status();
        if let Some(hooks) = &self.payload_hooks {
            hooks
                .after_response(&head, status.as_u16(), &header_pairs(response.headers()))
                .await;
        }
        if !status.is_success() {
            let headers = header_pairs(response.headers());
            let retry_after = retry_after_ms(&headers);
            let mut body = Vec::new();
            let mut chunks = response.bytes_stream();
            while let Some(Ok(chunk)) = chunks.next().await {
                body.extend_from_slice(&chunk);
                if body.len() > MAX_ERROR_BODY {
                    break;
                }
            }
            let decoded = session
                .decode_error(&self.id, status.as_u16(), headers, body)
                .await
                .map_err(|e| self.plugin_error(e))?;
            let mut error = convert::provider_error(decoded);
            if error.retry_after_ms.is_none() {
                error.retry_after_ms = retry_after;
            }
            return Err(error);
        }
        let framing = match response.headers().get(reqwest::header::CONTENT_TYPE) {
            Some(kind)
                if kind
                    .as_bytes()
                    .starts_with(EVENT_STREAM_CONTENT_TYPE.as_bytes()) =>
            {
                Framing::AwsEventStream
            }
            _ => Framing::Sse,
        };
        let body = response
            .bytes_stream()
            .map(|r| r.map_err(|e| e.to_string()))
            .boxed();
        Ok((body, framing))
    }
}

type ResponseBody = futures::stream::BoxStream<'static, Result<Bytes, String>>;

/// How a response body is cut into the events a plugin's decoder takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// Server-sent events: every API but AWS's.
    Sse,
    /// AWS's binary event stream (Bedrock's `converse-stream`).
    AwsEventStream,
}

/// The body's events, framed as its content type says.
fn framed(
    body: ResponseBody,
    framing: Framing,
) -> futures::stream::BoxStream<'static, Result<api::SseEvent, String>> {
    match framing {
        Framing::Sse => body
            .eventsource()
            .map(|event| {
                event
                    .map(|event| api::SseEvent {
                        event: event.event,
                        data: event.data,
                    })
                    .map_err(|e| e.to_string())
            })
            .boxed(),
        Framing::AwsEventStream => {
            let state = (
                body,
                EventStreamFrames::default(),
                std::collections::VecDeque::new(),
                false,
            );
            futures::stream::unfold(
                state,
                |(mut body, mut frames, mut ready, ended)| async move {
                    loop {
                        if let Some(event) = ready.pop_front() {
                            return Some((Ok(event), (body, frames, ready, ended)));
                        }
                        if ended {
                            return None;
                        }
                        let problem = match body.next().await {
                            Some(Ok(chunk)) => match frames.push(&chunk) {
                                Ok(events) => {
                                    ready.extend(events);
                                    continue;
                                }
                                Err(problem) => problem,
                            },
                            Some(Err(problem)) => problem,
                            None if frames.unfinished() => {
                                "the response ended inside an event-stream message".to_string()
                            }
                            None => return None,
                        };
                        return Some((Err(problem), (body, frames, ready, true)));
                    }
                },
            )
            .boxed()
        }
    }
}

/// What a provider plugin's request plan comes to: a response body it made itself, or an HTTP
/// call (its body taken out, whole).
enum Outgoing {
    Local(Bytes),
    Http(api::HttpCall, Bytes),
}

#[async_trait::async_trait]
impl Provider for PluginProvider {
    async fn stream(&self, request: ProviderRequest) -> Result<ProviderStream, ProviderError> {
        // Refused before the plugin sees the conversation, with the reason the user can act on.
        let authority = self.authority.as_ref().unwrap_or(&self.plugin);
        provider_authority::check(authority, &self.id, &self.spec, &self.base_url, self.user)
            .map_err(|e| ProviderError::new(ProviderErrorKind::Auth, e.to_string()))?;
        let mut session = self
            .plugin
            .provider_session()
            .await
            .map_err(|e| self.plugin_error(e))?;
        let mut encoded = self.messages.encode(&request.messages).map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!("cannot serialize messages: {e}"),
            )
        })?;
        // An instance that holds the conversation's first messages, converted, is sent the rest,
        // and one whose previous body the host holds may return only what follows its prefix.
        let (held_messages, held_body) = match session.sent() {
            Some(sent) if self.incremental => (
                message_json::kept_from(&sent.messages, &request.messages),
                sent.body.len(),
            ),
            _ => (0, 0),
        };
        let incremental = self.incremental && session.sent().is_some();
        let expected = if incremental {
            session
                .expect_messages_after(
                    u32::try_from(held_messages).unwrap_or(0),
                    &self.id,
                    &request.model.id,
                    held_body as u64,
                )
                .await
                .map_err(|e| self.plugin_error(e))?
        } else {
            false
        };
        let kept = match u32::try_from(held_messages) {
            Ok(kept) if kept > 0 && expected => held_messages,
            _ => 0,
        };
        self.left_out.store(kept, Ordering::Relaxed);
        let messages = if kept > 0 {
            encoded.json_after(kept)
        } else {
            std::mem::take(&mut encoded.text)
        };
        let wit_request = api::ProviderRequest {
            provider: self.id.clone(),
            model: request.model.id.clone(),
            system_prompt: request.system_prompt.clone(),
            messages,
            tools: request.tools.iter().map(convert::wit_tool_spec).collect(),
            max_tokens: request.max_tokens,
            reasoning: match request.reasoning {
                ReasoningLevel::Off => api::ReasoningLevel::Off,
                ReasoningLevel::Minimal => api::ReasoningLevel::Minimal,
                ReasoningLevel::Low => api::ReasoningLevel::Low,
                ReasoningLevel::Medium => api::ReasoningLevel::Medium,
                ReasoningLevel::High => api::ReasoningLevel::High,
            },
            options: request.options.to_string(),
        };
        let (plan, wit_request) = session
            .build_request(wit_request)
            .await
            .map_err(|e| self.plugin_error(e))?;
        if kept == 0 {
            encoded.text = wit_request.messages;
        }
        self.messages.restore(encoded);
        let plan = match plan {
            Ok(api::RequestPlan::Http(mut call)) => {
                let body = std::mem::take(&mut call.body);
                let body = if incremental {
                    let body = self.whole_body(&mut session, held_body, body).await;
                    let sent = body
                        .as_ref()
                        .ok()
                        .map(|body| (kept, request.messages.as_slice(), body.clone()));
                    session.record_sent(sent);
                    body?
                } else {
                    Bytes::from(body)
                };
                Outgoing::Http(call, body)
            }
            Ok(api::RequestPlan::Local(bytes)) => {
                session.record_sent(None);
                Outgoing::Local(Bytes::from(bytes))
            }
            Err(error) => {
                session.record_sent(None);
                return Err(convert::provider_error(error));
            }
        };
        session
            .start_decoder(&self.id, &request.model.id)
            .await
            .map_err(|e| self.plugin_error(e))?;
        let (body, framing) = self
            .open_body(&mut session, plan, &request.model.id, &request.cancel)
            .await?;
        let body = framed(body, framing);

        let (tx, rx) = mpsc::channel::<StreamEvent>(64);
        let cancel = request.cancel.clone();
        let watch = Watch {
            plugin: self.plugin.name().to_string(),
            provider: self.id.clone(),
            timeouts: self.timeouts,
            // The response has begun (its head came): the first event is due within the
            // first-byte timeout from here.
            sent_at: tokio::time::Instant::now(),
        };
        tokio::spawn(async move {
            pump(session, body, tx, cancel, watch).await;
        });
        Ok(tokio_stream::wrappers::ReceiverStream::new(rx).boxed())
    }
}

/// What the pump needs to say which timeout expired.
struct Watch {
    plugin: String,
    provider: String,
    timeouts: StreamTimeouts,
    /// When the response's head came: its first event must come within `first_byte` of it.
    sent_at: tokio::time::Instant,
}

/// Frames the body into SSE events, decodes them in the plugin and forwards the results. Ends
/// at the body's end, on the first error, on abort, on a timeout, or when the consumer goes
/// away.
async fn pump(
    mut session: ProviderSession,
    body: futures::stream::BoxStream<'static, Result<api::SseEvent, String>>,
    tx: mpsc::Sender<StreamEvent>,
    cancel: tokio_util::sync::CancellationToken,
    watch: Watch,
) {
    let plugin = watch.plugin.as_str();
    let mut events = body;
    let mut seen_event = false;
    loop {
        let (deadline, expired) = if seen_event {
            (
                tokio::time::Instant::now() + watch.timeouts.idle,
                idle_expired(&watch.provider, watch.timeouts.idle),
            )
        } else {
            (
                watch.sent_at + watch.timeouts.first_byte,
                first_byte_expired(&watch.provider, watch.timeouts.first_byte),
            )
        };
        let next = tokio::select! {
            next = events.next() => next,
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep_until(deadline) => {
                let _ = tx.send(StreamEvent::Error(expired)).await;
                return;
            }
        };
        seen_event = true;
        let decoded = match next {
            Some(Ok(event)) => session.push(event).await,
            Some(Err(e)) => {
                let _ = tx
                    .send(StreamEvent::Error(ProviderError::new(
                        ProviderErrorKind::Network,
                        format!("response stream broke: {e}"),
                    )))
                    .await;
                return;
            }
            None => {
                let finished = session.finish().await;
                let _ = forward(&tx, finished, plugin).await;
                session.close().await;
                return;
            }
        };
        if !forward(&tx, decoded, plugin).await {
            return;
        }
    }
}

/// Sends decoded events on; false when the stream should end.
async fn forward(
    tx: &mpsc::Sender<StreamEvent>,
    decoded: Result<Result<Vec<api::StreamEvent>, api::ProviderError>, PluginError>,
    plugin: &str,
) -> bool {
    let events = match decoded {
        Ok(Ok(events)) => events,
        Ok(Err(error)) => {
            let mut error = convert::provider_error(error);
            // The decoder could not read what the server sent (a provider's own error events
            // come as stream events, not as a failed decode): the response, not the request,
            // was wrong, and repeating the request is safe.
            if error.kind == ProviderErrorKind::Other {
                error.kind = ProviderErrorKind::Malformed;
            }
            let _ = tx.send(StreamEvent::Error(error)).await;
            return false;
        }
        Err(e) => {
            let _ = tx
                .send(StreamEvent::Error(ProviderError::new(
                    ProviderErrorKind::Other,
                    format!("provider plugin '{plugin}' failed while decoding: {e}"),
                )))
                .await;
            return false;
        }
    };
    for event in events {
        let terminal = matches!(event, api::StreamEvent::Error(_));
        if tx.send(convert::stream_event(event)).await.is_err() || terminal {
            return false;
        }
    }
    true
}

/// The guest's headers without those the host owns: a provider plugin cannot smuggle its own
/// credentials or confuse the HTTP framing.
fn guest_headers(headers: Vec<(String, String)>, auth: &api::AuthScheme) -> Vec<(String, String)> {
    let auth_header = match auth {
        api::AuthScheme::Header(name) => Some(name.to_ascii_lowercase()),
        _ => None,
    };
    headers
        .into_iter()
        .filter(|(name, _)| {
            let lower = name.to_ascii_lowercase();
            !RESERVED_HEADERS.contains(&lower.as_str())
                && !host_owned_header(&lower)
                && auth_header.as_deref() != Some(lower.as_str())
        })
        .collect()
}

/// `base` + `path_and_query`, keeping the base's own query (Azure's `?api-version=`) and adding
/// the plugin's.
fn join_base(base: &url::Url, path_and_query: &str) -> url::Url {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let mut url = base.clone();
    url.set_path(&format!("{}{}", base.path().trim_end_matches('/'), path));
    if !query.is_empty() {
        let merged = match base.query() {
            Some(existing) if !existing.is_empty() => format!("{existing}&{query}"),
            _ => query.to_string(),
        };
        url.set_query(Some(&merged));
    }
    url
}

fn network_error(e: reqwest::Error, provider: &str, timeouts: &StreamTimeouts) -> ProviderError {
    let message = if e.is_connect() && e.is_timeout() {
        format!(
            "could not connect to the provider within {} s (connect timeout; \
             [providers.{provider}] connect_timeout_secs sets it): {e}",
            timeouts.connect.as_secs()
        )
    } else if e.is_timeout() {
        format!("request timed out: {e}")
    } else {
        format!("cannot reach the provider: {e}")
    };
    ProviderError::new(ProviderErrorKind::Network, message)
}

fn first_byte_expired(provider: &str, after: Duration) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::Network,
        format!(
            "the provider sent no response within {} s of the request (first-byte timeout; \
             [providers.{provider}] first_byte_timeout_secs sets it)",
            after.as_secs_f64()
        ),
    )
}

fn idle_expired(provider: &str, after: Duration) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::Network,
        format!(
            "the provider's response stalled: nothing for {} s (idle timeout; \
             [providers.{provider}] idle_timeout_secs sets it)",
            after.as_secs_f64()
        ),
    )
}

fn retry_after_ms(headers: &[(String, String)]) -> Option<u64> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("retry-after"))
        .and_then(|(_, v)| v.trim().parse::<f64>().ok())
        .map(|secs| Duration::from_secs_f64(secs.clamp(0.0, 3600.0)).as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joining_keeps_base_path_and_query() {
        let base = url::Url::parse(
            "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
        )
        .expect("url");
        let url = join_base(&base, "/chat/completions?stream=true");
        assert_eq!(
            url.as_str(),
            "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21&stream=true"
        );
        assert!(under(&url, &base));
        let plain = url::Url::parse("http://127.0.0.1:8080/v1").expect("url");
        assert_eq!(
            join_base(&plain, "/messages").as_str(),
            "http://127.0.0.1:8080/v1/messages"
        );
    }

    #[test]
    fn guests_cannot_set_transport_or_credential_headers() {
        let headers = vec![
            ("Host".to_string(), "evil".to_string()),
            ("X-Forwarded-Host".to_string(), "internal".to_string()),
            ("Authorization".to_string(), "Bearer stolen".to_string()),
            ("x-api-key".to_string(), "guess".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
            ("anthropic-version".to_string(), "2023-06-01".to_string()),
        ];
        let kept = guest_headers(headers, &api::AuthScheme::Header("x-api-key".into()));
        let names: Vec<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["content-type", "anthropic-version"]);
    }
}
