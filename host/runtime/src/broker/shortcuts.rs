//! The host side of `tack:plugin/shortcuts` (0.2.0): the keys a plugin binds, checked for their
//! grammar and counted here; whether a key is free is the terminal UI's to say, since only it
//! knows tack's keys with the user's remaps.

use std::collections::BTreeSet;
use std::sync::Mutex;

use tack_core::keys::Chord;

use crate::bindings::v0_2_0::tack::plugin0_2_0::shortcuts;
use crate::state::PluginState;

/// The most keys one plugin binds.
const MAX_SHORTCUTS: usize = 32;
/// The longest key name (`ctrl+alt+shift+pagedown` is 23 bytes).
const MAX_KEY_LEN: usize = 64;

/// The keys a plugin has bound.
#[derive(Default)]
pub struct Shortcuts {
    keys: Mutex<BTreeSet<String>>,
}

impl Shortcuts {
    fn bind(&self, key: &str) -> Result<(), String> {
        if key.len() > MAX_KEY_LEN {
            return Err(format!(
                "a key name is at most {MAX_KEY_LEN} bytes, not {}",
                key.len()
            ));
        }
        Chord::parse_shortcut(key).map_err(|e| format!("'{key}': {e}"))?;
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        if !keys.contains(key) && keys.len() >= MAX_SHORTCUTS {
            return Err(format!("a plugin binds at most {MAX_SHORTCUTS} keys"));
        }
        keys.insert(key.to_string());
        Ok(())
    }

    fn unbind(&self, key: &str) -> bool {
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        keys.remove(key)
    }
}

impl shortcuts::Host for PluginState {
    async fn register(
        &mut self,
        key: String,
        description: String,
    ) -> wasmtime::Result<Result<(), String>> {
        let description = self.ui_text("a shortcut's description", &description)?;
        let description = description.lines().next().unwrap_or_default().to_string();
        let key = key.trim();
        if let Err(e) = self.env.shortcuts.bind(key) {
            return Ok(Err(e));
        }
        self.env
            .services
            .ui
            .set_shortcut(&self.env.name, key, Some(&description));
        Ok(Ok(()))
    }

    async fn unregister(&mut self, key: String) -> wasmtime::Result<bool> {
        let key = key.trim();
        let bound = self.env.shortcuts.unbind(key);
        if bound {
            self.env.services.ui.set_shortcut(&self.env.name, key, None);
        }
        Ok(bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_and_counted() {
        let shortcuts = Shortcuts::default();
        assert!(shortcuts.bind("ctrl+shift+p").is_ok());
        assert!(
            shortcuts.bind("ctrl+shift+p").is_ok(),
            "again: a new description"
        );
        let typed = shortcuts.bind("x").expect_err("refused");
        assert!(typed.contains("a key people type"), "{typed}");
        for c in 'a'..='z' {
            shortcuts.bind(&format!("ctrl+alt+{c}")).expect("free");
        }
        for n in 1..=5 {
            shortcuts.bind(&format!("f{n}")).expect("free");
        }
        let refused = shortcuts.bind("f6").expect_err("refused");
        assert!(refused.contains("at most 32"), "{refused}");
        assert!(shortcuts.unbind("ctrl+shift+p"));
        assert!(!shortcuts.unbind("ctrl+shift+p"));
        assert!(shortcuts.bind(&"x".repeat(65)).is_err());
    }
}
