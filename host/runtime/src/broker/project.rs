//! `tack:plugin/project`: what the host knows about the project. Every plugin may ask; the
//! answer is the host's own decision (the trust store, `--trust`, `--no-trust`), never something
//! the project's files say about themselves.

use crate::bindings::latest::extensions::tack::plugin::project;
use crate::state::PluginState;

impl project::Host for PluginState {
    async fn trusted(&mut self) -> wasmtime::Result<bool> {
        Ok(self.env.project_trusted)
    }
}
