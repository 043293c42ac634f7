//! The host side of `tack:plugin/models` (0.2.0): a plugin with the `agents` grant asks a model
//! itself (Pi's `complete`). The request goes through the provider plugin serving the model,
//! with the credentials the user gave it; the plugin sees only the answer.

use std::time::Instant;

use crate::bindings::v0_2_0::tack::plugin0_2_0::{control, models};
use crate::children::{Completion, CompletionError, CompletionRequest, Role};
use crate::state::{CallKind, PluginState};

impl models::Host for PluginState {
    async fn available(&mut self) -> wasmtime::Result<Vec<control::ModelInfo>> {
        let Some(children) = self.env.services.agent.children() else {
            return Ok(Vec::new());
        };
        Ok(children
            .available_models()
            .into_iter()
            .map(super::control::model_info)
            .collect())
    }

    async fn complete(
        &mut self,
        request: models::CompletionRequest,
    ) -> wasmtime::Result<Result<models::Completion, models::CompletionError>> {
        if !self.env.capabilities.agents {
            return Ok(Err(models::CompletionError::Denied(format!(
                "plugin '{}' has no `agents` grant, so it may not make model calls",
                self.env.name
            ))));
        }
        if matches!(self.call.kind, CallKind::Init | CallKind::Task) {
            return Ok(Err(models::CompletionError::Unavailable(
                "a model call cannot be made from `init` or from a task".into(),
            )));
        }
        let Some(children) = self.env.services.agent.children() else {
            return Ok(Err(models::CompletionError::Unavailable(
                "no agent session is running to take a model from".into(),
            )));
        };
        let request = CompletionRequest {
            model: request.model,
            system_prompt: request.system_prompt,
            messages: request
                .messages
                .into_iter()
                .map(|m| {
                    let role = match m.role {
                        models::Role::User => Role::User,
                        models::Role::Assistant => Role::Assistant,
                    };
                    (role, m.text)
                })
                .collect(),
            max_tokens: request.max_tokens,
            thinking: request.thinking,
        };
        let started = Instant::now();
        let cancel = self.call.cancel.clone();
        let answered = children.complete(&self.env.name, request, cancel).await;
        self.resume_after(started);
        Ok(answered.map(completion).map_err(|e| match e {
            CompletionError::Invalid(m) => models::CompletionError::Invalid(m),
            CompletionError::Unavailable(m) => models::CompletionError::Unavailable(m),
            CompletionError::Failed(m) => models::CompletionError::Failed(m),
            CompletionError::Aborted => models::CompletionError::Aborted,
        }))
    }
}

fn completion(done: Completion) -> models::Completion {
    models::Completion {
        text: done.text,
        model: done.model,
        input_tokens: done.usage.input + done.usage.cache_read + done.usage.cache_write,
        output_tokens: done.usage.output,
        cost: done.usage.cost,
        entry_id: done.entry_id,
    }
}
