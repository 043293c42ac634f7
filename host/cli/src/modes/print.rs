//! Running one prompt in print (`-p`) or JSON (`--mode json`) mode.

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use tack_core::agent::RunStatus;
use tack_core::event::{AgentEvent, CompactionReason, EventSink, NoticeLevel};
use tack_core::message::Message;
use tack_core::AgentError;
use tokio_util::sync::CancellationToken;

use crate::cli::{Cli, Mode};
use crate::commands::host;
use crate::modes::file_args::Prompts;
use crate::start::inbox::steer_follow_ups;
use crate::start::{AgentSession, Front, Loaded, Starting};

pub async fn run(cli: Cli) -> Result<ExitCode> {
    if interactive(&cli) {
        return crate::modes::tui::run(cli).await;
    }
    let Some(prompts) = read_prompts(&cli)? else {
        eprintln!(
            "tack: no prompt given. The interactive UI needs a terminal on stdin and stdout; run a \
             prompt with\n  tack -p \"list the files here and read README.md\"\nor pipe one in: \
             echo \"search for TODO\" | tack -p"
        );
        return Ok(ExitCode::from(2));
    };
    let (mode, verbose) = (cli.mode, cli.verbose);
    let starting = Starting::load(cli, Front::headless()).await?;
    let loaded = starting.loaded();
    for warning in &loaded.warnings {
        eprintln!("tack: warning: {}", shown(warning));
    }
    let report = if verbose {
        loaded.startup.verbose_lines()
    } else {
        loaded.startup.lines()
    };
    for line in report {
        eprintln!("tack: {}", shown(&line));
    }
    let opened = starting.open_session()?;
    if mode == Mode::Json {
        // Pi's JSON mode opens with the session's header, before any event.
        let header = tack_protocol::session_line(opened.session().lock().header());
        println!("{header}");
    }
    let sink: Arc<dyn EventSink> = match mode {
        // `--mode rpc` is served by rpc.rs and never reaches here.
        Mode::Json | Mode::Rpc => Arc::new(JsonLines::default()),
        Mode::Text => Arc::new(TextProgress),
    };
    let running = opened.start(sink, None).await?;
    if mode == Mode::Text {
        for notice in &running.provider_notices {
            eprintln!("tack: {}", shown(notice));
        }
    }
    let code = answer(&running, prompts).await;
    compact_if_requested(&running).await;
    running.end().await;
    code
}

/// A compaction a plugin asked for during the run or its command (`tack:plugin/control`) runs
/// before tack exits; JSON mode shows its events, and a failure is reported.
async fn compact_if_requested(running: &AgentSession) {
    let Some(request) = running.loaded.backends.agent.take_compaction() else {
        return;
    };
    let compacted = running
        .agent
        .compact(request.instructions.as_deref(), CancellationToken::new())
        .await;
    if let Err(e) = compacted {
        eprintln!(
            "tack: {}",
            shown(&format!(
                "the compaction plugin {} asked for failed: {e}",
                request.plugin
            ))
        );
    }
}

/// Runs the prompt (or the command it names) on the started session; the caller ends it.
async fn answer(running: &AgentSession, prompts: Prompts) -> Result<ExitCode> {
    let mode = running.cli.mode;
    // Host commands (/compact, /tree, /fork, ...) come before plugin commands of the same name.
    // A line with `@file` arguments is a message, never a command.
    let prompt = prompts.texts.join(" ");
    let host_command = async {
        if prompts.has_files() {
            return None;
        }
        host::run(
            &running.agent,
            &running.plugin_hooks(),
            &running.store,
            &running.loaded.cwd,
            &prompt,
            CancellationToken::new(),
        )
        .await
    };
    if let Some(result) = host_command.await {
        return Ok(match result {
            Ok(text) => {
                println!("{}", shown(&text));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("tack: {}", shown(&format!("{e:#}")));
                ExitCode::FAILURE
            }
        });
    }
    let mut prompts = prompts;
    let agent = &running.agent;
    // A command that sent the idle agent a message (Pi's `sendUserMessage`) gets it answered
    // here, as the interactive modes answer it: the run starts from the queued message.
    let mut from_queue = false;
    if !prompts.has_files() {
        match run_command(&running.loaded, &prompt).await? {
            CommandLine::Prompt(text) => prompts.texts = vec![text],
            CommandLine::Done(code) => {
                if code != ExitCode::SUCCESS || agent.queues().is_empty() {
                    return Ok(code);
                }
                from_queue = true;
            }
        }
    } else {
        prompts.texts = vec![prompt];
    }
    let content = if from_queue {
        None
    } else {
        let model = agent.config().model;
        let (mut messages, note) = prompts.messages(&model.input, &model.id);
        if let (Some(note), Mode::Text) = (note, mode) {
            eprintln!("tack: {}", shown(&note));
        }
        Some(messages.swap_remove(0))
    };

    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\ntack: aborting (Ctrl-C again to quit at once)");
            on_interrupt.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });

    let mut outcome = match content {
        Some(content) => agent.prompt(content, cancel.clone()).await,
        None => {
            steer_follow_ups(&agent.queues());
            agent.resume(cancel.clone()).await
        }
    };
    // As in the interactive front ends: a message a plugin queued as the run ended (a Stop hook
    // sending the agent back to work) starts another run, which continues the answer.
    loop {
        let earlier = match &outcome {
            Ok(done)
                if done.status == RunStatus::Completed
                    && !cancel.is_cancelled()
                    && !agent.queues().is_empty() =>
            {
                done.messages.clone()
            }
            _ => break,
        };
        steer_follow_ups(&agent.queues());
        outcome = agent.resume(cancel.clone()).await.map(|mut more| {
            more.messages.splice(0..0, earlier);
            more
        });
    }
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(AgentError::ContextOverflow(e)) => {
            eprintln!(
                "tack: the conversation no longer fits the model's context window, even compacted: {e}"
            );
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e).context("the agent failed"),
    };
    match outcome.status {
        RunStatus::Completed => {
            if mode == Mode::Text {
                let text = final_text(&outcome.messages);
                let mut out = std::io::stdout().lock();
                writeln!(out, "{}", shown(&text)).context("writing the answer")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        RunStatus::Handled => Ok(ExitCode::SUCCESS),
        RunStatus::Aborted => {
            eprintln!("tack: aborted");
            Ok(ExitCode::FAILURE)
        }
        RunStatus::Failed(message) => {
            eprintln!("tack: {}", shown(&message));
            Ok(ExitCode::FAILURE)
        }
    }
}

/// What the prompt turned out to be.
enum CommandLine {
    /// The text to run the agent on.
    Prompt(String),
    /// A command ran; the run ends with this code.
    Done(ExitCode),
}

/// `/name args` for a command some plugin registered: run it and print what it returns, unless
/// the plugin turns the line into a prompt (see [`crate::commands::prompt`]). Other text
/// (including unknown `/words`, which may be paths) goes to the agent.
async fn run_command(loaded: &Loaded, prompt: &str) -> Result<CommandLine> {
    let Some(rest) = prompt.trim_start().strip_prefix('/') else {
        return Ok(CommandLine::Prompt(prompt.to_string()));
    };
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let Some((plugin, _)) = loaded.set.command(name) else {
        return Ok(CommandLine::Prompt(prompt.to_string()));
    };
    match crate::commands::prompt::route(&plugin, name, args.trim()).await {
        crate::commands::prompt::Routed::Prompt(text) => return Ok(CommandLine::Prompt(text)),
        crate::commands::prompt::Routed::Handled => {
            return Ok(CommandLine::Done(ExitCode::SUCCESS))
        }
        crate::commands::prompt::Routed::Command => {}
    }
    Ok(CommandLine::Done(
        match plugin.run_command(name, args.trim()).await {
            Ok(Ok(output)) => {
                if let Some(text) = output {
                    println!("{}", shown(&text));
                }
                ExitCode::SUCCESS
            }
            Ok(Err(message)) => {
                eprintln!("tack: /{name}: {}", shown(&message));
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("tack: /{name}: {}", shown(&e.to_string()));
                ExitCode::FAILURE
            }
        },
    ))
}

/// Text mode without `-p` and a terminal on both ends: the interactive UI (with the command
/// line's prompts submitted, as Pi does).
fn interactive(cli: &Cli) -> bool {
    cli.mode == Mode::Text
        && !cli.print
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
}

/// The prompt from the arguments (print mode joins them into one message), `@file` arguments
/// read, and piped stdin appended.
fn read_prompts(cli: &Cli) -> Result<Option<Prompts>> {
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let mut prompts = Prompts::read(&cli.prompt, &cwd)?;
    let mut prompt = prompts.texts.join(" ");
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut piped = String::new();
        stdin
            .lock()
            .read_to_string(&mut piped)
            .context("reading the prompt from stdin")?;
        let piped = piped.trim();
        if !piped.is_empty() {
            if !prompt.is_empty() {
                prompt.push_str("\n\n");
            }
            prompt.push_str(piped);
        }
    }
    if prompt.trim().is_empty() && !prompts.has_files() {
        return Ok(None);
    }
    prompts.texts = vec![prompt];
    Ok(Some(prompts))
}

fn final_text(messages: &[Arc<Message>]) -> String {
    messages
        .iter()
        .rev()
        .find_map(|m| match m.as_ref() {
            Message::Assistant(a) => Some(a.text_content()),
            _ => None,
        })
        .unwrap_or_default()
}

/// `--mode json`: every event as one line on stdout, in Pi's shapes.
#[derive(Default)]
struct JsonLines {
    wire: tack_protocol::EventWire,
}

impl EventSink for JsonLines {
    fn emit(&self, event: &AgentEvent) {
        let mut out = std::io::stdout().lock();
        // A closed stdout (the reader went away) must not stop the agent mid-write of the session.
        for line in self.wire.lines(event) {
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
    }
}

/// Print mode: tool activity and notices on stderr, so stdout carries only the answer.
struct TextProgress;

impl EventSink for TextProgress {
    fn emit(&self, event: &AgentEvent) {
        let line = match event {
            AgentEvent::ToolExecutionStart {
                tool_name,
                args,
                rewritten_by,
                ..
            } if !rewritten_by.is_empty() => Some(format!(
                "→ {tool_name} {} (arguments changed by plugin {})",
                compact(args),
                rewritten_by.join(", ")
            )),
            AgentEvent::ToolExecutionStart {
                tool_name, args, ..
            } => Some(format!("→ {tool_name} {}", compact(args))),
            AgentEvent::ToolExecutionEnd {
                tool_name,
                result,
                is_error: true,
                ..
            } => {
                let first = result
                    .text_content()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                Some(format!("  ✗ {tool_name}: {first}"))
            }
            AgentEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => Some(format!(
                "tack: {error_message}; retrying in {:.1} s ({attempt}/{max_attempts})",
                *delay_ms as f64 / 1000.0
            )),
            AgentEvent::PluginUiRequest {
                plugin,
                request,
                response,
            } => Some(format!(
                "tack: plugin '{plugin}' asked {} with no UI to answer; resolved to {response}",
                serde_json::to_string(request).unwrap_or_default()
            )),
            AgentEvent::Notice { level, message } => Some(match level {
                NoticeLevel::Error => format!("tack: error: {message}"),
                NoticeLevel::Warn => format!("tack: warning: {message}"),
                NoticeLevel::Info | NoticeLevel::Debug => format!("tack: {message}"),
            }),
            AgentEvent::CompactionStart { reason, .. } => Some(format!(
                "tack: compacting the conversation ({})",
                match reason {
                    CompactionReason::Threshold => "it nears the context window",
                    CompactionReason::Overflow => "it overflowed the context window",
                    CompactionReason::Manual => "as asked",
                }
            )),
            AgentEvent::CompactionEnd {
                tokens_before: Some(tokens),
                aborted: false,
                ..
            } => Some(format!(
                "tack: compacted (the context was ~{tokens} tokens)"
            )),
            AgentEvent::CompactionEnd {
                error_message: Some(error),
                ..
            } => Some(format!("tack: no compaction: {error}")),
            AgentEvent::Error { message } => Some(format!("tack: error: {message}")),
            _ => None,
        };
        if let Some(line) = line {
            eprintln!("{}", shown(&line));
        }
    }
}

/// Print mode writes to a terminal: what plugins, tools and the model said is shown with its
/// control characters visible, never obeyed (see `tack_core::text`).
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    tack_core::text::neutralize_controls(text)
}

fn compact(args: &serde_json::Value) -> String {
    let text = args.to_string();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}
