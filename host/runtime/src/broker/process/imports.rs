//! `tack:plugin/process@0.2.0` on a plugin's [`ProcessTable`]: every call reaches only the
//! calling plugin's own processes, and time spent waiting on a program is not the plugin's.
//! The end of a process is told (`process_exit`) to the plugin that started it and to no other.

use std::sync::Weak;
use std::time::{Duration, Instant};

use super::{ExitNotice, Output, ProcessError, Stream};
use crate::api::Level;
use crate::bindings::v0_2_0::tack::plugin0_2_0::process;
use crate::broker::exec::{child_env, resolve_cwd, ChildEnv, ProcessHandle, Sandboxing};
use crate::plugin::LoadedPlugin;
use crate::state::{CallKind, PluginState};

/// The event a plugin subscribes to (`tack:plugin/events`) to hear that one of its own
/// processes ended.
pub const PROCESS_EXIT: &str = "process_exit";

/// Tells `owner` that its process `id` ended, if it subscribed to [`PROCESS_EXIT`]. The owner is
/// the plugin whose instance spawned the process, fixed at spawn: the event says nothing about
/// any other plugin's processes, and an id means nothing outside its owner anyway.
fn exit_notice(owner: Option<Weak<LoadedPlugin>>) -> ExitNotice {
    Box::new(move |id, code| {
        Box::pin(async move {
            let Some(plugin) = owner.and_then(|owner| owner.upgrade()) else {
                return;
            };
            if !plugin.wants_event(PROCESS_EXIT) || plugin.disabled_reason().is_some() {
                return;
            }
            let data = serde_json::json!({ "type": PROCESS_EXIT, "id": id, "code": code });
            if let Err(e) = plugin.on_named_event(PROCESS_EXIT, &data.to_string()).await {
                plugin.services().ui.log(
                    plugin.name(),
                    Level::Warn,
                    &format!("event observer failed on {PROCESS_EXIT}: {e}"),
                );
            }
        })
    })
}

type Result<T> = wasmtime::Result<std::result::Result<T, process::ProcessError>>;

fn wit_error(e: ProcessError) -> process::ProcessError {
    match e {
        ProcessError::Denied(m) => process::ProcessError::Denied(m),
        ProcessError::Invalid(m) => process::ProcessError::Invalid(m),
        ProcessError::Failed(m) => process::ProcessError::Failed(m),
        ProcessError::Limit(m) => process::ProcessError::Limit(m),
        ProcessError::Unknown(id) => process::ProcessError::Unknown(id),
    }
}

fn stream(s: process::OutputStream) -> Stream {
    match s {
        process::OutputStream::Stdout => Stream::Stdout,
        process::OutputStream::Stderr => Stream::Stderr,
    }
}

fn output(o: Output) -> process::Output {
    match o {
        Output::Data(d) => process::Output::Data(d),
        Output::Idle => process::Output::Idle,
        Output::Closed => process::Output::Closed,
    }
}

fn wait(ms: u32) -> Duration {
    Duration::from_millis(u64::from(ms))
}

impl process::Host for PluginState {
    async fn spawn(&mut self, request: process::SpawnRequest) -> Result<u64> {
        let env = self.env.clone();
        let cwd = match resolve_cwd(&env.workspace, request.cwd.as_deref()) {
            Ok(cwd) => cwd,
            Err(e) if e.outside => return Ok(Err(process::ProcessError::Denied(e.message))),
            Err(e) => return Ok(Err(process::ProcessError::Invalid(e.message))),
        };
        let vars = ChildEnv::Only(child_env(std::env::vars_os(), &env.capabilities.env, |n| {
            env.secrets.holds(n)
        }));
        let sandbox = Sandboxing {
            policy: &env.sandbox,
            workspace: &env.workspace,
        };
        // Always confined: a program that lives on is never let out with the call that
        // started it.
        let spawned = env.processes.spawn(
            &request.command,
            &env.capabilities.process,
            |plan, cancel| {
                ProcessHandle::spawn_interactive(plan, vars, &cwd, cancel, Some(sandbox))
            },
            Some(exit_notice(env.plugin.get().cloned())),
        );
        Ok(spawned.map_err(wit_error))
    }

    async fn write(&mut self, id: u64, data: Vec<u8>) -> Result<()> {
        let started = Instant::now();
        let written = self.env.clone().processes.write(id, &data).await;
        self.resume_after(started);
        Ok(written.map_err(wit_error))
    }

    async fn close_stdin(&mut self, id: u64) -> Result<()> {
        Ok(self.env.processes.close_stdin(id).await.map_err(wit_error))
    }

    async fn read(
        &mut self,
        id: u64,
        which: process::OutputStream,
        max_bytes: u32,
        wait_ms: u32,
    ) -> Result<process::Output> {
        let started = Instant::now();
        let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
        let got = self
            .env
            .clone()
            .processes
            .read(id, stream(which), max, false, wait(wait_ms))
            .await;
        self.resume_after(started);
        Ok(got.map(output).map_err(wit_error))
    }

    async fn read_line(
        &mut self,
        id: u64,
        which: process::OutputStream,
        wait_ms: u32,
    ) -> Result<process::Output> {
        let started = Instant::now();
        let got = self
            .env
            .clone()
            .processes
            .read(id, stream(which), usize::MAX, true, wait(wait_ms))
            .await;
        self.resume_after(started);
        Ok(got.map(output).map_err(wit_error))
    }

    async fn stderr_dropped(&mut self, id: u64) -> Result<u64> {
        Ok(self
            .env
            .processes
            .stderr_dropped(id)
            .await
            .map_err(wit_error))
    }

    async fn send_signal(&mut self, id: u64, sig: process::Signal) -> Result<()> {
        let number = match sig {
            process::Signal::Interrupt => libc::SIGINT,
            process::Signal::Terminate => libc::SIGTERM,
            process::Signal::Kill => libc::SIGKILL,
            process::Signal::Hangup => libc::SIGHUP,
        };
        Ok(self
            .env
            .processes
            .signal(id, number)
            .await
            .map_err(wit_error))
    }

    async fn wait(&mut self, id: u64, wait_ms: u32) -> Result<Option<process::ExitStatus>> {
        let started = Instant::now();
        let ended = self.env.clone().processes.wait(id, wait(wait_ms)).await;
        self.resume_after(started);
        Ok(ended
            .map(|end| end.map(|code| process::ExitStatus { code }))
            .map_err(wit_error))
    }

    async fn release(&mut self, id: u64) -> Result<()> {
        Ok(self.env.processes.release(id).await.map_err(wit_error))
    }

    async fn details(&mut self, id: u64) -> Result<process::ProcessDetails> {
        Ok(self
            .env
            .processes
            .details(id)
            .await
            .map(|d| process::ProcessDetails {
                runtime_ms: u64::try_from(d.runtime.as_millis()).unwrap_or(u64::MAX),
                recent_output: d.recent,
            })
            .map_err(wit_error))
    }

    async fn list(&mut self) -> wasmtime::Result<Vec<process::ProcessInfo>> {
        Ok(self
            .env
            .processes
            .list()
            .await
            .into_iter()
            .map(|p| process::ProcessInfo {
                id: p.id,
                command: p.command,
                exit: p.exit.map(|code| process::ExitStatus { code }),
                kept: p.kept,
            })
            .collect())
    }

    async fn keep(&mut self, id: u64) -> Result<process::KeptProcess> {
        let denied = |why: &str| Ok(Err(process::ProcessError::Denied(why.to_string())));
        // Outliving tack is the user's to decide, asked by tack itself: a tool, hook or event
        // may not even ask, and nobody may be asked where no one can answer.
        if !matches!(self.call.kind, CallKind::Command { .. }) {
            return denied("only a command the user runs may keep a process past tack's exit");
        }
        let env = self.env.clone();
        if !env.services.ui.has_ui() {
            return denied("keeping a process past tack's exit needs someone to say yes, and nobody can answer here");
        }
        let Some(command) = env
            .processes
            .list()
            .await
            .into_iter()
            .find(|p| p.id == id)
            .map(|p| p.command)
        else {
            return Ok(Err(process::ProcessError::Unknown(id)));
        };
        let Some(data_dir) = env
            .plugin
            .get()
            .and_then(Weak::upgrade)
            .and_then(|plugin| plugin.data_dir().map(|d| d.to_path_buf()))
        else {
            return Ok(Err(process::ProcessError::Failed(
                "tack keeps no plugin data in this run, so there is nowhere for a kept process's output to go".into(),
            )));
        };
        // The command as the plugin wrote it, on one screen: its control characters made
        // visible (so it cannot paint over the dialog), and a cut marked.
        let visible = tack_core::text::neutralize_controls(&command).replace('\n', " ");
        let mut shown: String = visible.chars().take(KEEP_SHOWN_CHARS).collect();
        if visible.chars().count() > KEEP_SHOWN_CHARS {
            shown.push('…');
        }
        let confinement = if env.sandbox.confines() {
            "It stays in the command sandbox"
        } else {
            "It runs unconfined, as every command does while the sandbox is off"
        };
        let message = format!(
            "{plugin} asks to keep this command running after tack exits:\n\n  {shown}\n\n\
             {confinement}, its output goes on to a file in {plugin}'s data folder, and you \
             stop it yourself (tack names its process group).",
            plugin = env.name,
        );
        let started = Instant::now();
        let yes = env
            .services
            .ui
            .confirm(HOST, "Keep running after tack exits?", &message, None)
            .await;
        self.resume_after(started);
        if !yes {
            return denied("the user chose not to keep it");
        }
        Ok(env
            .processes
            .keep(id, &data_dir)
            .await
            .map(|kept| process::KeptProcess {
                group: kept.group,
                log: kept.log.display().to_string(),
            })
            .map_err(wit_error))
    }
}

/// Who asks in the dialogs tack itself shows.
const HOST: &str = "tack";
/// How much of a command line the keep dialog shows.
const KEEP_SHOWN_CHARS: usize = 300;
