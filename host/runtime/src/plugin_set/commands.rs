//! Slash commands plugins register while tack runs (`tack:plugin/commands`, 0.2.0), beside the
//! ones their `init` returned: an MCP client adds a server's prompts once it has listed them, a
//! Pi extension calls `registerCommand` from a handler. A plugin adds or removes only its own: a
//! name another plugin holds, at start or since, is refused, so no plugin shadows another's
//! command. Each is held to a size, and each plugin to a count.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::PluginSet;
use crate::api::CommandSpec;
use crate::bridge::RegisterError;
use crate::plugin::LoadedPlugin;

/// How many commands one plugin may register after `init`.
pub const MAX_REGISTERED_COMMANDS: usize = 128;
/// The longest description a registered command may carry (one line in a menu).
pub const MAX_COMMAND_DESCRIPTION: usize = 1024;

/// Run-time commands by name (the plugin's index in the set, and the spec), and a count of
/// changes that front ends watch to refresh their command menus.
pub(super) struct Registered {
    map: RwLock<BTreeMap<String, (usize, CommandSpec)>>,
    changes: tokio::sync::watch::Sender<u64>,
}

impl Default for Registered {
    fn default() -> Self {
        Registered {
            map: RwLock::default(),
            changes: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Registered {
    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, (usize, CommandSpec)>> {
        // A map of plain values: a writer that panicked left it whole.
        self.map.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, (usize, CommandSpec)>> {
        self.map.write().unwrap_or_else(|e| e.into_inner())
    }

    fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }
}

/// The longest command name (`skill:` and a skill's 64 characters fit).
pub const MAX_COMMAND_NAME: usize = 128;

/// A command's name: one word after the slash (no whitespace) of at most 128 bytes, carrying
/// nothing a terminal would act on (no control character).
pub fn check_command_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_COMMAND_NAME
        && !name.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "command name '{}' must be one word of 1 to {MAX_COMMAND_NAME} bytes, without \
             control characters",
            tack_core::text::neutralize_controls(name)
        ))
    }
}

impl PluginSet {
    /// The plugin serving `/name` and the command's spec: one its `init` returned, else one it
    /// registered since.
    pub fn command(&self, name: &str) -> Option<(Arc<LoadedPlugin>, CommandSpec)> {
        if let Some((i, spec)) = self.commands.get(name) {
            return Some((self.plugins[*i].clone(), spec.clone()));
        }
        self.registered_commands
            .read()
            .get(name)
            .map(|(i, spec)| (self.plugins[*i].clone(), spec.clone()))
    }

    /// Changes whenever a plugin registers or removes a command after `init`: a front end's
    /// command menu reads [`PluginSet::commands`] again.
    pub fn commands_changed(&self) -> tokio::sync::watch::Receiver<u64> {
        self.registered_commands.changes.subscribe()
    }

    /// Every command of every plugin, by name.
    pub fn commands(&self) -> Vec<(Arc<LoadedPlugin>, CommandSpec)> {
        let registered = self.registered_commands.read();
        let mut all: Vec<(Arc<LoadedPlugin>, CommandSpec)> = self
            .commands
            .values()
            .chain(registered.values())
            .map(|(i, spec)| (self.plugins[*i].clone(), spec.clone()))
            .collect();
        all.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        all
    }

    /// Registers (or replaces) one of `plugin`'s commands after its `init`.
    pub fn register_command(&self, plugin: &str, spec: CommandSpec) -> Result<(), RegisterError> {
        check_command_name(&spec.name).map_err(RegisterError::Invalid)?;
        let first_line = spec.description.lines().next().unwrap_or_default();
        if first_line.len() > MAX_COMMAND_DESCRIPTION {
            return Err(RegisterError::Limit(format!(
                "command '/{}': its description is {} bytes, over the {MAX_COMMAND_DESCRIPTION}-byte cap",
                spec.name,
                first_line.len()
            )));
        }
        let Some(index) = self.plugins.iter().position(|p| p.name() == plugin) else {
            return Err(RegisterError::Invalid(format!(
                "plugin '{plugin}' is not loaded"
            )));
        };
        if let Some((owner, _)) = self.commands.get(&spec.name) {
            return Err(RegisterError::Taken(format!(
                "command '/{}' is registered by plugin '{}' at start",
                spec.name,
                self.plugins[*owner].name()
            )));
        }
        // One line, and nothing a terminal acts on: menus show it as it is.
        let spec = CommandSpec {
            description: tack_core::text::neutralize_controls(
                spec.description.lines().next().unwrap_or_default(),
            )
            .into_owned(),
            ..spec
        };
        let mut registered = self.registered_commands.write();
        match registered.get(&spec.name) {
            Some((owner, _)) if *owner != index => {
                return Err(RegisterError::Taken(format!(
                    "command '/{}' is registered by plugin '{}'",
                    spec.name,
                    self.plugins[*owner].name()
                )))
            }
            Some(_) => {}
            None => {
                let mine = registered.values().filter(|(i, _)| *i == index).count();
                if mine >= MAX_REGISTERED_COMMANDS {
                    return Err(RegisterError::Limit(format!(
                        "plugin '{plugin}' has registered {mine} commands, the most it may"
                    )));
                }
            }
        }
        let unchanged = registered
            .get(&spec.name)
            .is_some_and(|(_, old)| old.description == spec.description);
        registered.insert(spec.name.clone(), (index, spec));
        drop(registered);
        if !unchanged {
            self.registered_commands.changed();
        }
        Ok(())
    }

    /// Removes a command `plugin` registered after its `init`; `false` when it had none of that
    /// name (another plugin's, or one from `init`, stays).
    pub fn unregister_command(&self, plugin: &str, name: &str) -> bool {
        let mut registered = self.registered_commands.write();
        match registered.get(name) {
            Some((owner, _)) if self.plugins[*owner].name() == plugin => {
                registered.remove(name);
                drop(registered);
                self.registered_commands.changed();
                true
            }
            _ => false,
        }
    }
}
