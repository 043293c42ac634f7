//! Pi's `examples/extensions/session-name.ts` (pi-coding-agent 0.73.1) as a tack plugin:
//! `/session-name [name]` names the session, or without a name shows it. Session names show in
//! the session list instead of the first message.
//!
//! Pi's `pi.setSessionName` / `pi.getSessionName` are `tack:plugin/control`'s
//! `set-session-name` / `session-name`. Pi shows the outcome with `ctx.ui.notify`; a tack command
//! returns the text to show, which every front end (print mode included) displays.

use tack_sdk::{control, export_plugin, InitContext, Plugin, Registration};

#[derive(Default)]
struct SessionName;

impl Plugin for SessionName {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new().command(
            "session-name",
            "Set or show session name (usage: /session-name [new name])",
        ))
    }

    fn run_command(&mut self, _name: &str, args: &str) -> Result<Option<String>, String> {
        let name = args.trim();
        if !name.is_empty() {
            control::set_session_name(name)?;
            return Ok(Some(format!("Session named: {name}")));
        }
        Ok(Some(match control::session_name() {
            Some(current) => format!("Session: {current}"),
            None => "No session name set".to_string(),
        }))
    }
}

export_plugin!(SessionName);
