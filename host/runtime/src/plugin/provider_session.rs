//! One provider round trip on one checked-out instance: translate the request, decode the error
//! or the stream. The decoder resource lives in that instance, so the instance stays checked
//! out until the round trip is closed or dropped.

use std::sync::Arc;

use tack_core::message::Message;
use wasmtime::component::ResourceAny;

use super::pool::{GuestCall, Live, Sent};
use super::{CallSetup, LoadedPlugin};
use crate::api::{ProviderError, ProviderRequest, RequestPlan, SseEvent, StreamEvent};
use crate::error::PluginError;

impl LoadedPlugin {
    /// Checks out an instance for one provider round trip (translate the request, decode the
    /// stream). The decoder resource lives in that instance, so it stays checked out until the
    /// session is closed or dropped.
    pub async fn provider_session(self: &Arc<Self>) -> Result<ProviderSession, PluginError> {
        let live = self.checkout(Some(self.limits().tool)).await?;
        Ok(ProviderSession {
            plugin: self.clone(),
            live: Some(live),
            decoder: None,
        })
    }
}

/// One provider round trip on a checked-out instance.
pub struct ProviderSession {
    plugin: Arc<LoadedPlugin>,
    live: Option<Live>,
    decoder: Option<ResourceAny>,
}

impl ProviderSession {
    async fn call<R: Send>(&mut self, label: &str, f: impl GuestCall<R>) -> Result<R, PluginError> {
        let Some(live) = self.live.as_mut() else {
            return Err(PluginError::Disabled {
                plugin: self.plugin.name().to_string(),
                reason: "the provider instance faulted earlier in this request".into(),
            });
        };
        let setup = CallSetup::plain(self.plugin.limits().provider);
        let result = self.plugin.invoke(live, label, setup, f).await;
        if result.is_err() {
            self.live = None;
            self.decoder = None;
        }
        result
    }

    /// Translates `request`, and gives it back (the caller reuses its messages' text) unless the
    /// instance faulted.
    pub async fn build_request(
        &mut self,
        request: ProviderRequest,
    ) -> Result<(Result<RequestPlan, ProviderError>, ProviderRequest), PluginError> {
        self.call("build-request", move |store, guest, _| {
            Box::pin(async move {
                let plan = guest.call_build_request(store, &request).await?;
                Ok((plan, request))
            })
        })
        .await
    }

    /// What this instance last built a request from and the body it built, when it can be
    /// sent only what follows them (it exports `tack:provider/incremental`).
    pub(crate) fn sent(&self) -> Option<&Sent> {
        let live = self.live.as_ref()?;
        live.optional.incremental.as_ref()?;
        Some(&live.sent)
    }

    /// Asks the instance whether its next `build-request` may carry only the messages after the
    /// first `kept` of its previous one, telling it how much of its previous body the host
    /// holds (see `wit/provider/v0.1.0/provider.wit`).
    pub async fn expect_messages_after(
        &mut self,
        kept: u32,
        provider: &str,
        model: &str,
        held_body: u64,
    ) -> Result<bool, PluginError> {
        let (provider, model) = (provider.to_string(), model.to_string());
        self.call("expect-messages-after", move |store, _, optional| {
            Box::pin(async move {
                match &optional.incremental {
                    Some(incremental) => {
                        incremental
                            .call_expect_messages_after(store, kept, &provider, &model, held_body)
                            .await
                    }
                    None => Ok(false),
                }
            })
        })
        .await
    }

    /// How many bytes of the held body come before the body the latest `build-request`
    /// returned.
    pub async fn body_prefix(&mut self) -> Result<u64, PluginError> {
        self.call("body-prefix", move |store, _, optional| {
            Box::pin(async move {
                match &optional.incremental {
                    Some(incremental) => incremental.call_body_prefix(store).await,
                    None => Ok(0),
                }
            })
        })
        .await
    }

    /// Takes the body the host holds for this instance (to reuse its buffer when nothing else
    /// holds it any more); [`record_sent`](Self::record_sent) puts the next one in its place.
    pub(crate) fn take_held_body(&mut self) -> bytes::Bytes {
        self.live
            .as_mut()
            .map(|live| std::mem::take(&mut live.sent.body))
            .unwrap_or_default()
    }

    /// Records what the instance built its latest request from (the first `kept` of the
    /// messages it held, then the rest of `messages`) and the body the host sends. `None` when
    /// the build failed, after which the instance is sent whole conversations and returns a
    /// whole body until it builds one.
    pub(crate) fn record_sent(&mut self, sent: Option<(usize, &[Arc<Message>], bytes::Bytes)>) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        if live.optional.incremental.is_none() {
            return;
        }
        match sent {
            Some((kept, messages, body)) => {
                live.sent.messages.truncate(kept);
                live.sent
                    .messages
                    .extend_from_slice(messages.get(kept..).unwrap_or_default());
                live.sent.body = body;
            }
            None => live.sent = Sent::default(),
        }
    }

    pub async fn decode_error(
        &mut self,
        provider: &str,
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Result<ProviderError, PluginError> {
        let provider = provider.to_string();
        self.call("decode-error", move |store, guest, _| {
            Box::pin(async move {
                guest
                    .call_decode_error(store, &provider, status, &headers, &body)
                    .await
            })
        })
        .await
    }

    pub async fn start_decoder(&mut self, provider: &str, model: &str) -> Result<(), PluginError> {
        let (provider, model) = (provider.to_string(), model.to_string());
        let decoder = self
            .call("decoder", move |store, guest, _| {
                Box::pin(async move {
                    guest
                        .decoder()
                        .call_constructor(store, &provider, &model)
                        .await
                })
            })
            .await?;
        self.decoder = Some(decoder);
        Ok(())
    }

    pub async fn push(
        &mut self,
        event: SseEvent,
    ) -> Result<Result<Vec<StreamEvent>, ProviderError>, PluginError> {
        let decoder = self.require_decoder()?;
        self.call("decoder.push", move |store, guest, _| {
            Box::pin(async move { guest.decoder().call_push(store, decoder, &event).await })
        })
        .await
    }

    pub async fn finish(&mut self) -> Result<Result<Vec<StreamEvent>, ProviderError>, PluginError> {
        let decoder = self.require_decoder()?;
        self.call("decoder.finish", move |store, guest, _| {
            Box::pin(async move { guest.decoder().call_finish(store, decoder).await })
        })
        .await
    }

    fn require_decoder(&self) -> Result<ResourceAny, PluginError> {
        self.decoder.ok_or_else(|| PluginError::Guest {
            plugin: self.plugin.name().to_string(),
            call: "decoder".into(),
            message: "decoder used before it was started".into(),
        })
    }

    /// Returns the instance to the pool (dropping the decoder first).
    pub async fn close(mut self) {
        if let (Some(mut live), Some(decoder)) = (self.live.take(), self.decoder.take()) {
            if decoder.resource_drop_async(&mut live.store).await.is_ok() {
                self.plugin.checkin(live);
            }
        } else if let Some(live) = self.live.take() {
            self.plugin.checkin(live);
        }
    }
}
