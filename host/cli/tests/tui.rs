//! The interactive terminal UI end to end: the real binary in a real pseudo-terminal, driven by
//! keystrokes, with the scripted provider plugin, the real permission gate and core tools, and
//! real files in temp dirs. The screen is read back through a VT100 parser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.
#![cfg(unix)]

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_test_support::pty::{Tui, WAIT};
use tack_test_support::{tack, Env};

fn new_env() -> Env {
    let env = Env::new(tack!());
    env.write("README.md", "# Demo project\n");
    env.write("src/main.rs", "fn main() {}\n");
    env
}

/// What these tests add to the shared environment.
trait TuiEnv {
    fn scripted(&self, script: Value, plugins: Value) -> String;
    fn spawn(&self, args: &[&str]) -> Tui;
    fn write_home(&self, rel: &str, contents: &str);
}

impl TuiEnv for Env {
    /// The scripted provider as the default provider, `plugins` merged into the plugin
    /// configuration; returns the package folder for `--plugin`.
    fn scripted(&self, script: Value, plugins: Value) -> String {
        let dir = self.scripted_provider_with(json!({ "script": script }), plugins);
        dir.to_str().expect("utf8").to_string()
    }

    fn spawn(&self, args: &[&str]) -> Tui {
        Tui::spawn(self, args)
    }

    fn write_home(&self, rel: &str, contents: &str) {
        std::fs::write(self.home().join(rel), contents).expect("write into the home");
    }
}

fn texts_of(lines: &[Value], role: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "message" && l["message"]["role"] == role)
        .map(|l| {
            l["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

#[test]
fn a_session_streams_steers_asks_aborts_and_quits() {
    let env = new_env();
    std::fs::create_dir(env.workspace().join("build")).expect("build dir");
    // `auto` runs the harmless commands and asks before `rm -r`.
    let plugin = env.scripted(
        json!([
            {
                "thinking": "The user wants a plan.",
                "text": "# Plan\n\nI will **run** a command:\n\n- first\n- second\n\n```rust\nfn main() {}\n```",
                "tool_calls": [{ "id": "t1", "name": "bash",
                    "arguments": { "command": "echo step-one; sleep 3; echo step-two" } }]
            },
            { "tool_calls": [{ "id": "rm1", "name": "bash", "arguments": { "command": "rm -r build" } }] },
            { "tool_calls": [{ "id": "long", "name": "bash", "arguments": { "command": "sleep 30" } }] },
            { "text": "never shown" }
        ]),
        json!({ "permission-gate": { "mode": "auto" } }),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    // The footer: model and working directory.
    tui.wait_for("scripted/scripted-1 · ");

    // Streaming markdown and a tool card with live output.
    tui.submit("please do the thing");
    // The command's own text holds "step-one" too, so wait for it as live output under the card.
    let screen = tui.wait_for("│ step-one");
    assert!(screen.contains("› please do the thing"), "{screen}");
    assert!(screen.contains("∴ Thinking (1 line"), "{screen}");
    assert!(screen.contains("• first"), "{screen}");
    assert!(screen.contains("│ fn main() {}"), "{screen}");
    assert!(
        screen.contains("◐ bash  echo step-one; sleep 3; echo step-two"),
        "{screen}"
    );
    assert!(screen.contains("Working…"), "{screen}");

    // A steering message while the command runs: queued, visible, then sent.
    tui.submit("turn left");
    tui.wait_until("the queued steering message", |s| {
        s.contains("⤷ steer: turn left") || s.contains("› turn left")
    });

    // The permission gate asks; Enter allows once.
    let screen = tui.wait_for("Allow once");
    assert!(screen.contains("permission-gate"), "{screen}");
    assert!(
        screen.contains("› turn left"),
        "steering went in:\n{screen}"
    );
    assert!(
        screen.contains("step-two"),
        "the first command finished:\n{screen}"
    );
    // A dialog ignores answering keys for a moment after it appears (typeahead guard).
    std::thread::sleep(Duration::from_millis(400));
    tui.type_keys("\r");
    tui.wait_for("✓ bash  rm -r build");
    assert!(!env.workspace().join("build").exists(), "allowed");

    // Esc aborts the long command.
    tui.wait_for("◐ bash  sleep 30");
    tui.escape();
    let screen = tui.wait_for("✗ bash  sleep 30");
    tui.wait_until("the idle editor", |s| s.contains("Ask anything"));
    assert!(!screen.contains("never shown"), "{screen}");

    // Ctrl+C twice quits; the terminal is given back.
    tui.type_keys("\x03");
    tui.wait_for("Press Ctrl+C again to quit");
    tui.type_keys("\x03");
    let status = tui.wait_exit();
    assert!(status.success(), "{status:?}");
    std::thread::sleep(Duration::from_millis(200));
    {
        let parser = tui.parser.lock().expect("parser");
        let screen = parser.screen();
        assert!(!screen.alternate_screen(), "left the alternate screen");
        assert!(!screen.hide_cursor(), "the cursor is visible again");
        assert!(
            screen
                .contents()
                .contains("Continue this session with: tack -r"),
            "{}",
            screen.contents()
        );
    }

    let lines = env.session_lines();
    assert_eq!(
        texts_of(&lines, "user"),
        ["please do the thing", "turn left"],
        "the steering message reached the session"
    );
    let results: Vec<&Value> = lines
        .iter()
        .filter(|l| l["message"]["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert_eq!(results[2]["message"]["isError"], true, "aborted");
}

#[test]
fn slash_commands_complete_and_pickers_choose() {
    let env = new_env();
    let plugin = env.scripted(json!([{ "text": "first answer" }]), json!({}));
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("hello");
    tui.wait_for("first answer");

    // `/mo` completes to /model; Enter runs it and opens the model picker.
    tui.type_keys("/mo");
    tui.wait_for("/model  Pick the model");
    tui.type_keys("\r");
    tui.wait_for("╭ Model");
    tui.escape();
    tui.wait_until("the picker to close", |s| !s.contains("╭ Model"));

    // The tree picker lists the conversation.
    tui.submit("/tree");
    let screen = tui.wait_for("Session tree");
    assert!(screen.contains("user: hello"), "{screen}");
    tui.escape();

    // @ completes a workspace file.
    tui.type_keys("read @mai");
    tui.wait_for("@src/main.rs");
    tui.type_keys("\t");
    tui.wait_for("› read @src/main.rs");

    // Ctrl+D with text deletes; on an empty editor it quits.
    tui.type_keys("\x15");
    tui.wait_for("Ask anything");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `tack "a" "b"` opens the UI and sends the prompts one after the other (Pi's behaviour); then
/// the session commands: `/copy` (OSC 52), `/session`, `/export`, and `/clone`, which switches
/// to the clone.
#[test]
fn command_line_prompts_run_in_turn_and_session_commands_work() {
    let env = new_env();
    let plugin = env.scripted(
        json!([{ "text": "answer one" }, { "text": "answer two" }]),
        json!({}),
    );
    let mut tui = env.spawn(&["--plugin", &plugin, "first prompt", "second prompt"]);
    tui.wait_for("answer two");
    let files = env.session_files();
    assert_eq!(files.len(), 1);
    let lines: Vec<Value> = std::fs::read_to_string(&files[0])
        .expect("session")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(texts_of(&lines, "user"), ["first prompt", "second prompt"]);
    assert_eq!(texts_of(&lines, "assistant"), ["answer one", "answer two"]);

    tui.submit("/copy");
    tui.wait_for("Copied the last answer (10 characters)");
    let raw = String::from_utf8_lossy(&tui.raw.lock().expect("raw")).into_owned();
    assert!(
        raw.contains("\x1b]52;c;YW5zd2VyIHR3bw==\x07"),
        "OSC 52 with the answer"
    );
    assert_eq!(
        std::fs::read_to_string(env.home().join("last-copy.txt")).expect("copy file"),
        "answer two"
    );

    tui.submit("/session");
    tui.wait_for("2 user, 2 assistant, 0 tool calls");

    tui.submit("/export out.html");
    tui.wait_for("Exported the session to");
    let page = std::fs::read_to_string(env.workspace().join("out.html")).expect("page");
    assert!(page.contains("answer one") && page.contains("second prompt"));

    let original = files[0].clone();
    tui.submit("/clone");
    tui.wait_for("you are in the clone now");
    let files = env.session_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let clone = files
        .into_iter()
        .find(|f| *f != original)
        .expect("the clone");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&clone)
            .expect("clone")
            .lines()
            .next()
            .expect("header"),
    )
    .expect("json");
    let clone_id = header["id"].as_str().expect("id").to_string();
    tui.submit("/session");
    tui.wait_for(&clone_id);
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `!cmd` runs the user's command into a card and the session, `!!cmd` keeps it out of the
/// session, the policy plugins judge both (a project deny rule blocks), and Esc stops one.
#[test]
fn shell_escapes_stream_record_obey_policies_and_stop() {
    let env = new_env();
    env.write(
        ".tack/permissions.toml",
        "[[rules]]\ntool = \"bash\"\npattern = \"touch\"\naction = \"deny\"\n",
    );
    let plugin = env.scripted(
        json!([{ "text": "noted" }]),
        json!({ "permission-gate": { "mode": "auto" } }),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");

    tui.submit("!echo kept-$((40 + 2))");
    // The output can show while the card still runs, so wait for the finished card.
    let screen = tui.wait_for("✓ !  echo kept-$((40 + 2))");
    assert!(screen.contains("kept-42"), "{screen}");
    tui.submit("!!echo hidden-$((1 + 1))");
    let screen = tui.wait_for("✓ !!  echo hidden-$((1 + 1))");
    assert!(screen.contains("hidden-2"), "{screen}");

    tui.submit("!touch made-by-user");
    let screen = tui.wait_for("blocked");
    assert!(screen.contains("!touch made-by-user: blocked"), "{screen}");
    assert!(!env.workspace().join("made-by-user").exists());

    tui.submit("!sleep 30; echo never");
    tui.wait_for("◐ !  sleep 30; echo never");
    tui.escape();
    let screen = tui.wait_for("(stopped)");
    assert!(!screen.contains("never\n"), "{screen}");

    // The next prompt carries `!` commands to the model, not `!!` ones.
    tui.submit("what did I run?");
    tui.wait_for("noted");
    let text = env.sessions_text();
    assert!(text.contains("I ran `echo kept-$((40 + 2))`"), "{text}");
    assert!(text.contains("kept-42"), "{text}");
    assert!(!text.contains("hidden-2"), "{text}");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// Ctrl+P cycles the `--models` scope, Shift+Tab the thinking level, Ctrl+L opens the model
/// picker and Ctrl+G hands the editor's text to `$VISUAL`.
#[test]
fn model_and_thinking_keys_and_the_external_editor() {
    let env = new_env().with_var("VISUAL", "sed -i s/draft/rewritten/");
    let dir = env.scripted_provider_with(json!({ "script": [], "reasoning": true }), json!({}));
    let plugin = dir.to_str().expect("utf8").to_string();
    let mut tui = Tui::spawn(
        &env,
        &["--plugin", &plugin, "--models", "scripted-1:low,demo"],
    );
    tui.wait_for("scripted/scripted-1");

    tui.type_keys("\x10");
    tui.wait_for("Model: demo/demo-1");
    tui.type_keys("\x10");
    tui.wait_for("Model: scripted/scripted-1 · thinking low");

    tui.type_keys("\x1b[Z");
    tui.wait_for("Thinking: medium");
    let lines = env.session_lines();
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "thinking_level_change" && l["thinkingLevel"] == "medium"),
        "recorded in the session"
    );

    tui.type_keys("\x0c");
    tui.wait_for("╭ Model");
    tui.escape();
    tui.wait_until("the picker to close", |s| !s.contains("╭ Model"));

    tui.type_keys("a draft prompt");
    tui.wait_for("› a draft prompt");
    tui.type_keys("\x07");
    tui.wait_for("› a rewritten prompt");
    tui.type_keys("\x15\x04");
    assert!(tui.wait_exit().success());
}

/// keybindings.toml moves an action to another key; `/hotkeys` shows the map in use, and a bad
/// file is named in a warning while the default keys apply.
#[test]
fn a_remapped_key_and_hotkeys() {
    let env = new_env();
    env.write_home("keybindings.toml", "\"model.select\" = \"ctrl+k\"\n");
    let plugin = env.scripted(json!([]), json!({}));
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.type_keys("\x0c");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !tui.screen().contains("╭ Model"),
        "Ctrl+L no longer opens it"
    );
    tui.type_keys("\x0b");
    tui.wait_for("╭ Model");
    tui.escape();
    tui.wait_until("the picker to close", |s| !s.contains("╭ Model"));
    tui.submit("/hotkeys");
    tui.wait_for("Ctrl+K: Open the model picker");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());

    env.write_home("keybindings.toml", "\"model.select\" = \"hyper+k\"\n");
    let mut tui = env.spawn(&["--plugin", &plugin]);
    // The warning names the file's fault; it may wrap, so spaces and line ends are ignored.
    tui.wait_until("the keybindings warning", |s| {
        s.replace([' ', '\n'], "")
            .contains("unknownmodifier'hyper';thedefaultkeysapply")
    });
    tui.type_keys("\x0c");
    tui.wait_for("╭ Model");
    tui.escape();
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `/settings` steps a setting, applies it at once and writes it to config.toml (keeping the
/// rest of the file); the next start reads it.
#[test]
fn settings_change_apply_and_persist() {
    let env = new_env();
    let dir = env.scripted_provider_with(json!({ "script": [], "reasoning": true }), json!({}));
    let plugin = dir.to_str().expect("utf8").to_string();
    let config = env.home().join("config.toml");
    let before = std::fs::read_to_string(&config).expect("config");
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("/settings");
    tui.wait_for("Default thinking level: off");
    // Enter steps the highlighted setting: off → minimal, applied to the thinking model now.
    tui.type_keys("\r");
    tui.wait_for("Default thinking level: minimal");
    // Down twice to the follow-up delivery, then step it.
    tui.type_keys("\x1b[B");
    tui.type_keys("\x1b[B");
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    let deadline = Instant::now() + WAIT;
    while !std::fs::read_to_string(&config)
        .expect("config")
        .contains("follow_up_mode")
    {
        assert!(Instant::now() < deadline, "follow_up_mode never saved");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The picker opens again on the changed setting.
    std::thread::sleep(Duration::from_millis(300));
    tui.escape();
    tui.wait_until("the picker to close", |s| !s.contains("╭ Settings"));
    tui.wait_for("Default thinking level: minimal (now minimal)");
    let saved = std::fs::read_to_string(&config).expect("config");
    for line in before.lines() {
        assert!(saved.contains(line), "{line:?} is kept:\n{saved}");
    }
    assert!(saved.contains("default_thinking = \"minimal\""), "{saved}");
    assert!(saved.contains("follow_up_mode = "), "{saved}");

    // The theme steps through dark, light and the files in <tack home>/themes.
    tui.submit("/settings");
    tui.wait_for("Theme: dark");
    for _ in 0..4 {
        tui.type_keys("\x1b[B");
    }
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    tui.wait_for("Theme: light");
    tui.escape();
    let saved = std::fs::read_to_string(&config).expect("config");
    assert!(saved.contains("theme = \"light\""), "{saved}");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());

    // The next session starts at the saved default level.
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("/settings");
    tui.wait_for("Default thinking level: minimal");
    tui.escape();
    tui.type_keys("\x1b[Z");
    tui.wait_for("Thinking: low");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A pasted (or dragged) image path becomes an `[image 1]` chip, and the image goes with the
/// message to a model that takes images.
#[test]
fn a_pasted_image_path_is_attached() {
    let env = new_env();
    let shot = env.write("my shot.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let dir = env.scripted_provider_with(
        json!({ "script": [{ "text": "a tiny picture" }], "images": true }),
        json!({}),
    );
    let plugin = dir.to_str().expect("utf8").to_string();
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    let dragged = format!("file://{}", shot.display()).replace(' ', "%20");
    tui.type_keys(&format!("\x1b[200~{dragged}\x1b[201~"));
    tui.wait_for("› [image 1]");
    tui.submit(" what is this?");
    tui.wait_for("a tiny picture");
    let user = env
        .session_lines()
        .into_iter()
        .find(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .expect("the prompt");
    let content = &user["message"]["content"];
    assert_eq!(content[0]["text"], "[image 1] what is this?");
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// Idle CPU of the UI: with nothing happening the loop sleeps (no polling tick).
#[test]
fn an_idle_ui_uses_almost_no_cpu() {
    let env = new_env();
    let plugin = env.scripted(json!([]), json!({}));
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    std::thread::sleep(Duration::from_millis(500));
    let before = tui.cpu_ticks();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(5));
    let after = tui.cpu_ticks();
    let seconds = started.elapsed().as_secs_f64();
    // SAFETY: sysconf only reads a constant of the system.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let percent = |ticks: u64| ticks as f64 / hz / seconds * 100.0;
    let all = percent(after.0 - before.0);
    let ui = percent(after.1 - before.1);
    eprintln!(
        "idle CPU over {seconds:.1} s: {all:.2}% in all, {ui:.2}% without the plugin runtime's \
         epoch thread"
    );
    assert!(all < 2.0, "idle CPU {all:.2}%");
    assert!(ui < 0.5, "idle CPU of the UI {ui:.2}%");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// SIGTERM (and SIGHUP, SIGINT) end the UI like /quit: the terminal is given back and the
/// process exits on its own.
#[test]
fn a_signal_restores_the_terminal() {
    let env = new_env();
    let plugin = env.scripted(json!([]), json!({}));
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    assert!(tui
        .parser
        .lock()
        .expect("parser")
        .screen()
        .alternate_screen());
    let pid = i32::try_from(tui.child.id()).expect("pid");
    // SAFETY: kill only sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert!(tui.wait_exit().success());
    std::thread::sleep(Duration::from_millis(200));
    let parser = tui.parser.lock().expect("parser");
    assert!(!parser.screen().alternate_screen());
    assert!(!parser.screen().hide_cursor());
}

/// A resized terminal is laid out again at its new size.
#[test]
fn a_resize_lays_the_screen_out_again() {
    let env = new_env();
    let plugin = env.scripted(
        json!([{ "text": "a fairly long answer that will wrap on a narrow screen" }]),
        json!({}),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("hello");
    tui.wait_for("a fairly long answer that will wrap on a narrow screen");

    let (rows, cols) = (16u16, 40u16);
    tui.parser
        .lock()
        .expect("parser")
        .screen_mut()
        .set_size(rows, cols);
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads a winsize from the pointer; the kernel then sends SIGWINCH to
    // the terminal's foreground process (tack).
    let rc = unsafe { libc::ioctl(tui.master.as_raw_fd(), libc::TIOCSWINSZ as _, &size) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    let rule = "─".repeat(40);
    tui.wait_until("the answer wrapped at 40 columns", |s| {
        let lines: Vec<&str> = s.lines().collect();
        lines.contains(&"a fairly long answer that will wrap on a")
            && lines.contains(&"narrow screen")
            && lines.contains(&rule.as_str())
    });
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `/resume` lists this folder's sessions, Tab shows every folder's; Ctrl+R renames one (the
/// name is written into its file), Ctrl+D twice deletes one, and the open session cannot be
/// deleted.
#[test]
fn resume_lists_every_folder_and_renames_and_deletes() {
    let env = new_env();
    let plugin = env.scripted(json!([{ "text": "ok" }]), json!({}));
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("another folder");
    for (cwd, prompt) in [
        (&elsewhere, "hello from another folder"),
        (&env.workspace().to_path_buf(), "first here"),
        (&env.workspace().to_path_buf(), "second here"),
    ] {
        let out = env.run_in(cwd, &["--plugin", &plugin, "-p", prompt]);
        assert!(out.status.success(), "{}", tack_test_support::stderr(&out));
    }
    let other_file = env
        .session_files()
        .into_iter()
        .find(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("another folder")))
        .expect("the other folder's session");

    let mut tui = env.spawn(&["--plugin", &plugin, "-c"]);
    tui.wait_for("second here");
    tui.submit("/resume");
    let screen = tui.wait_for("· this folder");
    assert!(screen.contains("first here"), "{screen}");
    assert!(!screen.contains("hello from another folder"), "{screen}");
    tui.type_keys("\t");
    tui.wait_for("hello from another folder");

    // Rename the other folder's session (the filter matches its folder, shown beside it).
    tui.type_keys("elsewhere");
    tui.wait_until("the filter", |s| !s.contains("first here"));
    tui.type_keys("\x12");
    tui.wait_for("new name:");
    tui.type_keys("Renamed one");
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    // The picker comes back with the new name as the session's label.
    tui.wait_until("the renamed label", |s| {
        s.contains("  Renamed one") && !s.contains("new name:")
    });
    let text = std::fs::read_to_string(&other_file).expect("renamed session");
    assert!(
        text.contains("\"session_info\"") && text.contains("Renamed one"),
        "{text}"
    );

    // Delete it: the first Ctrl+D asks, the second deletes.
    tui.type_keys("\x04");
    tui.wait_for("press Ctrl+D again");
    tui.type_keys("\x04");
    tui.wait_for("Deleted /");
    assert!(!other_file.exists(), "the file is gone");

    // The open session stays.
    for _ in 0.."elsewhere".len() {
        tui.type_keys("\x7f");
    }
    tui.type_keys("second");
    std::thread::sleep(Duration::from_millis(200));
    tui.type_keys("\x04");
    tui.wait_for("press Ctrl+D again");
    tui.type_keys("\x04");
    tui.wait_for("this is the open session");
    assert_eq!(env.session_files().len(), 2);
    tui.escape();
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `/tree` shows the user's messages alone on Tab, and moving off a branch asks whether to
/// summarize it; "with a focus" puts the command in the editor for the focus to be typed.
#[test]
fn tree_views_and_the_branch_summary_question() {
    let env = new_env();
    let plugin = env.scripted(
        json!([{ "text": "answer one" }, { "text": "answer two" }]),
        json!({}),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("first question");
    tui.wait_for("answer one");
    tui.submit("second question");
    tui.wait_for("answer two");

    tui.submit("/tree");
    let screen = tui.wait_for("Session tree");
    assert!(screen.contains("· all"), "{screen}");
    assert!(screen.contains("assistant: answer one"), "{screen}");
    tui.type_keys("\t");
    let screen = tui.wait_for("· your messages");
    assert!(screen.contains("user: first question"), "{screen}");
    assert!(!screen.contains("assistant: answer one"), "{screen}");

    // Up to the first question and Enter: the second exchange would be left behind.
    tui.type_keys("\x1b[A");
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    tui.wait_for("Leaving a branch: summarize it?");
    tui.type_keys("\x1b[B\x1b[B");
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    let screen = tui.wait_for("--summarize");
    assert!(screen.contains("› /tree "), "{screen}");
    // Clear the editor, then move without a summary.
    tui.type_keys("\x15");
    tui.wait_for("Ask anything");
    tui.submit("/tree");
    tui.wait_for("Session tree");
    tui.type_keys("\t");
    tui.wait_for("· your messages");
    tui.type_keys("\x1b[A");
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    tui.wait_for("Leaving a branch: summarize it?");
    tui.type_keys("\r");
    tui.wait_for("Moved to");
    // Choosing one of your own messages (here the second question) moves to the point before it
    // and puts its text in the editor, to be edited and sent again (as Pi does).
    let screen = tui.wait_for("› second question");
    assert!(!screen.contains("answer two"), "{screen}");
    tui.type_keys(" again\r");
    tui.wait_for("answer two");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
    let lines = env.session_lines();
    let users: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .collect();
    let second = users
        .iter()
        .find(|l| l["message"]["content"][0]["text"] == "second question")
        .expect("the second question");
    let resent = users.last().expect("the message sent again");
    assert_eq!(
        resent["message"]["content"][0]["text"], "second question again",
        "{resent}"
    );
    // Sent again from where the second question was asked: the second question is not among
    // its ancestors, its parent is.
    let by_id = |id: &Value| lines.iter().find(|l| l["id"] == *id);
    let mut ancestors = Vec::new();
    let mut at = resent["parentId"].clone();
    while let Some(entry) = by_id(&at) {
        ancestors.push(entry["id"].clone());
        at = entry["parentId"].clone();
    }
    assert!(!ancestors.contains(&second["id"]), "{ancestors:?}");
    assert!(ancestors.contains(&second["parentId"]), "{ancestors:?}");
}

/// A 1×1 PNG, whole (the thumbnail decodes it).
const TINY_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x56, 0xc7, 0x2f, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Ctrl+V runs the clipboard program (here `paste_image_command`), saves its image in the tack
/// home and attaches it; the transcript shows it as a thumbnail with its size, or as a line
/// once `/settings` turns images off.
#[test]
fn ctrl_v_attaches_the_clipboard_image() {
    let env = new_env();
    let clip = env.write("clipboard.png", TINY_PNG);
    env.scripted_provider_with(
        json!({ "script": [{ "text": "a tiny picture" }], "images": true }),
        json!({}),
    );
    let mut config = std::fs::read_to_string(env.home().join("config.toml")).expect("config");
    config = format!(
        "paste_image_command = [\"cat\", {:?}]\n{config}",
        clip.display().to_string()
    );
    std::fs::write(env.home().join("config.toml"), config).expect("config");
    let plugin = env.package_dir("scripted");
    let plugin = plugin.to_str().expect("utf8");
    let mut tui = env.spawn(&["--plugin", plugin]);
    tui.wait_for("Ask anything");
    tui.type_keys("\x16");
    tui.wait_for("› [image 1]");
    tui.submit(" what is this?");
    let screen = tui.wait_for("a tiny picture");
    assert!(screen.contains("▣ image/png 1×1"), "{screen}");
    assert!(screen.contains('▀'), "the thumbnail is drawn:\n{screen}");
    let pasted: Vec<_> = std::fs::read_dir(env.home().join("pasted-images"))
        .expect("pasted images")
        .flatten()
        .collect();
    assert_eq!(pasted.len(), 1);
    let user = env
        .session_lines()
        .into_iter()
        .find(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .expect("the prompt");
    assert_eq!(user["message"]["content"][1]["mimeType"], "image/png");

    // Images off: the line stays, the picture goes.
    tui.submit("/settings");
    tui.wait_for("Show images: on");
    for _ in 0..5 {
        tui.type_keys("\x1b[B");
    }
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    tui.wait_for("Show images: off");
    tui.escape();
    let screen = tui.wait_until("the thumbnail to go", |s| !s.contains('▀'));
    assert!(screen.contains("▣ image/png 1×1"), "{screen}");
    let saved = std::fs::read_to_string(env.home().join("config.toml")).expect("config");
    assert!(saved.contains("show_images = false"), "{saved}");

    // A clipboard without an image is reported, and nothing is attached.
    std::fs::write(&clip, "just text").expect("clipboard");
    tui.type_keys("\x16");
    tui.wait_for("the clipboard holds no image");
    // The editor is still empty.
    tui.wait_for("Ask anything");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `tack plugin dev`: builds the plugin with its build.sh and runs tack with it; a new
/// component (rebuilt elsewhere) starts tack again on the same session, and `/reload` rebuilds
/// first.
#[test]
fn plugin_dev_starts_again_on_a_new_component_and_on_reload() {
    let env = new_env();
    let scripted = env.scripted(json!([{ "text": "answer one" }]), json!({}));
    let dir = env.package("devplug", tack_builtin::artifacts::HELLO_RUST, "");
    // The "build" copies the component named in next.txt, and counts itself.
    std::fs::write(dir.join("next.txt"), tack_builtin::artifacts::HELLO_RUST).expect("next");
    std::fs::write(
        dir.join("build.sh"),
        "cp \"$(cat next.txt)\" plugin.wasm\necho built >> builds.log\n",
    )
    .expect("build.sh");
    let builds = || {
        std::fs::read_to_string(dir.join("builds.log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let dir_arg = dir.to_str().expect("utf8");
    let mut tui = env.spawn(&["plugin", "dev", dir_arg, "--", "--plugin", &scripted]);
    tui.wait_for("Ask anything");
    assert_eq!(builds(), 1);
    tui.type_keys("/hell");
    tui.wait_for("/hello  Greet someone");
    tui.type_keys("\x15");
    tui.submit("first question");
    tui.wait_for("answer one");

    // Rebuilt elsewhere: another component (without /hello) appears in the package.
    std::fs::copy(tack_builtin::artifacts::TEST_HOOKS, dir.join("plugin.wasm"))
        .expect("new component");
    tui.wait_raw("changed; starting again");
    tui.wait_for("first question");
    tui.wait_for("Ask anything");
    tui.type_keys("/hel");
    let screen = tui.wait_for("/help  List the commands");
    assert!(!screen.contains("Greet someone"), "{screen}");
    tui.type_keys("\x15");
    assert_eq!(builds(), 1, "a new component is not rebuilt");

    // /reload runs build.sh, which brings /hello back, on the same session.
    std::fs::write(dir.join("next.txt"), tack_builtin::artifacts::HELLO_RUST).expect("next");
    tui.submit("/reload");
    tui.wait_raw("rebuilding");
    tui.wait_for("first question");
    tui.wait_for("Ask anything");
    assert_eq!(builds(), 2);
    tui.type_keys("/hell");
    tui.wait_for("/hello  Greet someone");
    tui.type_keys("\x15");
    assert_eq!(env.session_files().len(), 1, "one session all along");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A plugin may ask for a reload (`control.reload`, Pi's `ctx.reload`): once the run that asked
/// is over, tack starts again on the same session with what was added since start, as `/reload`.
#[test]
fn a_plugins_reload_starts_tack_again_once_the_run_is_over() {
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "r", "name": "end_tack", "arguments": { "reload": true } }] },
            { "text": "answered before the reload" },
            { "text": "answer two" }
        ]),
        json!({}),
    );
    let hostile = env.package("hostile", tack_builtin::artifacts::TEST_HOSTILE, "");
    let hostile = hostile.display().to_string();
    let mut tui = env.spawn(&["--plugin", &plugin, "--plugin", &hostile]);
    tui.wait_for("Ask anything");
    std::fs::create_dir_all(env.home().join("prompts")).expect("prompts");
    env.write_home("prompts/greet.md", "Say hello to $1.\n");
    tui.submit("reload yourself");
    tui.wait_for("answered before the reload");
    tui.wait_until("the session again after the reload", |screen| {
        screen.contains("reload yourself") && screen.contains("Ask anything")
    });
    tui.type_keys("/gree");
    tui.wait_for("/greet");
    tui.type_keys("\x15");
    tui.submit("/greet world");
    tui.wait_for("answer two");
    assert_eq!(env.session_files().len(), 1, "one session all along");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `/reload` outside `tack plugin dev`: what was added since start (here a prompt template in
/// the tack home, whose folder did not exist then) is there afterwards, on the same session.
#[test]
fn reload_reads_plugins_again_on_the_same_session() {
    let env = new_env();
    let plugin = env.scripted(
        json!([{ "text": "answer one" }, { "text": "answer two" }]),
        json!({}),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("first question");
    tui.wait_for("answer one");

    std::fs::create_dir_all(env.home().join("prompts")).expect("prompts");
    env.write_home("prompts/greet.md", "Say hello to $1.\n");
    tui.submit("/reload");
    tui.wait_until("the session again after the reload", |screen| {
        screen.contains("first question") && screen.contains("Ask anything")
    });
    tui.type_keys("/gree");
    tui.wait_for("/greet");
    tui.type_keys("\x15");
    tui.submit("/greet world");
    tui.wait_for("answer two");

    let files = env.session_files();
    assert_eq!(files.len(), 1, "one session all along: {files:?}");
    let lines: Vec<Value> = std::fs::read_to_string(&files[0])
        .expect("session")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(
        texts_of(&lines, "user"),
        ["first question", "Say hello to world."]
    );
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `/rewind` lists the prompts with the files changed since, asks what to restore, and puts
/// back a file `edit` changed, one `bash` deleted, and removes one the turn created; the
/// conversation goes back to before the prompt, whose text is in the editor again.
#[test]
fn rewind_restores_the_files_and_the_conversation() {
    let env = new_env();
    env.write("notes.txt", "keep me\n");
    env.write("doomed.txt", "precious\n");
    let plugin = env.scripted(
        json!([
            { "tool_calls": [
                { "id": "e", "name": "edit", "arguments": {
                    "path": "notes.txt", "oldText": "keep me", "newText": "changed" } },
                { "id": "b", "name": "bash", "arguments": {
                    "command": "rm doomed.txt && echo made > made.txt" } }
            ] },
            { "text": "files changed" }
        ]),
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("change the files");
    tui.wait_for("files changed");
    let ws = env.workspace();
    assert!(ws.join("made.txt").exists() && !ws.join("doomed.txt").exists());

    tui.submit("/rewind");
    let screen = tui.wait_for("Rewind: go back to before a prompt");
    assert!(screen.contains("change the files"), "{screen}");
    assert!(
        screen.contains("doomed.txt, notes.txt written back; made.txt deleted"),
        "{screen}"
    );
    tui.type_keys("\r");
    let screen = tui.wait_for("restore what?");
    assert!(screen.contains("Conversation only"), "{screen}");
    tui.type_keys("\r");
    tui.wait_for("Restored the files");
    let screen = tui.wait_for("› change the files");
    assert!(!screen.contains("files changed"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "keep me\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("doomed.txt")).unwrap(),
        "precious\n"
    );
    assert!(!ws.join("made.txt").exists());
    // Sent again from before the first prompt: the script starts over (its turn is the number
    // of answers in the request), and its edit applies again to the restored text.
    tui.type_keys("\r");
    tui.wait_for("files changed");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "changed\n"
    );
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn a_run_that_ends_while_the_user_looks_away_notifies_them() {
    let env = new_env();
    let plugin = env.scripted(
        json!([{ "text": "All done here.\u{1b}]52;c;aGk=\u{7}" }]),
        json!({}),
    );
    let config = std::fs::read_to_string(env.home().join("config.toml")).expect("config");
    env.write_home("config.toml", &format!("notify = \"osc777\"\n{config}"));
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    // The UI asks for focus reports, and the terminal says the user looked away.
    tui.wait_raw("\u{1b}[?1004h");
    tui.type_keys("\u{1b}[O");
    tui.submit("finish up");
    // The model's escape sequence arrives as plain text inside the notification.
    tui.wait_raw("\u{1b}]777;notify;tack;All done here.]52,c,aGk=\u{7}");
    let raw = String::from_utf8_lossy(&tui.raw.lock().expect("raw")).into_owned();
    assert!(
        !raw.contains("\u{1b}]52;c;aGk="),
        "no clipboard write got through"
    );
}

/// Pi's `snake.ts`, ported (`examples/pi/snake`, Rust): with the components grant, `/snake` plays
/// in place of the editor and takes the arrows; Esc pauses and keeps the game in the session, and
/// the next `/snake` resumes it paused until a key (or, if the snake crashed first on a slow
/// machine, starts a new game keeping the high score); Q quits.
#[test]
fn pi_snake_in_rust_plays_in_place_of_the_editor_and_keeps_a_paused_game() {
    let env = new_env();
    let dir = env.example_package("pi/snake", tack_builtin::artifacts::PI_SNAKE);
    env.grant("pi-snake", "components = true");
    let snake = dir.display().to_string();
    let mut tui = env.spawn(&["--plugin", &snake]);
    tui.wait_for("Ask anything");
    tui.submit("/snake");
    let screen = tui.wait_for("SNAKE │ Score: 0 │ High: 0");
    assert!(screen.contains("pi-snake · Ctrl+C closes"), "{screen}");
    assert!(
        screen.contains("▓▓▓▓██"),
        "the snake, heading right: {screen}"
    );
    assert!(
        !screen.contains("Ask anything"),
        "the game takes the editor's place"
    );
    tui.type_keys("\x1b[A");
    std::thread::sleep(Duration::from_millis(150));
    tui.escape();
    tui.wait_for("Snake paused: /snake resumes it");
    let saves: Vec<Value> = env
        .session_lines()
        .into_iter()
        .filter(|l| l["customType"] == "snake-save")
        .collect();
    let saved = &saves.last().expect("the game was saved")["data"];
    assert_eq!(saved["nextDirection"], "up", "{saved}");
    tui.submit("/snake");
    if saved["gameOver"] == false {
        tui.wait_for("PAUSED Press any key to continue, Q to quit");
    } else {
        tui.wait_for("↑↓←→ or WASD to move");
    }
    tui.type_keys("q");
    tui.wait_for("Ask anything");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// Pi's `question.ts` in Python (`examples/pi-python/question`), with the components grant: the
/// options are a component it draws in place of the editor (the SDK's `Component`), ↓ and Enter
/// pick one, and the model hears which. (In RPC mode, or without the grant, the host's select
/// dialog asks instead: `rpc.rs::pi_question_in_python_asks_the_client_and_returns_the_answer`.)
/// Skipped without the Python SDK toolchain, unless `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_question_in_python_draws_its_options_as_a_component() {
    let name = "pi-question-python";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-python/question");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_python_package(&toolchains, &dir, name),
    ) else {
        return;
    };
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "q", "name": "question", "arguments": {
                "question": "Which database?",
                "options": [
                    { "label": "SQLite", "description": "one file, no server" },
                    { "label": "PostgreSQL" }
                ] } }] },
            { "text": "noted" }
        ]),
        json!({}),
    );
    let question = env
        .package(name, &wasm, "components = true")
        .display()
        .to_string();
    env.grant(name, "components = true");
    let mut tui = env.spawn(&["--plugin", &plugin, "--plugin", &question]);
    tui.wait_for("Ask anything");
    tui.submit("pick a database");
    let screen = tui.wait_for("> 1. SQLite");
    assert!(
        screen.contains("pi-question-python · Ctrl+C closes"),
        "{screen}"
    );
    assert!(screen.contains("one file, no server"), "{screen}");
    assert!(screen.contains("  3. Type something."), "{screen}");
    tui.type_keys("\x1b[B");
    tui.wait_for("> 2. PostgreSQL");
    tui.type_keys("\r");
    tui.wait_for("noted");
    let lines = env.session_lines();
    let result = lines
        .iter()
        .find(|l| l["message"]["role"] == "toolResult")
        .expect("the tool's result");
    assert_eq!(
        result["message"]["content"][0]["text"], "User selected: 2. PostgreSQL",
        "{result}"
    );
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// Pi's `qna.ts` in JavaScript (`examples/pi-js/qna`, the JS SDK's `models` and `Component`):
/// `/qna` asks the session's model itself for the questions in the last answer (the key stays
/// with tack), shows them in a component, and Enter puts them in the editor; the model call is
/// recorded as the plugin's. Skipped without the JS SDK toolchain, unless `TACK_REQUIRE_SDKS`.
#[test]
fn pi_qna_in_javascript_asks_the_model_itself_and_fills_the_editor() {
    let name = "pi-qna-js";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-js/qna");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_js_package(&toolchains, &dir, name),
    ) else {
        return;
    };
    let env = new_env();
    let scripted = env.scripted_provider_with(
        json!({
            "script": [{ "text": "Which parser? Which tests?" }],
            "branches": { "Which parser?": [{ "text": "Q: Which parser?\nA: " }] }
        }),
        json!({}),
    );
    let scripted = scripted.display().to_string();
    let qna = env
        .package(name, &wasm, "agents = true\ncomponents = true")
        .display()
        .to_string();
    env.grant(name, "agents = true\ncomponents = true");
    let mut tui = env.spawn(&["--plugin", &scripted, "--plugin", &qna]);
    tui.wait_for("Ask anything");
    tui.submit("hello");
    tui.wait_for("Which tests?");
    tui.submit("/qna");
    let screen = tui.wait_for("Questions found:");
    assert!(screen.contains("pi-qna-js · Ctrl+C closes"), "{screen}");
    assert!(screen.contains("Q: Which parser?"), "{screen}");
    tui.type_keys("\r");
    tui.wait_for("Questions loaded. Edit and submit when ready.");
    tui.wait_for("› Q: Which parser?");
    let call = env
        .session_lines()
        .into_iter()
        .find(|l| l["customType"] == "subagent-run")
        .expect("the model call is recorded");
    assert_eq!(call["data"]["description"], "model call", "{call}");
    assert_eq!(call["data"]["text"], "Q: Which parser?\nA:", "{call}");
    // Ctrl+C clears the editor, Ctrl+D on an empty one quits.
    tui.type_keys("\x03");
    std::thread::sleep(Duration::from_millis(200));
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// Pi's `custom-footer.ts`, ported (`examples/pi/custom-footer`): `/footer` swaps tack's footer
/// for the plugin's, padded to the width, updated after each turn; `/footer` again gives tack's
/// back.
#[test]
fn pi_custom_footer_replaces_the_footer_and_gives_it_back() {
    let env = new_env();
    let plugin = env.scripted(json!([{ "text": "answered" }]), json!({}));
    let dir = env.example_package(
        "pi/custom-footer",
        tack_builtin::artifacts::PI_CUSTOM_FOOTER,
    );
    let footer = dir.display().to_string();
    let mut tui = env.spawn(&["--plugin", &plugin, "--plugin", &footer]);
    tui.wait_for("Ask anything");
    tui.submit("/footer");
    tui.wait_for("Custom footer enabled");
    let screen = tui.wait_for("↑0 ↓0 $0.000");
    let line = screen
        .lines()
        .find(|l| l.contains("↑0 ↓0 $0.000"))
        .expect("the footer line")
        .to_string();
    assert!(
        line.trim_end().ends_with("scripted-1"),
        "right-aligned: {line:?}"
    );
    tui.submit("a question");
    tui.wait_for("answered");
    tui.wait_until("the footer counts the turn", |screen| {
        screen
            .lines()
            .any(|l| l.contains("↑") && !l.contains("↑0 ↓0") && l.contains("$0.000"))
    });
    tui.submit("/footer");
    tui.wait_for("Default footer restored");
    tui.wait_until("tack's footer is back", |screen| screen.contains("ctx "));
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// `/login groq` asks for the key in a dialog that shows it as bullets, keeps it in auth.json,
/// and `/logout groq` removes it.
/// A Claude Code Notification hook (in the user's `~/.claude/settings.json`) hears that the
/// permission gate waits for the user about a Bash call, as Claude Code tells it; it gets no text
/// of the dialog.
#[test]
fn a_notification_hook_hears_that_permission_is_asked() {
    let env = new_env();
    let user = env.root().join("user");
    std::fs::create_dir_all(user.join(".claude")).expect("~/.claude");
    std::fs::write(
        user.join(".claude/settings.json"),
        json!({"hooks": {"Notification": [{"matcher": "permission_prompt", "hooks": [{
            "type": "command",
            "command": "cat > \"$CLAUDE_PROJECT_DIR/notified.json\""}]}]}})
        .to_string(),
    )
    .expect("settings");
    let env = env.with_var("HOME", &user);
    std::fs::create_dir(env.workspace().join("build")).expect("build dir");
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "rm1", "name": "bash",
                "arguments": { "command": "rm -r build" } }] },
            { "text": "left it" }
        ]),
        json!({ "permission-gate": { "mode": "auto" } }),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("clean up");
    tui.wait_for("Allow once");
    let notified = env.workspace().join("notified.json");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let input: Value = loop {
        if let Some(input) = std::fs::read_to_string(&notified)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
        {
            break input;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the Notification hook did not run:\n{}",
            tui.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(input["hook_event_name"], "Notification");
    assert_eq!(input["notification_type"], "permission_prompt");
    assert_eq!(input["message"], "tack needs your permission to use Bash");
    assert!(!input.to_string().contains("rm -r"), "{input}");
    std::thread::sleep(Duration::from_millis(800));
    tui.escape();
    tui.wait_for("left it");
    assert!(env.workspace().join("build").exists());
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn login_to_chatgpt_shows_where_to_sign_in_and_esc_cancels_it() {
    let env = new_env()
        .with_var("TACK_CHATGPT_ISSUER", "http://127.0.0.1:9")
        .with_var("TACK_LOGIN_CALLBACK_PORT", "0");
    let mut tui = env.spawn(&[]);
    tui.wait_for("Ask anything");
    tui.submit("/login openai-codex");
    tui.wait_for("Sign in to ChatGPT in your browser:");
    tui.wait_for("http://127.0.0.1:9/oauth/authorize?response_type=code");
    tui.wait_for("Waiting for the browser to sign in to ChatGPT");
    std::thread::sleep(Duration::from_millis(800));
    tui.type_keys("\x1b");
    tui.wait_for("the sign-in was cancelled");
    assert!(!env.home().join("auth.json").exists());
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn login_keeps_a_key_typed_unseen_and_logout_removes_it() {
    let env = new_env();
    let mut tui = env.spawn(&[]);
    tui.wait_for("Ask anything");
    tui.submit("/login groq");
    tui.wait_for("API key for Groq (GROQ_API_KEY)");
    // A new dialog ignores typing for a moment (keys meant for the editor must not answer it).
    std::thread::sleep(Duration::from_millis(800));
    tui.type_keys("gsk-typed-secret");
    let screen = tui.wait_for("••••••••••••••••");
    assert!(!screen.contains("gsk-typed"), "{screen}");
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    tui.wait_for("Saved GROQ_API_KEY");
    let auth = env.home().join("auth.json");
    let saved = std::fs::read_to_string(&auth).expect("auth.json");
    assert!(saved.contains("gsk-typed-secret"), "{saved}");
    assert!(!tui.screen().contains("gsk-typed"), "{}", tui.screen());
    tui.submit("/logout groq");
    tui.wait_for("Removed GROQ_API_KEY");
    let saved = std::fs::read_to_string(&auth).expect("auth.json");
    assert!(!saved.contains("gsk-typed-secret"), "{saved}");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// The hostile plugin's component, granted: it shows framed under the plugin's name with its
/// escapes made visible (no wiped screen, no clipboard write), gets the keys typed while it is
/// up, and Ctrl+C closes it for good: its attempts to come back in the same call are answered
/// "closed", and what the user types next goes to the editor. Without the grant it never shows.
#[test]
fn a_plugins_component_is_framed_and_ctrl_c_takes_the_keyboard_back() {
    for granted in [true, false] {
        let env = new_env();
        let plugin = env.scripted(
            json!([
                { "text": "holding", "tool_calls": [
                    { "id": "hold", "name": "hold_keys", "arguments": {} }
                ] },
                { "text": "released" }
            ]),
            json!({}),
        );
        let hostile = env.package(
            "hostile",
            tack_builtin::artifacts::TEST_HOSTILE,
            "components = true",
        );
        if granted {
            env.grant("hostile", "components = true");
        }
        let hostile = hostile.display().to_string();
        let mut tui = env.spawn(&["--plugin", &plugin, "--plugin", &hostile]);
        tui.wait_for("Ask anything");
        tui.submit("go");
        if !granted {
            tui.wait_for("released");
            assert!(!tui.screen().contains("Ctrl+C closes"), "{}", tui.screen());
            tui.type_keys("\x04");
            assert!(tui.wait_exit().success());
            continue;
        }
        let screen = tui.wait_for("hostile · Ctrl+C closes");
        assert!(screen.contains("␛[2J␛]52;c;ZXZpbA==␇Password:"), "{screen}");
        tui.type_keys("pw");
        tui.wait_for("typed so far: p,w");
        tui.type_keys("\x03");
        tui.wait_for("released");
        let screen = tui.screen();
        assert!(!screen.contains("Ctrl+C closes"), "{screen}");
        let raw = String::from_utf8_lossy(&tui.raw.lock().expect("raw")).to_string();
        assert!(
            !raw.contains("\x1b]52;c;ZXZpbA"),
            "no clipboard write reached the terminal"
        );
        tui.type_keys("after");
        tui.wait_for("after");
        let lines = env.session_lines();
        let result = lines
            .iter()
            .find(|l| l["message"]["role"] == "toolResult")
            .expect("the tool's result");
        assert_eq!(
            result["message"]["content"][0]["text"], "keys=p,w closed=3",
            "{result}"
        );
        // Ctrl+C clears the editor, Ctrl+D on an empty one quits.
        tui.type_keys("\x03");
        std::thread::sleep(Duration::from_millis(200));
        tui.type_keys("\x04");
        assert!(tui.wait_exit().success());
    }
}

/// The footer counts background commands and drops one that ends while the UI sits idle, with
/// no key pressed; `/jobs` picks one and shows its latest output, offering to stop it.
#[test]
fn background_commands_leave_the_footer_on_their_own_and_jobs_shows_them() {
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "bg", "name": "bash", "arguments": {
                "command": "echo built-output; while [ ! -e stop-flag ]; do sleep 0.1; done",
                "run_in_background": true } }] },
            { "text": "started it" }
        ]),
        json!({}),
    );
    let mut tui = env.spawn(&["--plugin", &plugin]);
    tui.wait_for("Ask anything");
    tui.submit("start it");
    tui.wait_for("started it");
    tui.wait_for("1 background command");

    tui.submit("/jobs");
    let screen = tui.wait_for("core-tools: Background commands");
    assert!(screen.contains("1  running "), "{screen}");
    assert!(screen.contains("s · echo built-output; while"), "{screen}");
    // A dialog ignores answering keys for a moment after it appears (typeahead guard).
    std::thread::sleep(Duration::from_millis(400));
    tui.type_keys("\r");
    let screen = tui.wait_for("Stop background command 1?");
    assert!(screen.contains("built-output"), "{screen}");
    // Declined: the command goes on, and its output is shown in the transcript.
    std::thread::sleep(Duration::from_millis(400));
    tui.escape();
    tui.wait_for("Latest output");

    std::fs::write(env.workspace().join("stop-flag"), "").expect("flag");
    tui.wait_until("the footer to drop the count", |s| {
        !s.contains("1 background command")
    });
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A Pi package's themes (its `themes/`, in Pi's JSON format) are the terminal UI's to choose:
/// `/settings` steps from the built-ins to the package's, which is saved and applies at the next
/// start without a word of complaint.
#[test]
fn a_pi_packages_theme_is_chosen_in_settings() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = new_env();
    let package =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/package");
    let out = env.run(&["install", package.to_str().expect("utf8")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = env.home().join("config.toml");

    let mut tui = env.spawn(&[]);
    tui.wait_for("Ask anything");
    tui.submit("/settings");
    tui.wait_for("Theme: dark");
    for _ in 0..4 {
        tui.type_keys("\x1b[B");
    }
    std::thread::sleep(Duration::from_millis(100));
    tui.type_keys("\r");
    tui.wait_for("Theme: light");
    // The picker opens again on the changed setting.
    std::thread::sleep(Duration::from_millis(300));
    tui.type_keys("\r");
    tui.wait_for("Theme: pi-paper");
    tui.escape();
    let saved = std::fs::read_to_string(&config).expect("config");
    assert!(saved.contains("theme = \"pi-paper\""), "{saved}");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());

    let mut tui = env.spawn(&[]);
    tui.wait_for("Ask anything");
    let screen = tui.screen();
    assert!(!screen.contains("the dark theme applies"), "{screen}");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A Pi extension's header, working indicator and hidden-thinking label
/// (`host/cli/tests/pi-extensions/screen.ts`, through `tack:plugin/screen` 0.2.0) show in the
/// terminal UI, stripped of the colours in them; with the components grant its tool reads the
/// draft the user types while it runs; `/screen-bits` flips tool expansion, switches to the
/// light theme (and is told why `nope` cannot be), and hides the working row for the next run.
#[test]
fn a_pi_extension_draws_a_header_and_working_row_and_reads_the_users_draft() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "thinking": "I should look at the draft", "tool_calls": [
                { "id": "p1", "name": "peek_editor", "arguments": {} }
            ] },
            { "text": "read it" },
            { "tool_calls": [{ "id": "p2", "name": "peek_editor", "arguments": {} }] },
            { "text": "done" }
        ]),
        json!({}),
    );
    env.grant("pi-screen", "components = true");
    let extension =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/screen.ts");
    let mut tui = env.spawn(&["--plugin", &plugin, "-e", extension.to_str().expect("utf8")]);
    let screen = tui.wait_for("== screen.ts header ==");
    assert!(
        screen
            .lines()
            .next()
            .is_some_and(|l| l.contains("== screen.ts header ==")),
        "the header is the top line:\n{screen}"
    );
    tui.submit("go");
    let screen = tui.wait_until("the plugin's indicator", |s| {
        s.contains("<o> Working…") || s.contains("<O> Working…")
    });
    assert!(!screen.contains("[35m"), "colours stripped:\n{screen}");
    tui.type_keys("my draft");
    tui.wait_for("read it");
    let screen = tui.screen();
    assert!(
        screen.contains("∴ Pondering... (1 line, Ctrl+T to show)"),
        "{screen}"
    );
    let lines = env.session_lines();
    let result = lines
        .iter()
        .find(|l| l["message"]["role"] == "toolResult")
        .expect("the tool's result");
    assert_eq!(
        result["message"]["content"][0]["text"], "draft: my draft",
        "{result}"
    );
    // Ctrl+C clears the draft.
    tui.type_keys("\x03");
    std::thread::sleep(Duration::from_millis(200));
    tui.submit("/screen-bits");
    tui.wait_for("expanded false -> true");
    tui.wait_for("themes dark,light; light true true");
    tui.wait_for("nope: there is no theme called 'nope'");
    tui.submit("again");
    // The tool waits for a draft: the run is on, with no working row.
    tui.wait_for("again");
    std::thread::sleep(Duration::from_millis(1500));
    let screen = tui.screen();
    assert!(!screen.contains("Working…"), "{screen}");
    assert!(!screen.contains("Esc to abort"), "{screen}");
    tui.type_keys("second");
    tui.wait_for("done");
    tui.type_keys("\x03");
    std::thread::sleep(Duration::from_millis(200));
    // A message drawn by its renderer, once the command that sent it no longer holds the
    // extension's instance.
    tui.submit("/slow-note");
    tui.wait_for("drawn: slow note");
    // An editor that draws nothing is not left in tack's place.
    tui.submit("/empty-editor");
    tui.wait_for("it drew no editor");
    tui.wait_for("Ask anything");
    // An editor of its own, read back, and tack's given back.
    tui.submit("/own-editor");
    tui.wait_for("own editor kept: true; given back: true");
    let screen = tui.wait_for("Ask anything");
    assert!(!screen.contains("─ pi-screen's editor"), "{screen}");
    assert_eq!(
        screen.matches("it drew no editor").count(),
        1,
        "an editor already given back is not said to fail:\n{screen}"
    );
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A plugin with no grants reads no draft, makes tack read no file as a theme, and puts no
/// escape sequence on screen through the working indicator, the thinking label or the header;
/// a header or an indicator over its budget fails the call, naming it.
#[test]
fn a_hostile_plugins_screen_settings_are_neutralised_budgeted_and_read_nothing() {
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "thinking": "plotting", "tool_calls": [
                { "id": "s1", "name": "screen_snoop", "arguments": {} }
            ] },
            { "tool_calls": [{ "id": "s2", "name": "screen_snoop", "arguments": { "flood": true } }] },
            { "text": "finished" }
        ]),
        json!({}),
    );
    let hostile = env.package("hostile", tack_builtin::artifacts::TEST_HOSTILE, "");
    let hostile = hostile.display().to_string();
    let mut tui = env.spawn(&["--plugin", &plugin, "--plugin", &hostile]);
    tui.wait_for("Ask anything");
    tui.submit("go");
    let screen = tui.wait_for("finished");
    assert!(screen.contains("hostile header"), "{screen}");
    assert!(screen.contains("snooped label"), "{screen}");
    let raw = String::from_utf8_lossy(&tui.raw.lock().expect("raw")).to_string();
    assert!(
        !raw.contains("\x1b]52;c;ZXZpbA"),
        "no clipboard write reached the terminal"
    );
    let lines = env.session_lines();
    let results: Vec<String> = lines
        .iter()
        .filter(|l| l["message"]["role"] == "toolResult")
        .map(|l| {
            l["message"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].contains("draft: None"), "{}", results[0]);
    assert!(
        results[0].contains(
            "draft completion: Err(\"completing the user's draft needs the `components` grant"
        ),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains(
            "own editor: Err(\"an editor of the plugin's own needs the `components` grant"
        ),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains("by path: Err(\"there is no theme called '../../../../etc/passwd'\")"),
        "{}",
        results[0]
    );
    assert!(results[0].contains("missing: Err("), "{}", results[0]);
    assert!(results[1].contains("header"), "{}", results[1]);
    assert!(!results[1].contains("ok:"), "{}", results[1]);
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A plugin's completions (`tack:plugin/completions`, 0.2.0) reach the terminal neutralised and
/// capped: the hostile plugin offers 500 items for the argument of its `/ping`, the first a
/// clipboard-writing escape sequence with a 64 KiB description. The popup holds 64 (Up from the
/// first is the 64th), shows the sequence as pictures, and nothing of it reaches the terminal;
/// Tab takes an item as the argument. (Completing the draft needs the `components` grant: see
/// the `screen_snoop` test above.)
#[test]
fn a_hostile_plugins_completions_are_neutralised_and_capped() {
    let env = new_env();
    let plugin = env.scripted(json!([{ "text": "done" }]), json!({}));
    let hostile = env.package("hostile", tack_builtin::artifacts::TEST_HOSTILE, "");
    let hostile = hostile.display().to_string();
    let mut tui = env.spawn(&["--plugin", &plugin, "--plugin", &hostile]);
    tui.wait_for("Ask anything");
    tui.type_keys("/ping ");
    let screen = tui.wait_for("\u{241b}[2Jevil label");
    assert!(screen.contains("item-7"), "{screen}");
    // Up from the first item wraps to the last the popup holds.
    tui.type_keys("\x1b[A");
    let screen = tui.wait_for("item-63");
    assert!(!screen.contains("item-64"), "{screen}");
    let raw = String::from_utf8_lossy(&tui.raw.lock().expect("raw")).to_string();
    assert!(
        !raw.contains("\x1b]52;c;ZXZpbA"),
        "no clipboard write reached the terminal"
    );
    tui.type_keys("\t");
    tui.wait_for("/ping item-63");
    tui.type_keys("\r");
    tui.wait_for("pong");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A Pi extension's keys (`pi.registerShortcut`, `tack:plugin/shortcuts` 0.2.0): a free key runs
/// its handler with `ctx`, and `/hotkeys` lists it under the plugin's name; a handler's failure
/// is shown; a key tack holds stays tack's (Ctrl+T still shows thinking) and the user is told
/// which plugin wanted it; a key people type is never bound.
#[test]
fn a_pi_extensions_shortcuts_run_and_never_take_tacks_keys() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = new_env();
    let plugin = env.scripted(
        json!([{ "thinking": "a thought", "text": "answered" }]),
        json!({}),
    );
    let extension =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/shortcuts.ts");
    let mut tui = env.spawn(&["--plugin", &plugin, "-e", extension.to_str().expect("utf8")]);
    tui.wait_for("Ask anything");
    tui.wait_for("pi-shortcuts's shortcut ctrl+t is not bound");
    tui.wait_for("Ctrl+T is tack's (Show or hide thinking)");
    tui.submit("hello");
    tui.wait_for("∴ Thinking (1 line, Ctrl+T to show)");
    // Ctrl+Alt+P as a terminal sends it: Escape, then Ctrl+P.
    tui.type_keys("\x1b\x10");
    let session = env
        .session_lines()
        .first()
        .and_then(|header| header["id"].as_str().map(str::to_string))
        .expect("the session's id");
    tui.wait_for(&format!("shortcut in session {}", &session[..8]));
    tui.type_keys("\x14");
    tui.wait_for("∴ Thinking");
    tui.wait_for("a thought");
    assert!(!tui.screen().contains("took ctrl+t"), "{}", tui.screen());
    tui.type_keys("\x1b[15~");
    tui.wait_for("shortcut f5: the handler broke");
    tui.submit("/hotkeys");
    let screen = tui.wait_for("Plugins' shortcuts");
    assert!(
        screen.contains("Ctrl+Alt+P: Say which session this is (pi-shortcuts)"),
        "{screen}"
    );
    assert!(!screen.contains("Wants tack's key"), "{screen}");
    assert!(!screen.contains("A key people type"), "{screen}");
    tui.type_keys("x");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tui.screen().contains("took x"), "{}", tui.screen());
    tui.type_keys("\x03");
    std::thread::sleep(Duration::from_millis(200));
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}

/// A plugin's renderers (`tack:plugin/renderers`, 0.2.0) draw only its own tool's card, inside
/// tack's frame: the icon and the tool's name stay before its heading, which loses its control
/// sequences (no clipboard write reaches the terminal) and is cut to 24 lines; its result is cut
/// to 200 lines, and is asked again when the user expands tool output.
#[test]
fn a_hostile_plugins_renderers_draw_inside_tacks_frame_and_are_capped() {
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "r1", "name": "read_env", "arguments": {} }] },
            { "text": "all done" }
        ]),
        json!({}),
    );
    let hostile = env.package("hostile", tack_builtin::artifacts::TEST_HOSTILE, "");
    let hostile = hostile.display().to_string();
    let mut tui = env.spawn(&[
        "--permissions",
        "yolo",
        "--plugin",
        &plugin,
        "--plugin",
        &hostile,
    ]);
    tui.wait_for("Ask anything");
    tui.submit("look around");
    let screen = tui.wait_for("␛[2Jshort body");
    assert!(screen.contains("call-23"), "{screen}");
    assert!(!screen.contains("call-24"), "{screen}");
    assert!(screen.contains("all done"), "{screen}");
    let raw = String::from_utf8_lossy(&tui.raw.lock().expect("raw")).to_string();
    assert!(
        !raw.contains("\x1b]52;c;ZXZpbA"),
        "no clipboard write reached the terminal"
    );

    // Expanded, the plugin draws 500 lines, of which 200 are shown.
    tui.type_keys("\x0f");
    let screen = tui.wait_for("drawn-199");
    assert!(!screen.contains("drawn-200"), "{screen}");
    // Scrolled back, the heading starts with tack's icon and the tool's own name.
    tui.type_keys("\x1b[5~\x1b[5~\x1b[5~\x1b[5~\x1b[5~\x1b[5~\x1b[5~\x1b[5~\x1b[5~");
    let screen = tui.wait_for("read_env  ␛]52;c;ZXZpbA==␇✓ bash");
    assert!(screen.contains("✓ read_env"), "{screen}");
    tui.type_keys("\x04");
    assert!(tui.wait_exit().success());
}
