//! Pi's `examples/extensions/provider-payload.ts` (pi-coding-agent 0.73.1) as a tack plugin: every
//! request sent to the model provider is appended, pretty-printed, to
//! `.pi/provider-payload.log` in the workspace, followed by the status and headers of its answer.
//!
//! Pi's `pi.on("before_provider_request")` and `pi.on("after_provider_response")` are
//! `tack:plugin/provider-hooks` (0.2.0), which the host calls only on a plugin the user granted
//! `provider_payload`; this one asks for `"read"`, since it only logs. Pi's example mentions
//! replacing the payload (`return { ...event.payload, temperature: 0 }`): that is returning
//! `Some(body)` here, and needs `provider_payload = "replace"`. Pi's `appendFileSync` is
//! `std::fs` inside the plugin's one filesystem grant, `$WORKSPACE/.pi`.

use std::io::Write;
use std::path::PathBuf;

use tack_sdk::{
    export_plugin, export_provider_hooks, InitContext, OutgoingRequest, Plugin, ProviderHooks,
    ProviderResponse, Registration,
};

#[derive(Default)]
struct ProviderPayload {
    log_file: PathBuf,
}

impl ProviderPayload {
    fn append(&self, text: &str) {
        // `.pi` exists: the fs grant names it, and tack opens a granted folder at start (Pi's
        // appendFileSync needs it too). A failed write must not fail the request, so it is only
        // logged.
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log_file)
            .and_then(|mut file| file.write_all(text.as_bytes()));
        if let Err(e) = written {
            tack_sdk::log::warn(format!("cannot write {}: {e}", self.log_file.display()));
        }
    }
}

impl Plugin for ProviderPayload {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        self.log_file = PathBuf::from(&ctx.workspace)
            .join(".pi")
            .join("provider-payload.log");
        Ok(Registration::new())
    }
}

impl ProviderHooks for ProviderPayload {
    fn before_provider_request(&mut self, request: &OutgoingRequest) -> Option<String> {
        let pretty = serde_json::from_str::<serde_json::Value>(&request.payload)
            .and_then(|value| serde_json::to_string_pretty(&value))
            .unwrap_or_else(|_| request.payload.clone());
        self.append(&format!("{pretty}\n\n"));
        None
    }

    fn after_provider_response(&mut self, response: &ProviderResponse) {
        let headers: serde_json::Map<String, serde_json::Value> = response
            .headers
            .iter()
            .map(|(name, value)| (name.clone(), serde_json::Value::String(value.clone())))
            .collect();
        let headers = serde_json::Value::Object(headers);
        self.append(&format!("[{}] {headers}\n\n", response.status));
    }
}

export_plugin!(ProviderPayload);
export_provider_hooks!(ProviderPayload);
