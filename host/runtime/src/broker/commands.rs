//! The host side of `tack:plugin/commands` (0.2.0): slash commands a plugin registers after
//! `init`, kept by the session's plugin set under the calling plugin's name, so a plugin can
//! add, replace or remove only its own.

use crate::bindings::v0_2_0::tack::plugin0_2_0::commands;
use crate::bridge::RegisterError;
use crate::state::PluginState;

impl commands::Host for PluginState {
    async fn register(
        &mut self,
        spec: commands::CommandSpec,
    ) -> wasmtime::Result<Result<(), commands::RegisterError>> {
        let Some(set) = self.env.services.agent.plugin_set() else {
            return Ok(Err(commands::RegisterError::Limit(
                "no session is running yet: during `init`, return commands in the registration"
                    .into(),
            )));
        };
        Ok(set
            .register_command(&self.env.name, spec)
            .map_err(|e| match e {
                RegisterError::Invalid(m) => commands::RegisterError::Invalid(m),
                RegisterError::Taken(m) => commands::RegisterError::Taken(m),
                RegisterError::Limit(m) => commands::RegisterError::Limit(m),
            }))
    }

    async fn unregister(&mut self, name: String) -> wasmtime::Result<bool> {
        Ok(self
            .env
            .services
            .agent
            .plugin_set()
            .is_some_and(|set| set.unregister_command(&self.env.name, &name)))
    }

    async fn all(&mut self) -> wasmtime::Result<Vec<commands::CommandInfo>> {
        let Some(set) = self.env.services.agent.plugin_set() else {
            return Ok(Vec::new());
        };
        Ok(set
            .commands()
            .into_iter()
            .map(|(plugin, spec)| commands::CommandInfo {
                spec,
                plugin: plugin.name().to_string(),
            })
            .collect())
    }
}
