//! A key a plugin bound (`tack:plugin/shortcuts`, 0.2.0), pressed: the plugin hears the
//! `shortcut` event through its `observer` export, outside the agent's run, as Pi runs a
//! shortcut's handler.

use tack_tui::UiEvent;

use super::controller::Controller;

/// The event a plugin's observer gets for one of its keys.
const SHORTCUT_EVENT: &str = "shortcut";

impl Controller {
    pub async fn shortcut(&self, plugin: &str, key: &str) {
        // The plugin set of this front: a key bound before a reload belongs to the plugin as it
        // was loaded then, and the new one binds its keys again.
        let Some(owner) = self.front.loaded.set.get(plugin).cloned() else {
            return;
        };
        if owner.disabled_reason().is_some() {
            return;
        }
        let data = serde_json::json!({ "type": SHORTCUT_EVENT, "key": key }).to_string();
        if let Err(e) = owner.on_named_event(SHORTCUT_EVENT, &data).await {
            self.send(UiEvent::Error(format!(
                "{plugin}'s shortcut {key} failed: {e}"
            )));
        }
    }
}
