//! `tack --mode rpc`: tack driven over stdin/stdout by an editor, a web UI or a script. The
//! protocol (commands, responses, events, plugin dialogs) is in [`tack_protocol`]; this is
//! the server: it wires plugins, provider, session and agent as the other modes do, then serves
//! one command per input line until stdin closes.

mod bash;
mod commands;
mod compaction;
mod export;
mod models;
mod output;
mod queries;
mod queue_modes;
mod rewind;
mod run;
mod screen;
mod server;
mod sessions;
mod via;

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Result};
use tack_core::event::EventSink;
use tack_protocol::EventWire;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use crate::cli::Cli;
use crate::modes::driver::{interactive_host, SessionDriver};
use crate::start::inbox::Inbox;
use crate::start::services::Backends;
use crate::start::{Front, Starting};
use crate::sync::lock;
use output::{EventLines, Output};
use screen::{RpcScreen, RpcServices};
use server::Server;

pub async fn serve(cli: Cli) -> Result<ExitCode> {
    if cli.print || !cli.prompt.is_empty() {
        bail!("--mode rpc takes its prompts as commands on stdin, not as arguments or -p");
    }
    let out = Output::start();
    let (wake_tx, mut wake_rx) = mpsc::unbounded_channel();
    let (moves_tx, mut moves_rx) = mpsc::unbounded_channel();
    let run_ended = Arc::new(AtomicBool::new(false));
    let compacting = Arc::new(AtomicBool::new(false));
    let backends = Backends::default();
    let screen = RpcScreen::new(out.clone(), run_ended.clone(), moves_tx);
    let quitting = screen.quitting();
    let services = Arc::new(RpcServices::new(
        backends.agent.clone(),
        screen,
        Inbox::new(wake_tx),
    ));
    let host = interactive_host(&services, &backends);
    let starting = Starting::load(cli, Front::interactive(backends, host)).await?;
    for warning in &starting.loaded().warnings {
        eprintln!("tack: warning: {warning}");
    }
    for line in starting.loaded().startup.lines() {
        eprintln!("tack: {line}");
    }
    let sink: Arc<dyn EventSink> = Arc::new(EventLines {
        out: out.clone(),
        wire: EventWire::new(),
        compacting: compacting.clone(),
        run_ended: run_ended.clone(),
    });
    let front = Arc::new(
        starting
            .open_session()?
            .start(sink, Some(&services.inbox))
            .await?,
    );
    services.attach_plugins(front.loaded.set.clone());
    front.serve_model_changes();
    let checkpoints = crate::checkpoints::Checkpoints::for_start(&front.loaded);
    let driver = Arc::new(
        SessionDriver::new(
            front.agent.clone(),
            front.session.clone(),
            services.clone(),
            run_ended,
        )
        .with_checkpoints(checkpoints),
    );
    let server = Arc::new(Server {
        front,
        driver,
        services,
        out,
        bash: Mutex::new(None),
        retry_off: Mutex::new(None),
        compacting,
        tasks: Mutex::default(),
    });

    let mut lines = read_lines();
    loop {
        tokio::select! {
            line = lines.recv() => match line {
                Some(line) => server.handle_line(&line),
                None => break,
            },
            Some(()) = wake_rx.recv() => server.driver.wake(),
            Some(asked) = moves_rx.recv() => {
                let server = server.clone();
                tokio::spawn(async move { server.plugin_session_move(asked).await });
            }
            () = quitting.cancelled() => break,
        }
    }
    shut_down(&server).await;
    Ok(ExitCode::SUCCESS)
}

/// Input lines from stdin, read by a task of their own (a read cut short by `select!` would lose
/// data); the channel closes at EOF. Blank lines are skipped, a trailing CR is dropped.
fn read_lines() -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
        loop {
            let mut line = Vec::new();
            match stdin.read_until(b'\n', &mut line).await {
                Ok(0) => return,
                Ok(_) => {
                    while matches!(line.last(), Some(b'\n' | b'\r')) {
                        line.pop();
                    }
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    if tx.send(line).await.is_err() {
                        return;
                    }
                }
                Err(e) => {
                    eprintln!("tack: cannot read stdin: {e}");
                    return;
                }
            }
        }
    });
    rx
}

/// EOF on stdin: nobody is left to answer dialogs or wait for a run, so both end; every
/// command still in flight answers; the session is complete on disk before the process exits.
async fn shut_down(server: &Arc<Server>) {
    if let Some(bash) = lock(&server.bash).as_ref() {
        bash.cancel();
    }
    server.driver.shut_down().await;
    server.drain_tasks().await;
    server.front.end().await;
    server.out.flush();
}
