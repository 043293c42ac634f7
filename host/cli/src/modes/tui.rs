//! The interactive terminal UI (`tack` with no prompt, on a terminal). The wiring is that of the
//! other modes (plugins, provider, session, agent); the UI itself is the `tack-tui` crate, fed
//! the agent's events and plugin UI requests, and this module's controller carries out the
//! actions it sends back.

mod clipboard;
mod commands;
mod completions;
mod controller;
mod info;
mod login;
mod models;
mod pickers;
mod plugin_editor;
mod renderers;
mod rewind;
mod screen;
mod settings;
mod shell;
mod shortcuts;

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use tack_core::event::{AgentEvent, EventSink, NoticeLevel};
use tack_tui::keymap::Keymap;
use tack_tui::{App, Theme, UiEvent};
use tokio::sync::mpsc;

use crate::cli::Cli;
use crate::modes::driver::{interactive_host, SessionDriver};
use crate::modes::file_args::Prompts;
use crate::start::inbox::Inbox;
use crate::start::services::Backends;
use crate::start::{Front, Lifecycle, Starting};
use controller::Controller;
use screen::{TuiScreen, TuiServices};

/// Sends every agent event to the UI.
struct UiSink(mpsc::UnboundedSender<UiEvent>);

impl EventSink for UiSink {
    fn emit(&self, event: &AgentEvent) {
        let _ = self.0.send(UiEvent::Agent(event.clone()));
    }
}

/// How one run of the UI ended.
enum Ended {
    Exit(ExitCode),
    /// `/reload`: start again on the session file at this path.
    Reload(std::path::PathBuf),
}

/// The UI, started again by `/reload` on the same session: settings, plugins (installed
/// packages, skills, prompt templates, Claude Code files), context files, the theme and the keys
/// are read anew, as a new `tack -r <session>` with the same command line would read them.
pub async fn run(mut cli: Cli) -> Result<ExitCode> {
    loop {
        let again = cli.clone();
        match run_once(cli).await? {
            Ended::Exit(code) => return Ok(code),
            Ended::Reload(session) => cli = reloading(again, session),
        }
    }
}

/// The command line of a reload: the same flags, on the session that was open, without the
/// prompts it started with (they ran already).
fn reloading(mut cli: Cli, session: std::path::PathBuf) -> Cli {
    cli.prompt.clear();
    cli.continue_session = false;
    cli.fork = None;
    cli.resume = Some(session.display().to_string());
    cli.reloaded = true;
    cli
}

async fn run_once(cli: Cli) -> Result<Ended> {
    // Read before the terminal is taken over, so a bad `@file` is an ordinary error.
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let prompts = Prompts::read(&cli.prompt, &cwd)?;
    let (ui_tx, ui_rx) = mpsc::unbounded_channel();
    let (wake_tx, mut wake_rx) = mpsc::unbounded_channel();
    let (moves_tx, mut moves_rx) = mpsc::unbounded_channel();
    let reload = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let backends = Backends::default();
    let services = Arc::new(TuiServices::new(
        backends.agent.clone(),
        TuiScreen::new(ui_tx.clone(), reload.clone(), moves_tx),
        Inbox::new(wake_tx),
    ));
    let host = interactive_host(&services, &backends);
    let starting = Starting::load(cli, Front::interactive(backends, host)).await?;
    let sink: Arc<dyn EventSink> = Arc::new(UiSink(ui_tx.clone()));
    let front = Arc::new(
        starting
            .open_session()?
            .start(sink, Some(&services.inbox))
            .await?,
    );
    services.attach_plugins(front.loaded.set.clone());
    front.serve_model_changes();
    let loaded = &front.loaded;

    let log_path = loaded.home.root().join("tui-stderr.log");
    let (keymap, keymap_warning) = load_keymap(&loaded.home.root().join("keybindings.toml"));
    let mut warnings = loaded.warnings.clone();
    warnings.extend(keymap_warning);
    let (theme_name, palette) = match loaded.settings.theme.as_deref() {
        None => ("dark", tack_tui::theme::Palette::DARK),
        Some(name) => match Theme::palette(name, &loaded.theme_dirs) {
            Ok(palette) => (name, palette),
            Err(e) => {
                warnings.push(format!("{e}; the dark theme applies"));
                ("dark", tack_tui::theme::Palette::DARK)
            }
        },
    };
    let theme_name = theme_name.to_string();
    let notifier = tack_tui::notify::Notifier::from_setting(loaded.settings.notify.as_deref())
        .unwrap_or_else(|e| {
            warnings.push(format!("config.toml: {e}; notifications are off"));
            tack_tui::notify::Notifier::Off
        });
    let startup = loaded.startup.verbose_lines();
    let display = loaded.settings.display();
    let provider_notices = front.provider_notices.clone();
    services.screen.attach(&front);
    // Nothing here shows a run's end before its task is done, so the flag stays down.
    let checkpoints = crate::checkpoints::Checkpoints::for_start(&front.loaded);
    let driver = Arc::new(
        SessionDriver::new(
            front.agent.clone(),
            front.session.clone(),
            services.clone(),
            Arc::default(),
        )
        .with_checkpoints(checkpoints),
    );
    let controller = Arc::new(Controller {
        front,
        driver,
        services,
        ui: ui_tx.clone(),
        shell: Default::default(),
        keymap: keymap.clone(),
        images: Default::default(),
        dev_state: crate::commands::plugin_dev::state_file(),
        reload,
        tree_edit: std::sync::Mutex::new(None),
        completions: Default::default(),
        renderings: Default::default(),
        editor_inputs: Default::default(),
    });

    controller.send(UiEvent::Display(display));
    controller.send(UiEvent::Transcript(
        controller.front.session.lock().project(),
    ));
    controller.send(UiEvent::Footer(controller.footer()));
    controller.send(UiEvent::Commands(controller.command_list()));
    // Commands plugins register later (an MCP server's prompts) join the menu when they do, at
    // most ten times a second however fast a plugin changes them. The task holds the controller
    // weakly, so a `/reload` drops the old one (and its plugins) as before.
    let mut commands_changed = controller.front.loaded.set.commands_changed();
    let menu = Arc::downgrade(&controller);
    tokio::spawn(async move {
        while commands_changed.changed().await.is_ok() {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            commands_changed.mark_unchanged();
            let Some(controller) = menu.upgrade() else {
                return;
            };
            controller.send(UiEvent::Commands(controller.command_list()));
        }
    });
    controller.send(UiEvent::History(controller.history()));
    for warning in warnings {
        controller.send(UiEvent::Notify {
            plugin: "tack".into(),
            level: NoticeLevel::Warn,
            message: warning,
        });
    }
    for line in startup {
        controller.send(UiEvent::Notify {
            plugin: "tack".into(),
            level: NoticeLevel::Info,
            message: line,
        });
    }
    for notice in provider_notices {
        controller.send(UiEvent::Notify {
            plugin: "tack".into(),
            level: NoticeLevel::Info,
            message: notice,
        });
    }
    if !prompts.texts.is_empty() || prompts.has_files() {
        let model = controller.front.agent.config().model;
        let (messages, note) = prompts.messages(&model.input, &model.id);
        if let Some(note) = note {
            controller.send(UiEvent::Notify {
                plugin: "tack".into(),
                level: NoticeLevel::Warn,
                message: note,
            });
        }
        tokio::spawn(submit_in_turn(controller.driver.clone(), messages));
    }
    let files_tx = ui_tx.clone();
    let root = controller.front.loaded.cwd.clone();
    tokio::task::spawn_blocking(move || {
        let _ = files_tx.send(UiEvent::Files(info::list_files(&root)));
    });

    // Signals end the UI like /quit, so the terminal is restored and the session completed.
    let signal_tx = ui_tx.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        let _ = signal_tx.send(UiEvent::Shutdown);
    });

    let (action_tx, mut action_rx) = mpsc::unbounded_channel();
    let handler = controller.clone();
    let actions = tokio::spawn(async move {
        loop {
            tokio::select! {
                action = action_rx.recv() => match action {
                    Some(action) => handler.handle(action),
                    None => return,
                },
                Some(()) = wake_rx.recv() => handler.driver.wake(),
                Some(asked) = moves_rx.recv() => {
                    let this = handler.clone();
                    tokio::spawn(async move { this.plugin_session_move(asked).await });
                }
            }
        }
    });
    drop(ui_tx);

    let result = {
        let _stderr = info::StderrToFile::redirect(&log_path);
        let mut guard = tack_tui::terminal::enter().context("cannot set up the terminal")?;
        let theme = Theme::from_env().with_palette(palette);
        if theme.color {
            tack_tui::render::highlight::preload();
        }
        let mut app = App::new(theme);
        app.set_theme_name(&theme_name);
        app.set_keymap(keymap);
        app.set_notifier(notifier, std::env::var_os("TMUX").is_some());
        tack_tui::run(
            &mut guard.terminal,
            &mut app,
            tack_tui::terminal_events,
            ui_rx,
            action_tx,
        )
        .await
    };
    actions.abort();
    controller.driver.shut_down().await;
    let reloading = controller.reload.load(std::sync::atomic::Ordering::SeqCst);
    controller
        .front
        .end_because(if reloading {
            Lifecycle::Reload
        } else {
            Lifecycle::Quit
        })
        .await;
    result.context("the terminal UI failed")?;
    let session_file = controller
        .front
        .session
        .lock()
        .path()
        .map(|p| p.to_path_buf());
    if let (Some(state), Some(path)) = (&controller.dev_state, &session_file) {
        std::fs::write(state, path.display().to_string())
            .with_context(|| format!("writing {}", state.display()))?;
    }
    if controller.reload.load(std::sync::atomic::Ordering::SeqCst) {
        if controller.dev_state.is_some() {
            // `tack plugin dev` rebuilds the plugin, then starts tack again itself.
            return Ok(Ended::Exit(ExitCode::from(
                crate::commands::plugin_dev::RELOAD_EXIT_CODE,
            )));
        }
        if let Some(path) = session_file {
            // The file is given up here, lock and all, whatever still holds the handle: the
            // next run opens it.
            let cwd = controller.front.loaded.cwd.clone();
            let file = controller
                .front
                .session
                .replace(tack_core::session::Session::in_memory(&cwd));
            drop(file);
            return Ok(Ended::Reload(path));
        }
    }
    let resume = {
        let session = controller.front.session.lock();
        session
            .is_persistent()
            .then(|| crate::sessions::short_id(session.id()).to_string())
    };
    if let Some(id) = resume {
        println!("Continue this session with: tack -r {id}");
    }
    Ok(Ended::Exit(ExitCode::SUCCESS))
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = hup.recv() => {}
        _ = int.recv() => {}
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

/// The command line's prompts, each once the previous one's run is over; an aborted run stops
/// the rest.
async fn submit_in_turn(
    driver: Arc<SessionDriver<TuiScreen>>,
    messages: Vec<Vec<tack_core::message::Content>>,
) {
    for content in messages {
        let Some(run) = driver.prompt_when_idle(content).await else {
            return;
        };
        run.finished.cancelled().await;
        if run.cancel.is_cancelled() {
            return;
        }
    }
}

/// `<tack home>/keybindings.toml`, or the defaults with a warning naming what is wrong in it.
fn load_keymap(path: &std::path::Path) -> (Keymap, Option<String>) {
    match std::fs::read_to_string(path) {
        Ok(text) => match Keymap::from_toml(&text) {
            Ok(keymap) => (keymap, None),
            Err(e) => (
                Keymap::default(),
                Some(format!(
                    "{} is not used: {e}; the default keys apply",
                    path.display()
                )),
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Keymap::default(), None),
        Err(e) => (
            Keymap::default(),
            Some(format!(
                "cannot read {}: {e}; the default keys apply",
                path.display()
            )),
        ),
    }
}
