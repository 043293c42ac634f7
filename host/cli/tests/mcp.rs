//! MCP servers through the real binary: the reference servers from npm and a server written
//! with the official Python SDK from PyPI over streamable HTTP (installed by
//! `scripts/install-mcp-servers` into `tests/mcp-peers`), and tiny servers that crash, hang and
//! change their tools; stdio servers are started by the built-in `mcp` plugin under the command
//! sandbox, HTTP ones reached through its `http` grant.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tack_test_support::json_mode::{
    call_turn as call, json_events as events, tool_blocks, tool_result,
};
use tack_test_support::{stderr, stdout, tack, Env};

/// The npm package `name`'s entry point, installed by `scripts/install-mcp-servers`; `None`
/// (the test is skipped) when it is missing, unless `TACK_REQUIRE_MCP=1`.
fn npm_server(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp-peers/node_modules/@modelcontextprotocol")
        .join(name)
        .join("dist/index.js");
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("TACK_REQUIRE_MCP").as_deref() != Ok("1"),
        "{} is missing (run scripts/install-mcp-servers), and TACK_REQUIRE_MCP=1",
        path.display()
    );
    eprintln!("skipped: {} is missing", path.display());
    None
}

/// Runs one prompt in JSON mode with the scripted provider playing `script`, the mcp plugin's
/// settings `mcp`, and `extra` arguments.
fn run(env: &Env, script: Value, mcp: Value, extra: &[&str]) -> std::process::Output {
    run_prompt(env, script, mcp, extra, "go")
}

/// [`run`] with the prompt given (a `/command` line, say).
fn run_prompt(
    env: &Env,
    script: Value,
    mut mcp: Value,
    extra: &[&str],
    prompt: &str,
) -> std::process::Output {
    // Node takes a while to start on a machine busy with other tests; the first turn waits as
    // long as the host's deadline for an event lets it.
    if mcp.get("startup_wait_ms").is_none() {
        mcp["startup_wait_ms"] = json!(4500);
    }
    let scripted = env.scripted_provider_with(json!({ "script": script }), json!({ "mcp": mcp }));
    let mut args = vec![
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--mode",
        "json",
    ];
    if !extra.contains(&"--permissions") {
        args.extend(["--permissions", "yolo"]);
    }
    args.extend_from_slice(extra);
    args.push(prompt);
    env.run(&args)
}

/// `tests/mcp-peers`, where the test servers and their installs live.
fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp-peers")
}

/// The Python with the official MCP SDK, installed by `scripts/install-mcp-servers`; `None` (the
/// test is skipped) when it is missing, unless `TACK_REQUIRE_MCP=1`.
fn python_sdk() -> Option<PathBuf> {
    let python = peers().join("python/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var("TACK_REQUIRE_MCP").as_deref() != Ok("1"),
        "{} is missing (run scripts/install-mcp-servers), and TACK_REQUIRE_MCP=1",
        python.display()
    );
    eprintln!("skipped: {} is missing", python.display());
    None
}

/// The Python SDK's server (`tests/mcp-peers/streamable_http_server.py`) listening on
/// 127.0.0.1, stopped when dropped; `None` (the test is skipped) when the SDK is missing, unless
/// `TACK_REQUIRE_MCP=1`.
struct PythonServer {
    child: std::process::Child,
    url: String,
    log: PathBuf,
}

impl PythonServer {
    fn start(dir: &Path, token: &str) -> Option<PythonServer> {
        Self::serve(dir, "streamable_http_server.py", &[], Some(token), "mcp")
    }

    /// The same server on MCP's older HTTP+SSE transport (its event stream at `/sse`).
    fn start_sse(dir: &Path, token: &str) -> Option<PythonServer> {
        Self::serve(
            dir,
            "streamable_http_server.py",
            &["sse"],
            Some(token),
            "sse",
        )
    }

    /// `tests/mcp-peers/oauth_server.py`: a server that asks for an OAuth login.
    fn start_oauth(dir: &Path) -> Option<PythonServer> {
        Self::serve(dir, "oauth_server.py", &[], None, "mcp")
    }

    /// Runs `script PORT LOG args…` of `tests/mcp-peers` on a free port, the server reached at
    /// `/path` there, and waits until it listens.
    fn serve(
        dir: &Path,
        script: &str,
        args: &[&str],
        token: Option<&str>,
        path: &str,
    ) -> Option<PythonServer> {
        let python = python_sdk()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = dir.join("server.log");
        let mut command = std::process::Command::new(python);
        command
            .arg(peers().join(script))
            .arg(port.to_string())
            .arg(&log)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.join("server.err")).expect("stderr file"));
        if let Some(token) = token {
            command.env("MCP_TEST_TOKEN", token);
        }
        let server = PythonServer {
            child: command.spawn().expect("python starts"),
            url: format!("http://127.0.0.1:{port}/{path}"),
            log,
        };
        server.wait_listening(port);
        Some(server)
    }

    fn wait_listening(&self, port: u16) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the Python MCP server did not listen within a minute"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_user_servers(env: &Env, servers: Value) {
    std::fs::write(
        env.home().join("mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .expect("mcp.json");
}

#[test]
fn the_reference_servers_tools_answer_through_tack() {
    let (Some(everything), Some(filesystem)) = (
        npm_server("server-everything"),
        npm_server("server-filesystem"),
    ) else {
        return;
    };
    let env = Env::new(tack!());
    env.write("notes/hello.txt", "hello from the workspace\n");
    let workspace = env.workspace().display().to_string();
    write_user_servers(
        &env,
        json!({
            "everything": {
                "command": "node",
                "args": [everything, "stdio"],
                "env": { "TACK_MCP_PROBE": "${PROBE_SOURCE:-probe-default}" }
            },
            "fs": { "command": "node", "args": [filesystem, workspace] }
        }),
    );
    let out = run(
        &env,
        json!([
            // Node may take longer than one turn's wait to start on a machine busy with other
            // tests; a first turn without the servers' tools gives them a second wait.
            call("warm", "ls", json!({})),
            call("echo", "everything_echo", json!({ "message": "hi there" })),
            call("sum", "everything_get-sum", json!({ "a": 2, "b": 40 })),
            call("env", "everything_get-env", json!({})),
            call("image", "everything_get-tiny-image", json!({})),
            call("read", "fs_read_text_file", json!({ "path": format!("{workspace}/notes/hello.txt") })),
            call("write", "fs_write_file", json!({
                "path": format!("{workspace}/notes/new.txt"), "content": "written by MCP"
            })),
            call("long", "everything_trigger-long-running-operation", json!({ "duration": 1, "steps": 2 })),
            call("outside", "fs_read_text_file", json!({ "path": "/etc/hostname" })),
            call("bad", "everything_get-sum", json!({ "a": "two" })),
            { "text": "all done" }
        ]),
        json!({}),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = events(&out);
    let (failed, text) = tool_result(&events, "echo");
    assert!(!failed && text.contains("hi there"), "{text}");
    let (failed, text) = tool_result(&events, "sum");
    assert!(!failed && text.contains("42"), "{text}");
    // The variable the entry sets reaches the server, expanded from its default.
    let (_, text) = tool_result(&events, "env");
    assert!(text.contains("probe-default"), "{text}");
    let (failed, _) = tool_result(&events, "image");
    let blocks = tool_blocks(&events, "image");
    assert!(!failed);
    assert!(
        blocks.iter().any(|b| b["type"] == "image"),
        "an image block: {blocks:?}"
    );
    let (failed, text) = tool_result(&events, "read");
    assert!(
        !failed && text.contains("hello from the workspace"),
        "{text}"
    );
    let (failed, text) = tool_result(&events, "write");
    assert!(!failed, "{text}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes/new.txt")).expect("written"),
        "written by MCP"
    );
    // The server's progress notifications are the call's live progress.
    let (failed, text) = tool_result(&events, "long");
    assert!(!failed && text.contains("completed"), "{text}");
    let updates: Vec<String> = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_update" && e["toolCallId"] == "long")
        .map(Value::to_string)
        .collect();
    assert!(
        updates.iter().any(|u| u.contains("everything: 1/2")),
        "{updates:?}"
    );
    // The server keeps to the folder it was given, and says so.
    let (failed, text) = tool_result(&events, "outside");
    assert!(failed, "{text}");
    // tack checks the arguments against the server's schema before the server sees them.
    let (failed, text) = tool_result(&events, "bad");
    assert!(failed, "{text}");
    assert!(stdout(&out).contains("all done"));
}

#[test]
fn a_python_sdk_server_over_streamable_http_answers_with_the_token_tack_keeps() {
    let env = Env::new(tack!());
    let token = "tok-7f3e9a";
    let Some(server) = PythonServer::start(env.root(), token) else {
        return;
    };
    write_user_servers(
        &env,
        json!({
            "py": {
                "type": "http",
                "url": server.url,
                "headers": { "Authorization": "Bearer ${PY_MCP_TOKEN}", "X-Region": "eu" }
            }
        }),
    );
    let env = env.with_var("PY_MCP_TOKEN", token);
    let out = run(
        &env,
        json!([
            call("add", "py_add", json!({ "a": 2, "b": 40 })),
            // `[plugins.mcp] tool_names` gave this tool a name of the user's.
            call("region", "where", json!({})),
            // The server starts afresh and forgets tack's session; the next call gets a new one.
            call("restart", "py_restart", json!({})),
            call("wait", "bash", json!({ "command": "sleep 4" })),
            call("again", "py_add", json!({ "a": 1, "b": 1 })),
            { "text": "all done" }
        ]),
        json!({ "tool_names": { "py_region": "where" } }),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = events(&out);
    let (failed, text) = tool_result(&events, "add");
    assert!(!failed && text.contains("42"), "{text}");
    let (failed, text) = tool_result(&events, "region");
    assert!(!failed && text.contains("region: eu"), "{text}");
    let (failed, text) = tool_result(&events, "again");
    assert!(!failed && text.contains('2'), "{text}");
    assert!(stdout(&out).contains("all done"));

    // Every request carried the token the host attached; the second session began with a new
    // `initialize` after the server answered 404 to the old one.
    let log = server.log();
    assert!(!log.contains("token=missing"), "{log}");
    let sessions: std::collections::BTreeSet<&str> = log
        .lines()
        .filter_map(|l| l.split("session=").nth(1))
        .filter(|s| *s != "-")
        .collect();
    assert!(sessions.len() >= 2, "two sessions: {log}");
    // The token reaches the server and nothing else: not the events, not the session.
    assert!(!stdout(&out).contains(token) && !stderr(&out).contains(token));
    for file in walk(&env.home().join("sessions")) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(!text.contains(token), "{}", file.display());
    }

    // `tack mcp` shows the header by name only.
    let list = env.run(&["mcp", "list"]);
    let listed = stdout(&list);
    assert!(
        listed.contains(&format!(
            "py (user): reached at {} with X-Region, Authorization",
            server.url
        )),
        "{listed}"
    );
    assert!(!listed.contains(token));
}

#[test]
fn an_mcp_servers_prompts_are_commands_and_its_resources_attach_to_a_prompt() {
    let env = Env::new(tack!());
    let token = "tok-prompts";
    let Some(server) = PythonServer::start(env.root(), token) else {
        return;
    };
    write_user_servers(
        &env,
        json!({ "py": { "url": server.url, "headers": { "Authorization": "Bearer ${PY_MCP_TOKEN}" } } }),
    );
    let env = env.with_var("PY_MCP_TOKEN", token);
    let answer = json!([{ "text": "Reviewed." }]);

    // `/py:review <path> <focus…>`: the server fills the prompt in, and the model answers it.
    let out = run_prompt(
        &env,
        answer.clone(),
        json!({}),
        &[],
        "/py:review src/lib.rs security holes",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Reviewed."), "{}", stdout(&out));
    let sessions = env.sessions_text();
    assert!(
        sessions.contains("Please review src/lib.rs, looking for security holes."),
        "{sessions}"
    );
    // By name, and with the optional argument left to the server's default.
    let out = run_prompt(
        &env,
        answer.clone(),
        json!({}),
        &[],
        "/py:review path=README.md",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env
        .sessions_text()
        .contains("Please review README.md, looking for bugs."));
    // A required argument left out is named, and nothing reaches the model.
    let out = run_prompt(&env, answer.clone(), json!({}), &[], "/py:review");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("needs path"), "{}", stderr(&out));

    let out = run_prompt(&env, answer.clone(), json!({}), &[], "/mcp resources py");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("notes://today (today), text/plain"),
        "{}",
        stdout(&out)
    );
    let out = run_prompt(&env, answer, json!({}), &[], "/mcp read py notes://today");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Attached notes://today of MCP server 'py'"),
        "{}",
        stdout(&out)
    );
    // Print mode has no next prompt, so the resource is what this run sends the model.
    let sessions = env.sessions_text();
    assert!(
        sessions.contains("Ship the MCP client before Friday.")
            && sessions.contains("mcp-resource"),
        "{sessions}"
    );
}

/// The reference server's prompts over stdio, driven as an RPC client would: `/mcp restart`
/// waits for the server, its prompts are then commands (`get_commands` lists them), one runs and
/// the model answers it; a resource it lists is attached to the next prompt.
#[test]
fn the_reference_servers_prompts_and_resources_over_stdio() {
    use tack_protocol::{client::RpcClient, Command};
    let Some(everything) = npm_server("server-everything") else {
        return;
    };
    let env = Env::new(tack!());
    write_user_servers(
        &env,
        json!({ "everything": { "command": "node", "args": [everything, "stdio"] } }),
    );
    let scripted = env.scripted_provider_with(
        json!({ "script": [{ "text": "Sunny." }, { "text": "Read it." }] }),
        json!({}),
    );
    let mut process = env.command();
    process
        .args(["--plugin", scripted.to_str().expect("utf8")])
        .args(["--mode", "rpc", "--permissions", "yolo"])
        .stderr(std::process::Stdio::null());
    let wait = std::time::Duration::from_secs(90);
    let mut client = RpcClient::spawn(process).expect("tack --mode rpc");
    client.set_timeout(wait);
    let run = |client: &mut RpcClient, name: &str, args: &str| -> String {
        let data = client
            .call(Command::RunCommand {
                name: name.into(),
                args: args.into(),
            })
            .unwrap_or_else(|e| panic!("/{name} {args}: {e}"));
        data["output"].as_str().unwrap_or_default().to_string()
    };
    let status = run(&mut client, "mcp", "restart everything");
    assert!(status.contains("everything (user): ready"), "{status}");
    let commands = client.call(Command::GetCommands).expect("get_commands");
    let names: Vec<&str> = commands["commands"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"everything:args-prompt") && names.contains(&"everything:simple-prompt"),
        "{names:?}"
    );
    run(&mut client, "everything:args-prompt", "Fresno CA");
    client
        .wait_for("agent_end", wait)
        .expect("the prompt's run ends");

    let listed = run(&mut client, "mcp", "resources everything");
    let uri = listed
        .split_whitespace()
        .find(|w| w.starts_with("demo://resource/static/document/"))
        .unwrap_or_else(|| panic!("a document resource in {listed}"))
        .to_string();
    let attached = run(&mut client, "mcp", &format!("read everything {uri}"));
    assert!(
        attached.starts_with(&format!("Attached {uri}")),
        "{attached}"
    );
    client
        .call(Command::Prompt {
            message: "what does it say?".into(),
            images: Vec::new(),
            streaming_behavior: None,
        })
        .expect("prompt");
    client
        .wait_for("agent_end", wait)
        .expect("the second run ends");
    client.close_stdin();
    let _ = client.finish(wait);

    let sessions = env.sessions_text();
    assert!(
        sessions.contains("What's weather in Fresno, CA?"),
        "{sessions}"
    );
    assert!(sessions.contains("Sunny.") && sessions.contains("mcp-resource"));
    assert!(
        sessions.contains(&format!("uri=\\\"{uri}\\\"")),
        "{sessions}"
    );
}

/// A tool list the server changes unprompted reaches tack over the session's GET stream (read
/// as it arrives, `tack:plugin/http-stream`): the tool it added is called the turn after.
#[test]
fn a_streamable_http_servers_unprompted_messages_arrive_over_its_event_stream() {
    let env = Env::new(tack!());
    let token = "tok-grow";
    let Some(server) = PythonServer::start(env.root(), token) else {
        return;
    };
    write_user_servers(
        &env,
        json!({ "py": { "url": server.url, "headers": { "Authorization": format!("Bearer {token}") } } }),
    );
    let out = run(
        &env,
        json!([
            call("grow", "py_grow", json!({})),
            // The server adds its tool half a second after answering.
            call("wait", "bash", json!({ "command": "sleep 2" })),
            call("extra", "py_extra", json!({})),
            { "text": "grown" }
        ]),
        json!({}),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = events(&out);
    let (failed, text) = tool_result(&events, "grow");
    assert!(!failed && text.contains("growing"), "{text}");
    let (failed, text) = tool_result(&events, "extra");
    assert!(!failed && text.contains("extra did its thing"), "{text}");
    assert!(
        server
            .log()
            .lines()
            .any(|l| l.starts_with("GET /mcp token=ok")),
        "tack listened on the session's GET stream: {}",
        server.log()
    );
}

/// A server on the older HTTP+SSE transport (`"type": "sse"`): its event stream is read as it
/// arrives, messages go to the endpoint it names, with the token tack keeps.
#[test]
fn a_python_sdk_server_over_http_and_sse_answers_as_well() {
    let env = Env::new(tack!());
    let token = "tok-sse";
    let Some(server) = PythonServer::start_sse(env.root(), token) else {
        return;
    };
    write_user_servers(
        &env,
        json!({ "old": {
            "type": "sse",
            "url": server.url,
            "headers": { "Authorization": format!("Bearer {token}"), "X-Region": "us" }
        } }),
    );
    let out = run(
        &env,
        json!([
            call("add", "old_add", json!({ "a": 20, "b": 22 })),
            call("region", "old_region", json!({})),
            { "text": "all done" }
        ]),
        json!({}),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = events(&out);
    let (failed, text) = tool_result(&events, "add");
    assert!(!failed && text.contains("42"), "{text}");
    let (failed, text) = tool_result(&events, "region");
    assert!(!failed && text.contains("region: us"), "{text}");
    let log = server.log();
    assert!(!log.contains("token=missing"), "{log}");
    assert!(
        log.contains("GET /sse token=ok") && log.contains("POST /messages/"),
        "{log}"
    );

    // Written as a streamable HTTP server, the same URL falls back to the older transport as
    // MCP says a client should, but the server takes messages outside that URL, so tack says
    // how to write the entry.
    write_user_servers(
        &env,
        json!({ "old": { "url": server.url, "headers": { "Authorization": format!("Bearer {token}") } } }),
    );
    let out = run(&env, json!([{ "text": "ok" }]), json!({}), &[]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said.contains("\"type\": \"sse\""), "{said}");
}

/// A server that asks for an OAuth login (the Python SDK's own authorization server): tack
/// names the way in, `tack mcp login` runs discovery, registration and PKCE through a browser
/// (here a script that follows the redirects), keeps the tokens private, refreshes them when
/// they are about to expire, and the host attaches them; the plugin never holds them.
#[test]
fn an_oauth_server_is_logged_in_to_and_its_tokens_stay_with_the_host() {
    let env = Env::new(tack!());
    let (Some(python), Some(server)) = (python_sdk(), PythonServer::start_oauth(env.root())) else {
        return;
    };
    write_user_servers(
        &env,
        json!({ "secure": { "type": "http", "url": server.url } }),
    );
    let whoami = json!([call("who", "secure_whoami", json!({})), { "text": "done" }]);

    // Before a login the server answers 401, and tack says how to log in.
    let out = run(&env, whoami.clone(), json!({}), &[]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said.contains("run `tack mcp login secure`"), "{said}");

    // The "browser" follows the authorization server's redirect back to tack's listener.
    let browser = env.root().join("browse.py");
    std::fs::write(
        &browser,
        "import sys, urllib.request\nurllib.request.urlopen(sys.argv[1]).read()\n",
    )
    .expect("browser script");
    let login = env
        .command()
        .env(
            "BROWSER",
            format!("{} {}", python.display(), browser.display()),
        )
        .args(["mcp", "login", "secure"])
        .output()
        .expect("tack runs");
    assert!(login.status.success(), "{}", stderr(&login));
    assert!(stdout(&login).contains("Logged in to MCP server 'secure'"));
    let store_path = env.home().join("mcp-auth.json");
    let store: Value =
        serde_json::from_str(&std::fs::read_to_string(&store_path).expect("tokens kept"))
            .expect("json");
    let first_token = store["secure"]["access_token"]
        .as_str()
        .expect("a token")
        .to_string();
    assert!(!stdout(&login).contains(&first_token));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&store_path)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let granted = server.log();
    assert!(granted.contains("registered tack"), "{granted}");
    assert!(
        granted.contains(&format!("authorized for {}", server.url)),
        "{granted}"
    );

    // The tokens expire within the refresh margin, so the next start refreshes them first; the
    // call then carries the new token, and the server knows whom it was issued for.
    let out = run(&env, whoami, json!({}), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (failed, text) = tool_result(&events(&out), "who");
    assert!(
        !failed && text.contains(&format!("authorized for {}", server.url)),
        "{text}"
    );
    assert!(server.log().contains("refreshed"), "{}", server.log());
    let store: Value =
        serde_json::from_str(&std::fs::read_to_string(&store_path).expect("tokens kept"))
            .expect("json");
    assert_ne!(
        store["secure"]["access_token"].as_str(),
        Some(first_token.as_str())
    );
    assert!(!stdout(&out).contains(&first_token));
    assert!(server
        .log()
        .lines()
        .any(|l| l.starts_with("POST /mcp bearer=yes")));

    let logout = env.run(&["mcp", "logout", "secure"]);
    assert!(logout.status.success(), "{}", stderr(&logout));
    let store: Value =
        serde_json::from_str(&std::fs::read_to_string(&store_path).expect("file")).expect("json");
    assert!(store.get("secure").is_none());
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_server_that_refuses_tacks_token_or_cannot_be_reached_is_named_and_the_session_goes_on() {
    let env = Env::new(tack!());
    let Some(server) = PythonServer::start(env.root(), "the-right-one") else {
        return;
    };
    write_user_servers(
        &env,
        json!({
            "wrong": { "url": server.url, "headers": { "Authorization": "Bearer not-it" } },
            "gone": { "type": "http", "url": "http://127.0.0.1:9/mcp" }
        }),
    );
    let out = run(
        &env,
        json!([
            call("wrong", "wrong_add", json!({ "a": 1, "b": 2 })),
            call("gone", "gone_add", json!({})),
            { "text": "still here" }
        ]),
        json!({}),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = events(&out);
    // Neither server listed tools, so the model's calls name tools nobody offers.
    let (failed, _) = tool_result(&events, "wrong");
    assert!(failed);
    let (failed, _) = tool_result(&events, "gone");
    assert!(failed);
    assert!(stdout(&out).contains("still here"));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains(&format!(
            "MCP server 'wrong' ({}): {} answered HTTP 401",
            server.url, server.url
        )),
        "{said}"
    );
    assert!(
        said.contains("MCP server 'gone' (http://127.0.0.1:9/mcp)"),
        "{said}"
    );
    assert!(server.log().contains("token=missing"));
}

/// A server in Python that answers `initialize` and `tools/list` and then does what its first
/// argument says to `tools/call`: `crash` writes to stderr and exits 3, `hang` never answers,
/// `grow` adds a tool (saying its tools changed) and answers.
const SCRIPT_SERVER: &str = r#"
import json, sys
mode = sys.argv[1]
tools = [{"name": "act", "description": "Acts.", "inputSchema": {"type": "object"}}]
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {"listChanged": True}}, "serverInfo": {"name": mode, "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
    elif method == "tools/call":
        name = message["params"]["name"]
        if mode == "crash":
            sys.stderr.write("crash server: out of cheese\n")
            sys.exit(3)
        if mode == "hang":
            continue
        sys.stdout.write("this line is not JSON-RPC\n")
        # As the TypeScript SDK does: the tool is added (and announced) while the call runs.
        if name == "act" and len(tools) == 1:
            tools.append({"name": "added", "description": "Added later.", "inputSchema": {"type": "object"}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "did " + name}]}})
"#;

#[test]
fn a_crashing_or_hanging_server_fails_its_call_clearly_and_the_session_goes_on() {
    let env = Env::new(tack!());
    let script = env.root().join("server.py");
    std::fs::write(&script, SCRIPT_SERVER).expect("script");
    let server = |mode: &str| json!({ "command": "python3", "args": [script, mode] });
    write_user_servers(
        &env,
        json!({ "crash": server("crash"), "hang": server("hang"), "grow": server("grow") }),
    );
    let out = run(
        &env,
        json!([
            call("crash1", "crash_act", json!({})),
            call("hang1", "hang_act", json!({})),
            call("grow1", "grow_act", json!({})),
            // The tool the server added after the last call, from this turn on.
            call("grow2", "grow_added", json!({})),
            // Both broken servers start again for their next call.
            call("crash2", "crash_act", json!({})),
            call("hang2", "hang_act", json!({})),
            { "text": "still here" }
        ]),
        json!({ "tool_timeout_ms": 2000 }),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = events(&out);
    for id in ["crash1", "crash2"] {
        let (failed, text) = tool_result(&events, id);
        assert!(failed, "{text}");
        assert!(text.contains("MCP server 'crash' ended"), "{text}");
        assert!(text.contains("exit code 3"), "{text}");
        assert!(text.contains("out of cheese"), "{text}");
    }
    for id in ["hang1", "hang2"] {
        let (failed, text) = tool_result(&events, id);
        assert!(failed, "{text}");
        assert!(
            text.contains("MCP server 'hang' did not answer tools/call in time"),
            "{text}"
        );
    }
    let (failed, text) = tool_result(&events, "grow1");
    assert!(!failed && text.contains("did act"), "{text}");
    let (failed, text) = tool_result(&events, "grow2");
    assert!(!failed && text.contains("did added"), "{text}");
    assert!(stdout(&out).contains("still here"));
}

#[test]
fn permission_gate_asks_about_a_servers_tools_and_read_only_mode_denies_them() {
    let env = Env::new(tack!());
    let script = env.root().join("server.py");
    std::fs::write(&script, SCRIPT_SERVER).expect("script");
    write_user_servers(
        &env,
        json!({ "grow": { "command": "python3", "args": [script, "grow"] } }),
    );
    let calls = json!([call("c", "grow_act", json!({})), { "text": "done" }]);
    let read_only = run(
        &env,
        calls.clone(),
        json!({}),
        &["--permissions", "read-only"],
    );
    assert!(read_only.status.success(), "{}", stderr(&read_only));
    let (failed, text) = tool_result(&events(&read_only), "c");
    assert!(failed && text.contains("MCP server 'grow'"), "{text}");
    // Nobody is there to answer in JSON mode, so the question is a refusal.
    let asked = run(&env, calls, json!({}), &["--permissions", "ask"]);
    assert!(asked.status.success(), "{}", stderr(&asked));
    let (failed, text) = tool_result(&events(&asked), "c");
    assert!(failed && text.contains("MCP server 'grow'"), "{text}");
}

#[test]
fn a_projects_mcp_json_is_used_once_trusted_and_ignored_otherwise() {
    let env = Env::new(tack!());
    let script = env.root().join("server.py");
    std::fs::write(&script, SCRIPT_SERVER).expect("script");
    // As Claude Code writes it, in the repository.
    std::fs::create_dir_all(env.workspace().join(".git")).expect(".git");
    env.write(
        ".mcp.json",
        json!({ "mcpServers": { "proj": {
            "type": "stdio", "command": "python3", "args": [script, "grow"], "env": {}
        } } })
        .to_string(),
    );
    let script = json!([call("c", "proj_act", json!({})), { "text": "done" }]);
    let trusted = run(&env, script.clone(), json!({}), &["--trust"]);
    assert!(trusted.status.success(), "{}", stderr(&trusted));
    let (failed, text) = tool_result(&events(&trusted), "c");
    assert!(!failed && text.contains("did act"), "{text}");

    let untrusted = run(&env, script, json!({}), &["--no-trust"]);
    assert!(untrusted.status.success(), "{}", stderr(&untrusted));
    let (failed, text) = tool_result(&events(&untrusted), "c");
    assert!(failed, "{text}");
    assert!(
        stdout(&untrusted).contains("ignoring the MCP servers of")
            || stderr(&untrusted).contains("ignoring the MCP servers of"),
        "the run says why: {}",
        stderr(&untrusted)
    );
}

#[test]
fn tack_mcp_adds_lists_gets_and_removes_servers_without_showing_values() {
    let env = Env::new(tack!());
    let out = env.run(&[
        "mcp",
        "add",
        "ev",
        "-e",
        "API_TOKEN=s3cret",
        "--",
        "node",
        "server.js",
        "--flag",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("runs `node server.js --flag` with API_TOKEN"));
    assert!(!stdout(&out).contains("s3cret"));
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home().join("mcp.json")).expect("file"))
            .expect("json");
    assert_eq!(
        file["mcpServers"]["ev"],
        json!({ "command": "node", "args": ["server.js", "--flag"], "env": { "API_TOKEN": "s3cret" } })
    );
    let list = env.run(&["mcp", "list"]);
    assert!(stdout(&list).contains("ev (user): runs `node server.js --flag` with API_TOKEN"));
    assert!(!stdout(&list).contains("s3cret"));
    let get = env.run(&["mcp", "get", "ev"]);
    assert!(get.status.success(), "{}", stderr(&get));
    let bad = env.run(&["mcp", "add", "bad name", "--", "x"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("bad name"), "{}", stderr(&bad));
    let removed = env.run(&["mcp", "remove", "ev"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(!env.run(&["mcp", "get", "ev"]).status.success());

    // Codex's servers come over as they are.
    let codex = env.root().join("codex.toml");
    std::fs::write(
        &codex,
        "[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-server\"]\n",
    )
    .expect("codex config");
    let imported = env.run(&["mcp", "import", "--from", codex.to_str().expect("utf8")]);
    assert!(imported.status.success(), "{}", stderr(&imported));
    assert!(stdout(&env.run(&["mcp", "list"])).contains("docs (user): runs `npx -y docs-server`"));

    // A server reached over HTTP, as `claude mcp add --transport http` takes it.
    let env = env.with_var("REMOTE_TOKEN", "r3mote");
    let added = env.run(&[
        "mcp",
        "add",
        "--transport",
        "http",
        "remote",
        "https://mcp.example/mcp",
        "-H",
        "Authorization: Bearer ${REMOTE_TOKEN}",
    ]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert!(
        stdout(&added).contains("reached at https://mcp.example/mcp with Authorization"),
        "{}",
        stdout(&added)
    );
    assert!(!stdout(&added).contains("r3mote"));
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home().join("mcp.json")).expect("file"))
            .expect("json");
    assert_eq!(
        file["mcpServers"]["remote"],
        json!({
            "type": "http",
            "url": "https://mcp.example/mcp",
            "headers": { "Authorization": "Bearer ${REMOTE_TOKEN}" }
        })
    );
    let plain = env.run(&[
        "mcp",
        "add",
        "--transport",
        "http",
        "p",
        "http://mcp.example/mcp",
    ]);
    assert!(!plain.status.success());
    assert!(
        stderr(&plain).contains("only over https"),
        "{}",
        stderr(&plain)
    );
}
