//! plan-mode: think first, then act.
//!
//! `/plan` (or `/plan on`, the config `{"enabled": true}` for sessions that stored nothing, or
//! `tack --plan`, which beats what a session stored) turns plan mode on: only read-only tools stay active, a before-tool-call hook blocks `write`, `edit` and
//! any `bash` line that is not read-only (see [`gate`]), and the system prompt asks for numbered
//! steps under a `Plan:` heading. The plan is read from the model's messages as they end
//! ([`extract`]). `/plan off` asks whether to execute it; if so the full tool set comes back, the
//! model is told to start, and `[DONE:n]` markers in its replies tick the steps off in a widget.
//!
//! All state is in `plan-mode` session entries ([`state`]), read afresh by every hook.

mod extract;
mod gate;
mod prompt;
mod state;

use serde::Deserialize;
use tack_sdk::session::{self, Delivery, OutgoingMessage};
use tack_sdk::{
    agent, export_plugin, log, ui, AgentStartPatch, EventKind, HookKind, InitContext, Level,
    Plugin, Registration, ToolCall, ToolDecision,
};

use crate::state::PlanState;

/// Whether the host says the user trusts the project: git and other programs the project
/// configures count as read-only only then.
fn project_trust() -> policy_common::readonly::Trust {
    if tack_sdk::project::trusted() {
        policy_common::readonly::Trust::Trusted
    } else {
        policy_common::readonly::Trust::Untrusted
    }
}

/// The status-line segment and widget key.
const UI_KEY: &str = "plan";

#[derive(Default)]
struct PlanMode {
    /// Plan mode is on in a branch without any plan-mode entry yet.
    default_enabled: bool,
    /// `--plan`: plan mode is on in every session this run starts or switches to, whatever it
    /// stored.
    command_line: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    enabled: bool,
    /// `--plan` was given for this run.
    #[serde(default)]
    command_line: bool,
}

impl Plugin for PlanMode {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid plan-mode config: {e}"))?;
        self.default_enabled = config.enabled || config.command_line;
        self.command_line = config.command_line;
        Ok(Registration::new()
            .command(
                "plan",
                "Toggle plan mode: explore read-only, then present a numbered plan (/plan on|off)",
            )
            .hook(HookKind::BeforeToolCall)
            .hook(HookKind::BeforeAgentStart)
            .event(EventKind::MessageEnd)
            .event(EventKind::SessionStart))
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        if name != "plan" {
            return Err(format!("unknown command `/{name}`"));
        }
        let state = PlanState::load(self.default_enabled);
        let text = match args.trim() {
            "" if state.enabled => turn_off(state)?,
            "" | "on" => turn_on(&state)?,
            "off" => turn_off(state)?,
            other => {
                return Err(format!(
                    "unknown argument `{other}`; use /plan, /plan on or /plan off"
                ))
            }
        };
        Ok(Some(text))
    }

    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        if PlanState::load(self.default_enabled).enabled {
            gate::decide(call, project_trust())
        } else {
            ToolDecision::Allow
        }
    }

    fn before_agent_start(&mut self, _prompt: &str, _system_prompt: &str) -> AgentStartPatch {
        let state = PlanState::load(self.default_enabled);
        let mut patch = AgentStartPatch::default();
        if state.enabled {
            // Plan mode may have been turned on by config, before any agent existed to restrict.
            restrict_tools();
            show(&state);
            patch.append_system_prompt = Some(prompt::PLANNING.to_string());
        } else if state.executing && !state.all_done() {
            show(&state);
            patch.append_system_prompt = Some(prompt::executing(&state));
        } else {
            release_tools();
            show(&state);
        }
        patch
    }

    fn on_event(&mut self, kind: EventKind, data: &str) {
        if kind == EventKind::SessionStart {
            if self.command_line {
                self.enter_from_command_line();
            }
            return;
        }
        if kind != EventKind::MessageEnd {
            return;
        }
        let Some(text) = assistant_text(data) else {
            return;
        };
        let mut state = PlanState::load(self.default_enabled);
        if state.enabled {
            let steps = extract::plan_steps(&text);
            if steps.is_empty() || steps == state.steps {
                return;
            }
            state.steps = steps;
            if save(&state) {
                ui::notify(
                    Level::Info,
                    &format!(
                        "Plan captured ({} steps). /plan off to review and execute it.",
                        state.steps.len()
                    ),
                );
                show(&state);
            }
        } else if state.executing && state.tick(&extract::done_markers(&text)) {
            if state.all_done() {
                state.executing = false;
                if save(&state) {
                    ui::notify(Level::Info, "Plan complete: every step is done.");
                }
            } else {
                save(&state);
            }
            show(&state);
        }
    }
}

impl PlanMode {
    /// `--plan` against a session that stored plan mode off: the command line wins, and the
    /// session records it.
    fn enter_from_command_line(&self) {
        let state = PlanState::load(self.default_enabled);
        if state.enabled {
            return;
        }
        match turn_on(&state) {
            Ok(_) => ui::notify(
                Level::Info,
                "Plan mode on (from --plan; the session had it off).",
            ),
            Err(e) => log::warn(format!(
                "plan-mode: cannot record the plan mode --plan set: {e}"
            )),
        }
    }
}

fn turn_on(state: &PlanState) -> Result<String, String> {
    if state.enabled {
        return Ok("Plan mode is already on.".into());
    }
    let state = PlanState {
        enabled: true,
        executing: false,
        steps: Vec::new(),
    };
    state.save()?;
    restrict_tools();
    show(&state);
    Ok(
        "Plan mode on: read-only tools only. Ask for a plan; /plan off reviews and executes it."
            .into(),
    )
}

fn turn_off(state: PlanState) -> Result<String, String> {
    if !state.enabled {
        if state.executing {
            let stopped = PlanState {
                executing: false,
                ..state
            };
            stopped.save()?;
            show(&stopped);
            return Ok("Stopped tracking the plan.".into());
        }
        return Ok("Plan mode is already off.".into());
    }
    let execute = !state.steps.is_empty()
        && ui::confirm("Execute the plan?", &state.lines().join("\n"), None);
    let next = PlanState {
        enabled: false,
        executing: execute,
        steps: state.steps,
    };
    next.save()?;
    if let Err(e) = agent::set_active_tools(&agent::all_tools()) {
        log::warn(format!("plan-mode: cannot restore the tool set: {e}"));
    }
    show(&next);
    if execute {
        session::send_message(
            &OutgoingMessage {
                custom_type: Some(state::ENTRY.to_string()),
                text: prompt::start(&next),
                display: true,
            },
            Delivery::Steer,
        );
        Ok(format!(
            "Plan mode off: executing the plan ({} steps).",
            next.steps.len()
        ))
    } else if next.steps.is_empty() {
        Ok("Plan mode off.".into())
    } else {
        Ok("Plan mode off; the plan was not executed.".into())
    }
}

/// Saves, and reports a failure instead of losing it silently; returns whether it worked.
fn save(state: &PlanState) -> bool {
    match state.save() {
        Ok(()) => true,
        Err(e) => {
            log::warn(format!("plan-mode: cannot save the plan state: {e}"));
            false
        }
    }
}

fn restrict_tools() {
    let tools = gate::plan_tools(&agent::all_tools());
    if agent::active_tools() != tools {
        // The before-tool-call hook enforces plan mode either way; this only spares the model
        // from trying tools that would be blocked.
        if let Err(e) = agent::set_active_tools(&tools) {
            log::warn(format!("plan-mode: cannot restrict the tool set: {e}"));
        }
    }
}

/// Gives back the full tool set when the active one is exactly plan mode's, which happens when
/// the branch moved (`/tree`) from inside plan mode to outside it.
fn release_tools() {
    let all = agent::all_tools();
    let plan = gate::plan_tools(&all);
    if plan.len() < all.len() && agent::active_tools() == plan {
        if let Err(e) = agent::set_active_tools(&all) {
            log::warn(format!("plan-mode: cannot restore the tool set: {e}"));
        }
    }
}

/// Status line and widget for the state.
fn show(state: &PlanState) {
    if state.enabled {
        ui::set_status(UI_KEY, Some("plan mode"));
        ui::set_widget(UI_KEY, &state.lines());
    } else if state.executing {
        let progress = format!("plan {}/{}", state.done_count(), state.steps.len());
        ui::set_status(UI_KEY, Some(&progress));
        ui::set_widget(UI_KEY, &state.lines());
    } else {
        ui::set_status(UI_KEY, None);
        ui::set_widget(UI_KEY, &[]);
    }
}

/// The text of an assistant message from a `message_end` event, if that is what it carries.
fn assistant_text(data: &str) -> Option<String> {
    // Every message ends here, tool results of any size among them: read only the role first,
    // skipping the rest without building it, and the text blocks of assistant messages after.
    #[derive(Deserialize)]
    struct Event<'a> {
        #[serde(borrow)]
        message: Head<'a>,
    }
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        role: std::borrow::Cow<'a, str>,
    }
    #[derive(Deserialize)]
    struct Assistant {
        message: Body,
    }
    #[derive(Deserialize)]
    struct Body {
        #[serde(default)]
        content: Vec<Block>,
    }
    #[derive(Deserialize)]
    struct Block {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        text: Option<String>,
    }
    let head: Event<'_> = serde_json::from_str(data).ok()?;
    if head.message.role != "assistant" {
        return None;
    }
    let event: Assistant = serde_json::from_str(data).ok()?;
    let texts: Vec<String> = event
        .message
        .content
        .into_iter()
        .filter(|block| block.kind == "text")
        .filter_map(|block| block.text)
        .collect();
    Some(texts.join("\n"))
}

export_plugin!(PlanMode);
