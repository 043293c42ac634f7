//! The host side of `tack:plugin/tools` (0.2.0): tools a plugin registers after `init`, kept
//! by the session's tool registry ([`crate::bridge::PluginTools`]) under the calling plugin's
//! name, so a plugin can add, replace or remove only its own.

use crate::bindings::v0_2_0::tack::plugin0_2_0::tools;
use crate::bridge::RegisterError;
use crate::state::PluginState;

impl tools::Host for PluginState {
    async fn register(
        &mut self,
        spec: tools::ToolSpec,
    ) -> wasmtime::Result<Result<(), tools::RegisterError>> {
        let registered = self.env.services.agent.register_tool(&self.env.name, spec);
        Ok(registered.map_err(|e| match e {
            RegisterError::Invalid(m) => tools::RegisterError::Invalid(m),
            RegisterError::Taken(m) => tools::RegisterError::Taken(m),
            RegisterError::Limit(m) => tools::RegisterError::Limit(m),
        }))
    }

    async fn unregister(&mut self, name: String) -> wasmtime::Result<bool> {
        Ok(self
            .env
            .services
            .agent
            .unregister_tool(&self.env.name, &name))
    }

    async fn all(&mut self) -> wasmtime::Result<Vec<tools::ToolInfo>> {
        Ok(self
            .env
            .services
            .agent
            .tool_infos()
            .into_iter()
            .map(|info| tools::ToolInfo {
                spec: info.spec,
                plugin: info.plugin,
                active: info.active,
            })
            .collect())
    }
}
