//! Pi's `examples/extensions/tool-override.ts` (pi-coding-agent 0.73.1) as a tack plugin: the
//! built-in `read` tool is replaced by one that logs every access and refuses sensitive paths
//! (`.env` files, secrets, credentials, SSH/AWS/GPG folders), and `/read-log` shows the last 20
//! accesses.
//!
//! Pi's `pi.registerTool({ name: "read", … })` over a built-in is a tool of the same name with
//! the `replace_tools = ["read"]` grant: without it tack refuses the plugin, naming the clash.
//! Every policy plugin (permission-gate, protected-paths, plan mode) still judges the calls,
//! which keep the name `read`. Pi's log under `getAgentDir()` is the plugin's own data folder;
//! its `fs` reads are the `$WORKSPACE` read grant; `ctx.ui.notify` is `ui.notify`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;
use tack_sdk::{
    export_plugin, ui, InitContext, Level, Plugin, Registration, ToolCall, ToolResult, ToolSpec,
};

const MAX_BYTES: usize = 50 * 1024;

#[derive(Default)]
struct ToolOverride {
    workspace: PathBuf,
    log_file: Option<PathBuf>,
}

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    offset: Option<f64>,
    limit: Option<f64>,
}

/// Pi's `BLOCKED_PATTERNS`, tested on the absolute path as its regular expressions are.
fn is_blocked(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let ends_with_any = |stems: &[&str]| {
        stems.iter().any(|stem| {
            ["json", "yaml", "yml", "toml"]
                .iter()
                .any(|ext| lower.ends_with(&format!("{stem}.{ext}")))
        })
    };
    path.ends_with(".env")
        || path
            .match_indices(".env.")
            .any(|(at, _)| at + ".env.".len() < path.len())
        || ends_with_any(&["secret", "secrets", "credential", "credentials"])
        || ["/.ssh/", "/.aws/", "/.gnupg/"]
            .iter()
            .any(|dir| path.contains(dir))
}

/// `2026-12-03T13:04:05.000Z`, as JavaScript's `toISOString` writes it.
fn iso_now() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

impl ToolOverride {
    fn log_access(&self, path: &Path, allowed: bool, reason: Option<&str>) {
        let Some(log_file) = &self.log_file else {
            return;
        };
        let status = if allowed { "ALLOWED" } else { "BLOCKED" };
        let why = reason.map(|r| format!(" ({r})")).unwrap_or_default();
        let line = format!("[{}] {status}: {}{why}\n", iso_now(), path.display());
        // As in Pi, a log that cannot be written is ignored.
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log_file)
            .and_then(|mut file| file.write_all(line.as_bytes()));
    }

    fn read(&self, args: ReadArgs) -> ToolResult {
        let absolute = self.workspace.join(&args.path);
        let shown = absolute.display().to_string();
        if is_blocked(&shown) {
            self.log_access(&absolute, false, Some("matches blocked pattern"));
            return ToolResult::text(format!(
                "Access denied: \"{}\" matches a blocked pattern (sensitive file). This tool blocks \
                 access to .env files, secrets, credentials, and SSH/AWS/GPG directories.",
                args.path
            ))
            .with_details(json!({ "blocked": true }));
        }
        self.log_access(&absolute, true, None);
        let content = match std::fs::read_to_string(&absolute) {
            Ok(content) => content,
            Err(e) => {
                return ToolResult::text(format!("Error reading file: {e}"))
                    .with_details(json!({ "error": true }))
            }
        };
        let lines: Vec<&str> = content.split('\n').collect();
        let start = args
            .offset
            .map_or(0, |o| (o.max(1.0) as usize).saturating_sub(1))
            .min(lines.len());
        let end = args
            .limit
            .map_or(lines.len(), |l| start.saturating_add(l.max(0.0) as usize))
            .min(lines.len());
        let mut text = lines[start..end].join("\n");
        if text.len() > MAX_BYTES {
            let mut cut = MAX_BYTES;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("\n\n[Output truncated at 50KB]");
        }
        ToolResult::text(text).with_details(json!({ "lines": lines.len() }))
    }
}

impl Plugin for ToolOverride {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        self.workspace = PathBuf::from(&ctx.workspace);
        self.log_file = ctx
            .data_dir
            .as_ref()
            .map(|dir| Path::new(dir).join("read-access.log"));
        let schema = json!({
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "Path to the file to read (relative or absolute)" },
                "offset": { "type": "number", "description": "Line number to start reading from (1-indexed)" },
                "limit": { "type": "number", "description": "Maximum number of lines to read" }
            },
            "required": ["path"]
        });
        Ok(Registration::new()
            .tool(ToolSpec::new(
                "read",
                "read (audited)",
                "Read the contents of a file with access logging. Some sensitive paths (.env, \
                 secrets, credentials) are blocked.",
                schema,
            ))
            .command("read-log", "View the file access log"))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        match call.args::<ReadArgs>() {
            Ok(args) => self.read(args),
            Err(e) => ToolResult::error(e),
        }
    }

    fn run_command(&mut self, _name: &str, _args: &str) -> Result<Option<String>, String> {
        let log = self
            .log_file
            .as_ref()
            .and_then(|file| std::fs::read_to_string(file).ok());
        match log {
            Some(log) => {
                let lines: Vec<&str> = log.trim().split('\n').collect();
                let recent = &lines[lines.len().saturating_sub(20)..];
                ui::notify(
                    Level::Info,
                    &format!("Recent file access:\n{}", recent.join("\n")),
                );
            }
            None => ui::notify(Level::Info, "No access log found"),
        }
        Ok(None)
    }
}

export_plugin!(ToolOverride);
