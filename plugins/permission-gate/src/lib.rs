//! permission-gate: every tool call is allowed, asked about or denied, by rules and a mode.
//!
//! Rules come from three places, all considered together (see [`rules`] for matching and
//! precedence): the shipped defaults (`defaults.toml`: ask before `rm -r`, `sudo`, force pushes,
//! piping downloads into a shell, writing outside the workspace, …), the user's global file
//! `permissions.toml` in the plugin's data directory, and the project's
//! `$WORKSPACE/.tack/permissions.toml`, and Claude Code's: `~/.claude/settings.json` counts as
//! the user's global rules, `.claude/settings.json` and `.claude/settings.local.json` in the
//! workspace as project rules (see [`claude`]). When no rule matches, the mode decides ([`mode`]);
//! `/permissions <mode>` switches it for the session (kept in a `permission-gate` custom entry,
//! so it follows the branch). `--permissions <mode>` on the command line beats what the session
//! stored: when a session starts (or is switched to) with it, the mode is recorded in the session
//! if it differs, so the run and everything after it use what the user said last. An `ask` shows "Allow once", "Always allow for this project"
//! (which appends an allow rule to the project file) or "Deny"; without a UI it is a denial.
//!
//! The project file ships with the repository, so until the user trusts the project (the host
//! says so through `tack:plugin/project`) only its `deny` and `ask` rules count: a repository
//! may make the gate stricter, never looser. In such a project "Always allow for this project"
//! writes to a file of the user's own in the plugin's data directory (`projects/<hash>-<name>.toml`),
//! which the repository cannot reach.

mod claude;
mod decide;
mod escalation;
mod mode;
mod rules;
mod store;

use serde::{Deserialize, Serialize};
use tack_sdk::{
    export_plugin, log, project, session, ui, EventKind, HookKind, InitContext, Level, Plugin,
    Registration, ToolCall, ToolDecision,
};

use policy_common::readonly::Trust;

use crate::decide::{Context, Verdict};
use crate::mode::Mode;
use crate::rules::{Action, Rule, Source};
use crate::store::{Format, RuleFile};

/// The custom entry holding the session's mode.
const ENTRY: &str = "permission-gate";

const ALLOW_ONCE: u32 = 0;
const ALLOW_ALWAYS: u32 = 1;

#[derive(Default)]
struct PermissionGate {
    workspace: String,
    config_mode: Mode,
    /// `--permissions`, which beats the session's stored mode.
    command_line_mode: Option<Mode>,
    defaults: Vec<Rule>,
    project_file: String,
    global_file: Option<String>,
    /// The user's own approvals for this project while it is not trusted, kept outside it.
    approvals_file: Option<String>,
    /// The plugin's data directory, where approvals to leave the sandbox are kept.
    data_dir: Option<String>,
    /// The global file and the approvals file (when the plugin has a data directory), the user's
    /// Claude Code settings, then the project's files.
    rule_files: Vec<RuleFile>,
    /// The project's Claude Code settings files (shared and local).
    claude_project_files: Vec<String>,
    /// The untrusted project's allow rules have been reported as ignored.
    told_untrusted: bool,
    /// The MCP servers the mcp plugin runs (set by the host); their tools (`<server>_…`) ask.
    mcp_servers: Vec<String>,
    /// Their tools the user renamed: the new name -> tack's (set by the host).
    mcp_tools: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    mode: Option<String>,
    /// What `--permissions` said for this run (the manifest's flag sets it).
    #[serde(default)]
    command_line_mode: Option<String>,
    #[serde(default = "default_true")]
    defaults: bool,
    /// `~/.claude/settings.json` when it exists (found by the host, see tack.toml).
    #[serde(default)]
    claude_settings: Vec<Place>,
    /// The MCP servers of this run, by name (the host sets this when the mcp plugin loads).
    #[serde(default)]
    mcp_servers: Vec<String>,
    /// Server tools the user renamed: the new name -> tack's `<server>_<tool>` (set by the host
    /// with `mcp_servers`).
    #[serde(default)]
    mcp_tools: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Place {
    path: String,
}

fn default_true() -> bool {
    true
}

#[derive(Serialize, Deserialize)]
struct ModeState {
    mode: Mode,
}

/// The user's rules and the files that could not be used.
struct UserRules {
    rules: Vec<Rule>,
    problems: Vec<String>,
}

impl Plugin for PermissionGate {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid permission-gate config: {e}"))?;
        let parse = |name: &str| {
            Mode::parse(name).ok_or_else(|| {
                format!("invalid permission-gate config: unknown mode `{name}` (read-only, ask, auto or yolo)")
            })
        };
        self.command_line_mode = config.command_line_mode.as_deref().map(parse).transpose()?;
        // A session that stored no mode (a new one, a sub-agent's) starts in the command line's.
        self.config_mode = match self.command_line_mode {
            Some(mode) => mode,
            None => config
                .mode
                .as_deref()
                .map(parse)
                .transpose()?
                .unwrap_or_default(),
        };
        self.workspace = ctx.workspace.trim_end_matches('/').to_string();
        self.mcp_servers = config.mcp_servers.clone();
        self.mcp_tools = config.mcp_tools.clone();
        self.defaults = if config.defaults {
            rules::defaults(&self.workspace)?
        } else {
            Vec::new()
        };
        self.project_file = format!("{}/.tack/permissions.toml", self.workspace);
        self.global_file = ctx
            .data_dir
            .as_deref()
            .map(|dir| format!("{}/permissions.toml", dir.trim_end_matches('/')));
        self.data_dir = ctx.data_dir.clone();
        self.approvals_file = ctx
            .data_dir
            .as_deref()
            .map(|dir| approvals_path(dir, &self.workspace));
        // `~/.claude/settings.json` is the only place the home folder shows (the guest has no
        // environment); Claude Code rules with `~/` need it.
        let home = config.claude_settings.first().and_then(|place| {
            std::path::Path::new(&place.path)
                .parent()
                .and_then(std::path::Path::parent)
                .map(|home| home.display().to_string())
        });
        let claude = Format::Claude { home };
        self.claude_project_files = ["settings.json", "settings.local.json"]
            .iter()
            .map(|name| format!("{}/.claude/{name}", self.workspace))
            .collect();
        self.rule_files = self
            .global_file
            .iter()
            .map(|path| RuleFile::new(path.clone(), Source::Global(path.clone())))
            .chain(
                self.approvals_file
                    .iter()
                    .map(|path| RuleFile::new(path.clone(), Source::Approved(path.clone()))),
            )
            .chain(config.claude_settings.iter().map(|place| {
                RuleFile::with_format(
                    place.path.clone(),
                    Source::Global(place.path.clone()),
                    claude.clone(),
                )
            }))
            .chain(std::iter::once(RuleFile::new(
                self.project_file.clone(),
                Source::Project(self.project_file.clone()),
            )))
            .chain(self.claude_project_files.iter().map(|path| {
                RuleFile::with_format(path.clone(), Source::Project(path.clone()), claude.clone())
            }))
            .collect();
        Ok(Registration::new()
            .command(
                "permissions",
                "Show the permission mode and rules, or switch mode: /permissions [read-only|ask|auto|yolo]",
            )
            .hook(HookKind::BeforeToolCall)
            .event(EventKind::SessionStart))
    }

    fn on_event(&mut self, kind: EventKind, _data: &str) {
        if kind == EventKind::SessionStart {
            self.settle_mode();
        }
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        if name != "permissions" {
            return Err(format!("unknown command `/{name}`"));
        }
        let wanted = args.trim();
        if wanted.is_empty() {
            return Ok(Some(self.overview()));
        }
        let mode = Mode::parse(wanted).ok_or_else(|| {
            format!("unknown mode `{wanted}`; use /permissions read-only, ask, auto or yolo")
        })?;
        session::append_state(ENTRY, &ModeState { mode })?;
        ui::set_status(
            "permissions",
            Some(&format!("permissions: {}", mode.name())),
        );
        Ok(Some(format!(
            "Permission mode: {} ({}).",
            mode.name(),
            mode.describe()
        )))
    }

    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        let Ok(args) = call.args_value() else {
            // The host validated the arguments against the schema; the tool reports the rest.
            return ToolDecision::Allow;
        };
        let user = self.user_rules();
        let mut mode = self.mode();
        if !user.problems.is_empty() {
            for problem in &user.problems {
                ui::notify(
                    Level::Warn,
                    &format!("permission-gate ignores a broken rule file and will not run past `ask` mode until it is fixed: {problem}"),
                );
            }
            mode = mode.capped();
        }
        let trust = self.trust();
        let rules: Vec<&Rule> = self.defaults.iter().chain(user.rules.iter()).collect();
        let files: Vec<String> = std::iter::once(self.project_file.clone())
            .chain(self.global_file.clone())
            .chain(self.approvals_file.clone())
            .chain(self.claude_project_files.iter().cloned())
            .collect();
        let ctx = Context {
            workspace: &self.workspace,
            mode,
            rules: &rules,
            rule_files: &files,
            trust,
            mcp_servers: &self.mcp_servers,
            mcp_tools: &self.mcp_tools,
        };
        if escalation::asked(&args) {
            if let Some(refused) = self.judge_escalation(&call.name, &args, mode) {
                return refused;
            }
        }
        let verdict = decide::evaluate(&ctx, &call.name, &args);
        match verdict.action {
            Action::Allow => ToolDecision::Allow,
            Action::Deny => ToolDecision::Block(format!(
                "permission-gate denied {} `{}`: {}.",
                call.name, verdict.summary, verdict.why
            )),
            Action::Ask => self.ask(&call.name, verdict),
        }
    }
}

impl PermissionGate {
    /// A call asking to run outside the command sandbox: `Some` refusal, or `None` when the
    /// user allows it (the call's own rules then judge it as any other).
    fn judge_escalation(
        &self,
        tool: &str,
        args: &serde_json::Value,
        mode: Mode,
    ) -> Option<ToolDecision> {
        let subject = escalation::subject(tool, args);
        let shown = if subject.chars().count() > 120 {
            format!("{}…", subject.chars().take(120).collect::<String>())
        } else {
            subject.clone()
        };
        match mode {
            Mode::ReadOnly => {
                return Some(ToolDecision::Block(format!(
                    "permission-gate: read-only mode never runs a command outside the command \
                     sandbox ({tool} `{shown}`); switch with /permissions if it must."
                )))
            }
            Mode::Yolo => return None,
            Mode::Ask | Mode::Auto => {}
        }
        let approvals = self.escalations();
        if approvals.allows(tool, &subject) {
            return None;
        }
        let options = vec![
            "Allow once".to_string(),
            "Always allow this outside the sandbox in this project".to_string(),
            "Deny".to_string(),
        ];
        match ui::select(
            &format!("Run {tool} `{shown}` outside the command sandbox?"),
            &options,
            None,
        ) {
            Some(ALLOW_ONCE) => None,
            Some(ALLOW_ALWAYS) => {
                if let Err(e) = approvals.remember(tool, &subject) {
                    ui::notify(
                        Level::Warn,
                        &format!("permission-gate allowed it once but could not remember it: {e}"),
                    );
                }
                None
            }
            Some(_) => Some(ToolDecision::Block(format!(
                "permission-gate: the user would not run {tool} `{shown}` outside the command \
                 sandbox. Find a way within it, or ask the user."
            ))),
            None => Some(ToolDecision::Block(format!(
                "permission-gate: running {tool} `{shown}` outside the command sandbox needs the \
                 user's approval, and no one answered, so it did not run."
            ))),
        }
    }

    /// The user's remembered approvals to leave the sandbox, for this project.
    fn escalations(&self) -> escalation::Approvals {
        let key = self
            .approvals_file
            .as_deref()
            .and_then(|f| f.rsplit('/').next())
            .and_then(|name| name.strip_suffix(".toml"))
            .unwrap_or("project");
        escalation::Approvals::new(self.data_dir.as_deref(), key)
    }

    fn mode(&self) -> Mode {
        self.stored_mode().unwrap_or(self.config_mode)
    }

    /// The mode the session's branch recorded, if any.
    fn stored_mode(&self) -> Option<Mode> {
        match session::latest_state::<ModeState>(ENTRY) {
            Ok(state) => state.map(|s| s.mode),
            Err(e) => {
                log::warn(format!(
                    "permission-gate: ignoring an unreadable mode entry: {e}"
                ));
                None
            }
        }
    }

    /// At the start of a session: the command line's mode replaces the stored one (and is
    /// recorded, so the session says what ran), and a stored mode other than the configured
    /// default is shown, so nobody continues a session in `yolo` without being told.
    fn settle_mode(&self) {
        let stored = self.stored_mode();
        let (mode, origin) = match (self.command_line_mode, stored) {
            (Some(wanted), stored) => {
                if stored != Some(wanted) {
                    if let Err(e) = session::append_state(ENTRY, &ModeState { mode: wanted }) {
                        log::warn(format!(
                            "permission-gate: cannot record the mode --permissions set: {e}"
                        ));
                    }
                }
                let origin = match stored {
                    Some(before) if before != wanted => {
                        format!("from --permissions; the session had {}", before.name())
                    }
                    _ => "from --permissions".to_string(),
                };
                (wanted, Some(origin))
            }
            (None, Some(stored)) if stored != self.config_mode => (
                stored,
                Some("as this session set it; /permissions switches".to_string()),
            ),
            (None, stored) => (stored.unwrap_or(self.config_mode), None),
        };
        ui::set_status(
            "permissions",
            Some(&format!("permissions: {}", mode.name())),
        );
        if let Some(origin) = origin {
            ui::notify(
                Level::Info,
                &format!("Permission mode: {} ({origin}).", mode.name()),
            );
        }
    }

    fn trust(&self) -> Trust {
        if project::trusted() {
            Trust::Trusted
        } else {
            Trust::Untrusted
        }
    }

    /// The rules of every file; in a project the user has not trusted, the project file's
    /// allow rules are left out (and reported once).
    fn user_rules(&mut self) -> UserRules {
        let mut out = UserRules {
            rules: Vec::new(),
            problems: Vec::new(),
        };
        let trusted = self.trust() == Trust::Trusted;
        let mut ignored = Vec::new();
        let mut ignored_files: Vec<String> = Vec::new();
        for file in &mut self.rule_files {
            match file.current(&self.workspace) {
                store::Loaded::Missing => {}
                store::Loaded::Rules(rules) => {
                    for rule in rules {
                        let shipped = matches!(rule.source, Source::Project(_));
                        if shipped && !trusted && rule.spec.action == Action::Allow {
                            ignored.push(format!("{} `{}`", rule.spec.tool, rule.spec.pattern));
                            if !ignored_files.contains(&file.path) {
                                ignored_files.push(file.path.clone());
                            }
                        } else {
                            out.rules.push(rule);
                        }
                    }
                }
                store::Loaded::Broken(problem) => out.problems.push(problem),
            }
        }
        if !ignored.is_empty() && !self.told_untrusted {
            self.told_untrusted = true;
            let message = format!(
                "permission-gate ignores the allow rules of {} ({}): the project is not \
                 trusted, so its own rules may only ask or deny. Start tack with --trust once \
                 you have checked them.",
                ignored_files.join(", "),
                ignored.join(", ")
            );
            log::warn(message.clone());
            ui::notify(Level::Warn, &message);
        }
        out
    }

    /// Where "Always allow for this project" writes: the project file in a trusted project,
    /// else the user's own approvals file (the project file's allow rules would be ignored).
    fn remember_file(&self) -> &str {
        match (&self.approvals_file, self.trust()) {
            (Some(approvals), Trust::Untrusted) => approvals,
            _ => &self.project_file,
        }
    }

    fn ask(&self, tool: &str, verdict: Verdict) -> ToolDecision {
        let title = format!("Allow {tool} {}?", verdict.summary);
        let options = vec![
            "Allow once".to_string(),
            "Always allow for this project".to_string(),
            "Deny".to_string(),
        ];
        match ui::select(&title, &options, None) {
            Some(ALLOW_ONCE) => ToolDecision::Allow,
            Some(ALLOW_ALWAYS) => {
                if let Err(e) = store::append(self.remember_file(), &verdict.remember) {
                    ui::notify(
                        Level::Warn,
                        &format!(
                            "permission-gate allowed the call once but could not remember it: {e}"
                        ),
                    );
                }
                ToolDecision::Allow
            }
            Some(_) => ToolDecision::Block(format!(
                "permission-gate: the user denied {tool} `{}` (asked because {}).",
                verdict.summary, verdict.why
            )),
            None => ToolDecision::Block(format!(
                "permission-gate: {tool} `{}` needs the user's approval because {}, and no one \
                 answered, so it did not run.",
                verdict.summary, verdict.why
            )),
        }
    }

    /// `/permissions` without arguments: the mode and every rule, by source.
    fn overview(&mut self) -> String {
        let mode = self.mode();
        let user = self.user_rules();
        let mut out = format!(
            "Permission mode: {} ({}).\nSwitch with /permissions <mode>:",
            mode.name(),
            mode.describe()
        );
        for other in mode::ALL {
            out.push_str(&format!("\n  {}: {}", other.name(), other.describe()));
        }
        out.push_str(
            "\n\nRules (the most specific match decides; on a tie your rules beat the shipped \
             ones, and deny beats ask beats allow):",
        );
        let mut section = |title: String, rules: Vec<&Rule>| {
            out.push_str(&format!("\n\n{title}:"));
            if rules.is_empty() {
                out.push_str(" none");
            }
            for rule in rules {
                out.push_str(&format!(
                    "\n  {} {} `{}`",
                    rule.spec.action.as_str(),
                    rule.spec.tool,
                    rule.spec.pattern
                ));
            }
        };
        let project_files = std::iter::once(self.project_file.clone())
            .chain(self.claude_project_files.iter().cloned())
            .collect::<Vec<_>>()
            .join(", ");
        section(
            format!("Project ({project_files})"),
            user.rules
                .iter()
                .filter(|r| matches!(r.source, Source::Project(_)))
                .collect(),
        );
        if let Some(global) = &self.global_file {
            section(
                format!("Global ({global})"),
                user.rules
                    .iter()
                    .filter(|r| matches!(r.source, Source::Global(_)))
                    .collect(),
            );
        }
        if let Some(approvals) = &self.approvals_file {
            section(
                format!("Your approvals for this untrusted project ({approvals})"),
                user.rules
                    .iter()
                    .filter(|r| matches!(r.source, Source::Approved(_)))
                    .collect(),
            );
        }
        section("Shipped defaults".into(), self.defaults.iter().collect());
        for problem in &user.problems {
            out.push_str(&format!("\n\nIgnored (broken): {problem}"));
        }
        for file in &self.rule_files {
            if !file.skipped.is_empty() {
                out.push_str(&format!(
                    "\n\nNot used from {} (no tack counterpart): {}",
                    file.path,
                    file.skipped.join("; ")
                ));
            }
        }
        out
    }
}

/// `<data>/projects/<hash>-<name>.toml`: one approvals file per workspace, named by a hash of
/// its path (so `/a/b-c` and `/a/b/c` never share one) plus its last component to be readable.
fn approvals_path(data_dir: &str, workspace: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(workspace.as_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let name: String = workspace
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect();
    format!(
        "{}/projects/{hash}-{name}.toml",
        data_dir.trim_end_matches('/')
    )
}

export_plugin!(PermissionGate);
