//! Slash commands in the terminal UI. The host's own (`/model`, `/thinking`, `/resume`, `/new`,
//! `/tree`, `/fork`, `/rewind`, `/compact`, `/clone`, `/name`, `/label`, `/plugins`, `/login`, `/help`) come first;
//! without arguments the ones that choose something open a picker. Other names go to the
//! plugin that registered them.

use std::fmt::Write as _;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tack_core::session::Session;
use tack_runtime::bridge::SwitchReason;
use tack_tui::{CommandInfo, Picker, PickerKind, UiEvent};

use super::controller::Controller;
use crate::modes::driver::{Busy, BusyKind, MoveTo, SessionMove};
use crate::sessions;
use crate::sessions::short_id;
use crate::start::Lifecycle;

/// The host's commands, for completion and `/help`.
const HOST_COMMANDS: &[(&str, &str)] = &[
    ("model", "Pick the model (or /model provider/model)"),
    (
        "thinking",
        "Pick the thinking level (or /thinking off|minimal|low|medium|high)",
    ),
    (
        "compact",
        "Summarize the older conversation now (/compact [focus])",
    ),
    ("tree", "Move to another point of the session tree"),
    ("fork", "Start a new session from an earlier prompt"),
    (
        "rewind",
        "Go back to before an earlier prompt: files, conversation or both",
    ),
    ("clone", "Copy this session into a new one and switch to it"),
    (
        "export",
        "Write the session to a file (/export [file.html|file.jsonl])",
    ),
    (
        "session",
        "Show the session's file, id, counts, tokens and cost",
    ),
    ("copy", "Copy the last answer to the clipboard"),
    ("resume", "Open another session of this directory"),
    ("new", "Start a new session"),
    ("name", "Name the session (/name text)"),
    ("label", "Label an entry (/label id [text])"),
    ("plugins", "List the loaded plugins"),
    ("help", "List the commands and keys"),
    (
        "hotkeys",
        "Show the keys and what they do (keybindings.toml remaps them)",
    ),
    (
        "settings",
        "Change the default thinking level, queue delivery, auto-compaction, theme",
    ),
    (
        "login",
        "Save an API key for a provider (/login <provider>; /login lists them)",
    ),
    ("logout", "Remove a provider's saved API key (/logout <provider>)"),
    (
        "reload",
        "Read settings, plugins, skills, prompts, context files, theme and keys again, on this session",
    ),
    ("quit", "Quit tack"),
];

impl Controller {
    /// The commands to complete: the host's, then every plugin's.
    pub fn command_list(&self) -> Vec<CommandInfo> {
        let mut list: Vec<CommandInfo> = HOST_COMMANDS
            .iter()
            .map(|(name, description)| CommandInfo {
                name: name.to_string(),
                description: description.to_string(),
                plugin: None,
            })
            .collect();
        let mut plugin: Vec<CommandInfo> = self
            .front
            .loaded
            .set
            .commands()
            .into_iter()
            .filter(|(_, spec)| !HOST_COMMANDS.iter().any(|(n, _)| *n == spec.name))
            .map(|(plugin, spec)| CommandInfo {
                name: spec.name.clone(),
                description: spec.description.clone(),
                plugin: Some(plugin.name().to_string()),
            })
            .collect();
        plugin.sort_by(|a, b| a.name.cmp(&b.name));
        list.extend(plugin);
        list
    }

    pub async fn command(self: Arc<Self>, name: &str, args: &str) {
        match self.clone().dispatch(name, args).await {
            Ok(Some(text)) => self.send(UiEvent::Info(text)),
            Ok(None) => {}
            Err(e) => self.send(UiEvent::Error(format!("/{name}: {e:#}"))),
        }
        self.send(UiEvent::Footer(self.footer()));
    }

    async fn dispatch(self: Arc<Self>, name: &str, args: &str) -> Result<Option<String>> {
        match (name, args.is_empty()) {
            ("model", true) => self.open(self.model_picker()?),
            ("model", false) => self.set_model_arg(args).map(Some),
            ("thinking", true) => self.open(self.thinking_picker()),
            ("thinking", false) => self.set_thinking(args).map(Some),
            ("resume", true) => self.open(self.session_picker()?),
            ("resume", false) => self.switch_session(args).await,
            ("new", _) => self.new_session().await,
            ("tree", true) => self.open(self.tree_picker()),
            ("fork", true) => self.open(self.fork_picker()),
            ("rewind", true) => self.open(self.rewind_picker().await?),
            ("rewind", false) => self.rewind(args).await,
            ("fork", false) => self.fork(args).await,
            ("clone", _) => self.clone_session().await,
            ("copy", _) => self.copy_last_answer(),
            ("plugins", _) => Ok(Some(self.plugins_text())),
            ("help", _) => Ok(Some(self.help_text())),
            // The terminal UI knows the keys plugins bound.
            ("hotkeys", _) => {
                self.send(UiEvent::Hotkeys);
                Ok(None)
            }
            ("settings", _) => self.open(self.settings_picker(0)?),
            ("login", true) => self.login_list(),
            ("login", false) => self.login(one_word("login", args)?).await,
            ("logout", true) => bail!("name the provider: /logout <provider>"),
            ("logout", false) => self.logout(one_word("logout", args)?),
            ("reload", _) => self.reload(),
            ("compact" | "tree" | "name" | "label" | "export" | "session", _) => {
                let kind = if name == "compact" {
                    BusyKind::Compacting
                } else {
                    BusyKind::HostCommand
                };
                let work = self.occupy(kind).await?;
                let result = self.host_command(name, args, &work).await;
                self.release(&work);
                if name == "tree" {
                    self.send(UiEvent::Transcript(self.front.session.lock().project()));
                    let edit = crate::sync::lock(&self.tree_edit).take();
                    if let (Some(text), Ok(_)) = (edit, &result) {
                        self.send(UiEvent::EditorText(text));
                    }
                }
                result
            }
            _ => self.plugin_command(name, args).await,
        }
    }

    async fn host_command(&self, name: &str, args: &str, work: &Busy) -> Result<Option<String>> {
        let line = format!("/{name} {args}");
        let busy = (name == "compact").then(|| "Compacting the conversation…".to_string());
        if busy.is_some() {
            self.send(UiEvent::Busy(busy));
        }
        let result = crate::commands::host::run(
            &self.front.agent,
            &self.front.plugin_hooks(),
            &self.front.store,
            &self.front.loaded.cwd,
            &line,
            work.cancel.clone(),
        )
        .await;
        self.send(UiEvent::Busy(None));
        match result {
            Some(result) => result.map(Some),
            None => bail!("unknown command"),
        }
    }

    async fn plugin_command(self: Arc<Self>, name: &str, args: &str) -> Result<Option<String>> {
        let Some((plugin, _)) = self.front.loaded.set.command(name) else {
            bail!("no such command (see /help)");
        };
        let plugin = plugin.clone();
        match crate::commands::prompt::route(&plugin, name, args.trim()).await {
            crate::commands::prompt::Routed::Prompt(text) => {
                self.submit(
                    vec![tack_core::message::Content::text(text)],
                    crate::modes::driver::Queue::Steer,
                );
                return Ok(None);
            }
            crate::commands::prompt::Routed::Handled => return Ok(None),
            crate::commands::prompt::Routed::Command => {}
        }
        let output = match plugin.run_command(name, args.trim()).await {
            Ok(Ok(output)) => output,
            Ok(Err(message)) => bail!("{message}"),
            Err(e) => return Err(e).context("the plugin failed"),
        };
        // The command may have queued a message for the model (plan-mode's "execute the plan").
        self.driver.wake();
        Ok(output)
    }

    fn open(&self, picker: Picker) -> Result<Option<String>> {
        if picker.items.is_empty() {
            bail!("nothing to choose from");
        }
        self.send(UiEvent::Picker(picker));
        Ok(None)
    }

    pub async fn picked(self: Arc<Self>, kind: PickerKind, value: &str) {
        let result = match kind {
            PickerKind::Model => self.set_model_arg(value).map(Some),
            PickerKind::Thinking => self.set_thinking(value).map(Some),
            PickerKind::Session => self.switch_session(value).await,
            PickerKind::Fork => self.fork(value).await,
            PickerKind::Settings => self.change_setting(value),
            PickerKind::Tree => return self.tree_chosen(value).await,
            PickerKind::TreeSummary => return self.tree_summary_chosen(value).await,
            PickerKind::Rewind => self.rewind_chosen(value),
            PickerKind::RewindMode => self.rewind(value).await,
        };
        match result {
            Ok(Some(text)) => self.send(UiEvent::Info(text)),
            Ok(None) => {}
            Err(e) => self.send(UiEvent::Error(format!("{e:#}"))),
        }
        self.send(UiEvent::Footer(self.footer()));
    }

    async fn new_session(&self) -> Result<Option<String>> {
        self.new_session_with(None).await
    }

    /// A session move a plugin asked for, made as the user's `/new`, `/fork` or `/resume`.
    pub async fn plugin_session_move(self: Arc<Self>, asked: SessionMove) {
        let (what, moved) = match &asked.to {
            MoveTo::New { .. } => (
                "new session",
                self.new_session_with(asked.parent(&self.front.session))
                    .await,
            ),
            MoveTo::Fork {
                entry_id,
                at: false,
            } => ("fork", self.fork(entry_id).await),
            MoveTo::Fork { entry_id, at: true } => ("fork", self.fork_at(entry_id).await),
            MoveTo::Switch { session } => ("session switch", self.plugin_switch(session).await),
            MoveTo::Tree {
                entry_id,
                summarize,
                focus,
            } => {
                // As the user's pick in `/tree`: a user message is moved before, its text back
                // in the editor.
                let target = self.tree_target(entry_id);
                let args = MoveTo::tree_args(&target, *summarize, focus.as_deref());
                (
                    "move in the tree",
                    Box::pin(self.clone().dispatch("tree", &args)).await,
                )
            }
        };
        match moved {
            Ok(done) => self.send(UiEvent::Info(format!(
                "{} (asked by {}).",
                done.unwrap_or_default().trim_end_matches('.'),
                asked.plugin
            ))),
            Err(e) => self.send(UiEvent::Error(format!("{}'s {what}: {e:#}", asked.plugin))),
        }
        self.send(UiEvent::Footer(self.footer()));
    }

    /// `control.switch-session`: only to one of tack's own sessions.
    async fn plugin_switch(&self, session: &str) -> Result<Option<String>> {
        let path = crate::modes::driver::plugin_switch_target(
            &self.front.store,
            &self.front.loaded.cwd,
            session,
        )?;
        self.switch_session(&path.display().to_string()).await
    }

    /// A new session holding the conversation up to and with entry `entry_id` (Pi's fork at
    /// position `at`).
    async fn fork_at(&self, entry_id: &str) -> Result<Option<String>> {
        self.front
            .plugin_hooks()
            .before_fork(entry_id, true)
            .await?;
        let forked = {
            let s = self.front.session.lock();
            if s.entry(entry_id).is_none() {
                bail!("the session has no entry {entry_id:?}");
            }
            self.front.store.fork(&s, entry_id)?
        };
        let id = forked.id().to_string();
        self.change(forked, None, Lifecycle::Fork).await?;
        Ok(Some(format!("Forked into session {}.", short_id(&id))))
    }

    async fn new_session_with(&self, parent: Option<String>) -> Result<Option<String>> {
        self.front
            .plugin_hooks()
            .before_switch(SwitchReason::New, None)
            .await?;
        let session = sessions::change::create_child(
            &self.front.cli,
            &self.front.loaded,
            &self.front.store,
            parent,
        )?;
        self.change(session, None, Lifecycle::New).await?;
        Ok(Some("New session.".into()))
    }

    async fn switch_session(&self, arg: &str) -> Result<Option<String>> {
        let (session, warnings) =
            sessions::change::open(&self.front.loaded, &self.front.store, arg)?;
        for w in warnings {
            self.send(UiEvent::Error(w));
        }
        let id = session.id().to_string();
        self.front
            .plugin_hooks()
            .before_switch(SwitchReason::Resume, Some(&id))
            .await?;
        self.change(session, None, Lifecycle::Resume).await?;
        Ok(Some(format!("Resumed session {}.", short_id(&id))))
    }

    /// A new session holding the conversation before the user message `entry_id`; the
    /// message's text goes back into the editor to be edited and sent again.
    async fn fork(&self, entry_id: &str) -> Result<Option<String>> {
        self.front
            .plugin_hooks()
            .before_fork(entry_id, false)
            .await?;
        let forked = {
            let s = self.front.session.lock();
            sessions::change::fork(&self.front.loaded, &self.front.store, &s, entry_id)?
        };
        let Some((forked, text)) = forked else {
            bail!("entry {entry_id:?} is not a prompt");
        };
        let id = forked.id().to_string();
        self.change(forked, Some(text), Lifecycle::Fork).await?;
        Ok(Some(format!("Forked into session {}.", short_id(&id))))
    }

    /// A copy of the active branch in a new session file, which becomes the session.
    async fn clone_session(&self) -> Result<Option<String>> {
        if self.driver.is_running() {
            bail!("the agent is running; wait, or press Esc to abort it first");
        }
        let leaf = {
            let s = self.front.session.lock();
            if !s.is_persistent() {
                bail!("this session lives in memory (--no-session): there is no file to clone");
            }
            s.leaf_id()
                .ok_or_else(|| anyhow::anyhow!("the session is empty: nothing to clone"))?
                .to_owned()
        };
        self.front.plugin_hooks().before_fork(&leaf, true).await?;
        let clone = {
            let s = self.front.session.lock();
            self.front.store.fork(&s, &leaf)?
        };
        let id = clone.id().to_string();
        self.change(clone, None, Lifecycle::Fork).await?;
        Ok(Some(format!(
            "Cloned into session {}; you are in the clone now.",
            short_id(&id)
        )))
    }

    /// `/copy`: the last answer to the system clipboard through the terminal (OSC 52, which
    /// works over SSH and in tmux with `set-clipboard on`), and into a file, for terminals
    /// that ignore OSC 52.
    fn copy_last_answer(&self) -> Result<Option<String>> {
        let text = self.front.session.lock().last_assistant_text();
        let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
            bail!("no answer to copy yet");
        };
        let file = self.front.loaded.home.root().join("last-copy.txt");
        std::fs::write(&file, &text).with_context(|| format!("cannot write {}", file.display()))?;
        self.send(UiEvent::Clipboard(text.clone()));
        Ok(Some(format!(
            "Copied the last answer ({} characters) to the clipboard; it is also in `{}`.",
            text.chars().count(),
            file.display()
        )))
    }

    /// Replaces the session while no run can start.
    async fn change(
        &self,
        session: Session,
        editor_text: Option<String>,
        reason: Lifecycle,
    ) -> Result<()> {
        let work = self.occupy(BusyKind::ChangingSession).await?;
        // The new conversation is on screen before plugins hear that it started, so what they
        // show then (a handoff's "ready", the text they put in the editor) stays.
        self.send(UiEvent::Transcript(session.project()));
        let adopted = self
            .front
            .replace_session(&self.services.inbox, session, reason, |warning| {
                self.send(UiEvent::Error(warning))
            })
            .await;
        self.release(&work);
        self.send(UiEvent::History(self.history()));
        if let Some(text) = editor_text {
            self.send(UiEvent::EditorText(text));
        }
        adopted
    }

    /// `/reload`: ends this run of the UI, which starts again on the same session with
    /// everything read anew (under `tack plugin dev`, after the plugin is rebuilt).
    fn reload(&self) -> Result<Option<String>> {
        if !self.front.session.lock().is_persistent() {
            bail!(
                "this session is kept in memory only (--no-session): a reload would lose it; \
                 restart tack to read settings and plugins again"
            );
        }
        if self.driver.is_running() {
            bail!("the agent is running; wait, or press Esc to abort it first");
        }
        self.reload.store(true, std::sync::atomic::Ordering::SeqCst);
        self.send(UiEvent::Shutdown);
        Ok(None)
    }

    fn plugins_text(&self) -> String {
        let mut out = String::from("```\n");
        for plugin in self.front.loaded.set.plugins() {
            crate::commands::list::describe(&mut out, plugin);
        }
        out.push_str("```");
        out
    }

    fn help_text(&self) -> String {
        let mut out = String::from("**Commands**\n\n");
        for c in self.command_list() {
            let _ = writeln!(out, "- `/{}` {}", c.name, c.description);
        }
        out.push('\n');
        out.push_str(&self.keymap.describe());
        out.push_str(
            "\n`!cmd` runs a shell command and shows it to the model; `!!cmd` keeps it out.\n",
        );
        out
    }
}

/// The one provider name `/login` and `/logout` take. Anything after it is refused without
/// being shown: it may be a key typed where the name goes.
fn one_word<'a>(command: &str, args: &'a str) -> Result<&'a str> {
    let mut words = args.split_whitespace();
    match (words.next(), words.next()) {
        (Some(word), None) => Ok(word),
        _ => bail!("/{command} takes one provider name; the key is asked for after it"),
    }
}
