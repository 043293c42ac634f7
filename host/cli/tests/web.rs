//! The web plugin through the real binary, against local servers: `web_fetch` turns a page into
//! Markdown, follows redirects only on its host, caps what it reads, refuses binary bodies and
//! private addresses nobody granted; permission-gate asks per domain; `web_search` speaks Brave's
//! API with the key the host attaches, and Anthropic's and OpenAI's own search with theirs. A name that resolves to a private address is refused
//! inside a network namespace of the test's own, where TEST-NET addresses stand for the internet.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use tack_test_support::http::{MockServer, Reply};
use tack_test_support::json_mode::{call_turn, json_events, tool_event, tool_result};
use tack_test_support::{stderr, tack, Env};

const ARTICLE: &str = include_str!("web/article.html");

/// `calls` as one turn each, then a last answer.
fn script(calls: &[(&str, &str, Value)]) -> Value {
    let mut turns: Vec<Value> = calls
        .iter()
        .map(|(id, tool, args)| call_turn(id, tool, args.clone()))
        .collect();
    turns.push(json!({ "text": "done" }));
    Value::Array(turns)
}

/// Writes the user's global permission rules (permission-gate's own file in its data folder).
fn global_rules(env: &Env, rules: &str) {
    let dir = env.home().join("plugin-data").join("permission-gate");
    std::fs::create_dir_all(&dir).expect("gate data dir");
    std::fs::write(dir.join("permissions.toml"), rules).expect("rules");
}

fn allow_hosts(env: &Env, hosts: &[&str]) {
    let rules: String = hosts
        .iter()
        .map(|h| {
            format!("[[rules]]\ntool = \"web_fetch\"\npattern = \"{h}\"\naction = \"allow\"\n\n")
        })
        .collect();
    global_rules(env, &rules);
}

/// The scripted model playing `calls`, with `web` configured as `web`; json mode, with a home
/// folder of the test's own (permission-gate reads Claude Code's settings from there).
fn command(env: &Env, calls: &[(&str, &str, Value)], web: Value) -> Command {
    let plugin =
        env.scripted_provider_with(json!({ "script": script(calls) }), json!({ "web": web }));
    let user_home = env.root().join("user-home");
    std::fs::create_dir_all(&user_home).expect("user home");
    let mut command = env.command();
    command.env("HOME", user_home);
    command.args([
        "--plugin",
        plugin.to_str().expect("utf8"),
        "--mode",
        "json",
        "-p",
        "go",
    ]);
    command
}

fn run(env: &Env, calls: &[(&str, &str, Value)], web: Value) -> Vec<Value> {
    let out = command(env, calls, web).output().expect("tack runs");
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    json_events(&out)
}

fn paths(server: &MockServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| {
            r.head
                .split_whitespace()
                .nth(1)
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn an_article_page_becomes_clean_markdown_after_a_redirect_on_its_host() {
    let env = Env::new(tack!());
    let server = MockServer::routed(|_, request| {
        if request.head.starts_with("GET /old ") {
            Reply::redirect("301 Moved Permanently", "/blog/borrowing")
        } else {
            Reply::html(ARTICLE)
        }
    });
    allow_hosts(&env, &["127.0.0.1"]);
    let events = run(
        &env,
        &[(
            "page",
            "web_fetch",
            json!({ "url": format!("{}/old", server.url()) }),
        )],
        json!({ "private_origins": [server.url()] }),
    );
    let (failed, text) = tool_result(&events, "page");
    assert!(!failed, "{text}");
    let shown = text.replace(&server.port().to_string(), "PORT");
    insta::assert_snapshot!(shown);
    let end = tool_event(&events, "tool_execution_end", "page");
    let details = &end["result"]["details"];
    assert_eq!(details["readable"], true, "{details}");
    assert_eq!(details["status"], 200, "{details}");
    assert_eq!(paths(&server), ["/old", "/blog/borrowing"]);
    let first = &server.requests()[0].head.to_ascii_lowercase();
    assert!(
        first.contains("user-agent: mozilla/5.0 (compatible; tack-web/"),
        "{first}"
    );
}

#[test]
fn a_redirect_to_another_host_is_refused_and_named() {
    let env = Env::new(tack!());
    let server = MockServer::routed(|_, request| {
        if request.head.starts_with("GET /away ") {
            // The same server by another name: another host as far as any grant is concerned.
            let port = request
                .head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("host: 127.0.0.1:")
                        .map(str::to_string)
                })
                .unwrap_or_default();
            Reply::redirect(
                "302 Found",
                &format!("http://localhost:{}/secret", port.trim()),
            )
        } else {
            Reply::html("<p>should not be read</p>")
        }
    });
    allow_hosts(&env, &["127.0.0.1", "localhost"]);
    let events = run(
        &env,
        &[(
            "away",
            "web_fetch",
            json!({ "url": format!("{}/away", server.url()) }),
        )],
        json!({ "private_origins": [server.url()] }),
    );
    let (failed, text) = tool_result(&events, "away");
    assert!(failed, "{text}");
    assert!(
        text.contains(&format!(
            "redirected to http://localhost:{}/secret, on another host (localhost)",
            server.port()
        )) && text.contains("call web_fetch with that URL"),
        "{text}"
    );
    assert_eq!(paths(&server), ["/away"], "the other host was never asked");
}

#[test]
fn a_long_page_is_cut_with_a_note_and_binary_bodies_are_not_read() {
    let env = Env::new(tack!());
    let line = "The quick brown fox jumps over the lazy dog, again and again.\n";
    let long = line.repeat(4000);
    let long_len = long.len();
    let server = MockServer::routed(move |_, request| {
        if request.head.starts_with("GET /big.txt ") {
            Reply::bytes(long.clone()).with_header("content-type", "text/plain; charset=utf-8")
        } else {
            Reply::bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec())
                .with_header("content-type", "application/pdf")
        }
    });
    allow_hosts(&env, &["127.0.0.1"]);
    let big = format!("{}/big.txt", server.url());
    let events = run(
        &env,
        &[
            ("big", "web_fetch", json!({ "url": big })),
            (
                "more",
                "web_fetch",
                json!({ "url": big, "offset": 5000, "max_chars": 100 }),
            ),
            (
                "pdf",
                "web_fetch",
                json!({ "url": format!("{}/paper.pdf", server.url()) }),
            ),
        ],
        json!({ "private_origins": [server.url()], "max_bytes": 65536, "max_chars": 5000 }),
    );
    let (failed, text) = tool_result(&events, "big");
    assert!(!failed, "{text}");
    assert!(
        text.contains(&format!(
            "[The page is {} KB; only its first 64 KB were read.]",
            long_len >> 10
        )),
        "{text}"
    );
    assert!(
        text.contains("[Truncated: characters 0–5000 of 65536. Call web_fetch with \"offset\": 5000 to read on.]"),
        "{text}"
    );
    let (_, more) = tool_result(&events, "more");
    assert!(more.contains("characters 5000–5100 of 65536"), "{more}");
    let (failed, pdf) = tool_result(&events, "pdf");
    assert!(
        failed && pdf.contains("is a PDF document (15 bytes), not a page"),
        "{pdf}"
    );
}

#[test]
fn a_private_address_nobody_granted_is_refused_before_anything_is_sent() {
    let env = Env::new(tack!());
    let server = MockServer::always(Reply::html("<p>internal admin</p>"));
    allow_hosts(&env, &["127.0.0.1", "localhost"]);
    let events = run(
        &env,
        &[
            (
                "literal",
                "web_fetch",
                json!({ "url": format!("{}/admin", server.url()) }),
            ),
            (
                "named",
                "web_fetch",
                json!({ "url": format!("http://localhost:{}/admin", server.port()) }),
            ),
        ],
        json!({}),
    );
    let (failed, literal) = tool_result(&events, "literal");
    assert!(
        failed && literal.contains("refused: 127.0.0.1 is 127.0.0.1, a loopback address"),
        "{literal}"
    );
    let (failed, named) = tool_result(&events, "named");
    assert!(
        failed && named.contains("refused: localhost resolves to 127.0.0.1, a loopback address"),
        "{named}"
    );
    assert!(server.requests().is_empty(), "nothing reached the server");
}

#[test]
fn permission_gate_asks_per_domain_and_a_claude_code_rule_answers_for_it() {
    let env = Env::new(tack!());
    let server = MockServer::always(Reply::html("<html><body><p>the docs</p></body></html>"));
    let calls = [(
        "page",
        "web_fetch",
        json!({ "url": format!("{}/docs", server.url()) }),
    )];
    let web = json!({ "private_origins": [server.url()] });
    // Nobody is there to answer in print mode: a domain no rule allows is not read.
    let events = run(&env, &calls, web.clone());
    let (failed, text) = tool_result(&events, "page");
    assert!(
        failed && text.contains("127.0.0.1 is a domain no rule allows yet"),
        "{text}"
    );
    assert!(server.requests().is_empty());
    // Claude Code's `WebFetch(domain:…)` in the user's settings allows it.
    let claude = env.root().join("user-home").join(".claude");
    std::fs::create_dir_all(&claude).expect("claude dir");
    std::fs::write(
        claude.join("settings.json"),
        r#"{"permissions": {"allow": ["WebFetch(domain:127.0.0.1)"]}}"#,
    )
    .expect("settings");
    let out = command(&env, &calls, web).output().expect("tack runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let (failed, text) = tool_result(&json_events(&out), "page");
    assert!(!failed && text.contains("the docs"), "{text}");
}

#[test]
fn web_search_asks_brave_with_the_key_the_host_attaches() {
    let env = Env::new(tack!()).with_var("BRAVE_API_KEY", "brave-test-key");
    let answer = json!({
        "type": "search",
        "query": { "original": "rust borrow checker" },
        "web": { "type": "search", "results": [
            {
                "title": "The <strong>Borrow Checker</strong> - The Rust Book",
                "url": "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
                "description": "References and <strong>borrowing</strong>: a reference is like a pointer &amp; more.",
                "age": "2 days ago"
            },
            {
                "title": "Understanding lifetimes",
                "url": "https://blog.example.com/lifetimes",
                "description": "Lifetimes explained."
            }
        ] }
    });
    let server = MockServer::always(Reply::json("200 OK", answer.to_string()));
    let events = run(
        &env,
        &[(
            "find",
            "web_search",
            json!({ "query": "rust borrow checker", "count": 5 }),
        )],
        json!({ "search": "brave", "search_url": server.url() }),
    );
    let (failed, text) = tool_result(&events, "find");
    assert!(!failed, "{text}");
    insta::assert_snapshot!(text);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let head = requests[0].head.to_ascii_lowercase();
    assert!(
        head.starts_with("get /res/v1/web/search?q=rust+borrow+checker&count=5 "),
        "{head}"
    );
    assert!(
        head.contains("x-subscription-token: brave-test-key"),
        "{head}"
    );
}

/// Anthropic's Messages answer with one `web_search` server tool use, as the API sends it.
fn anthropic_search_answer() -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [
            { "type": "text", "text": "I'll search for the latest wasmtime release." },
            { "type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
              "input": { "query": "wasmtime latest release" } },
            { "type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
                { "type": "web_search_result", "title": "Release Wasmtime 48.0.0 · bytecodealliance/wasmtime",
                  "url": "https://github.com/bytecodealliance/wasmtime/releases/tag/v48.0.0",
                  "encrypted_content": "EqgfCioIARgBIiQ3YTAw", "page_age": "November 20, 2026" },
                { "type": "web_search_result", "title": "Wasmtime",
                  "url": "https://wasmtime.dev/", "encrypted_content": "Eo8BCioIAhgB" }
            ] },
            { "type": "text", "text": "The latest release is Wasmtime 48.0.0", "citations": [
                { "type": "web_search_result_location",
                  "url": "https://github.com/bytecodealliance/wasmtime/releases/tag/v48.0.0",
                  "title": "Release Wasmtime 48.0.0 · bytecodealliance/wasmtime",
                  "encrypted_index": "Eo8BCioIAhgBIiQ3",
                  "cited_text": "48.0.0 Released 2026-11-20. Added: the component model async ABI is on by default." }
            ] },
            { "type": "text", "text": ", released on 20 November 2026." }
        ],
        "stop_reason": "end_turn",
        "usage": { "input_tokens": 6120, "output_tokens": 61,
                   "server_tool_use": { "web_search_requests": 1 } }
    })
}

#[test]
fn web_search_through_anthropics_own_search_lists_its_results_and_citations() {
    let env = Env::new(tack!()).with_var("ANTHROPIC_API_KEY", "sk-ant-test");
    let server = MockServer::always(Reply::json("200 OK", anthropic_search_answer().to_string()));
    let events = run(
        &env,
        &[(
            "find",
            "web_search",
            json!({ "query": "newest wasmtime", "count": 5 }),
        )],
        json!({ "search": "anthropic", "search_url": server.url() }),
    );
    let (failed, text) = tool_result(&events, "find");
    assert!(!failed, "{text}");
    insta::assert_snapshot!(text);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let head = requests[0].head.to_ascii_lowercase();
    assert!(head.starts_with("post /v1/messages "), "{head}");
    assert!(head.contains("x-api-key: sk-ant-test"), "{head}");
    assert!(head.contains("anthropic-version: 2023-06-01"), "{head}");
    let body: Value = serde_json::from_slice(&requests[0].body).expect("json body");
    assert_eq!(body["model"], "claude-haiku-4-5");
    assert_eq!(body["tools"][0]["type"], "web_search_20250305");
    assert_eq!(body["messages"][0]["content"], "newest wasmtime");
    let details = &tool_event(&events, "tool_execution_end", "find")["result"]["details"];
    assert_eq!(details["usage"]["input"], 6120);
}

#[test]
fn web_search_through_openais_own_search_and_a_model_that_did_not_search() {
    let env = Env::new(tack!()).with_var("OPENAI_API_KEY", "sk-openai-test");
    let text =
        "Python 3.14 is the newest release ([python.org](https://www.python.org/downloads/)).";
    let start = text.find("([").expect("a citation");
    let searched = json!({
        "id": "resp_1", "object": "response", "status": "completed",
        "output": [
            { "type": "web_search_call", "id": "ws_1", "status": "completed",
              "action": { "type": "search", "query": "latest python release",
                          "sources": [{ "type": "url", "url": "https://www.python.org/downloads/" },
                                      { "type": "url", "url": "https://docs.python.org/3/whatsnew/" }] } },
            { "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
              "content": [{ "type": "output_text", "text": text, "annotations": [
                  { "type": "url_citation", "start_index": start, "end_index": text.len() - 1,
                    "url": "https://www.python.org/downloads/", "title": "Download Python" }
              ] }] }
        ],
        "usage": { "input_tokens": 900, "output_tokens": 40, "total_tokens": 940 }
    });
    let from_memory = json!({
        "id": "resp_2", "object": "response", "status": "completed",
        "output": [{ "type": "message", "role": "assistant",
                     "content": [{ "type": "output_text", "text": "Python 3.12, I believe.", "annotations": [] }] }]
    });
    let server = MockServer::replies(vec![
        Reply::json("200 OK", searched.to_string()),
        Reply::json("200 OK", from_memory.to_string()),
    ]);
    let events = run(
        &env,
        &[
            ("one", "web_search", json!({ "query": "python" })),
            ("two", "web_search", json!({ "query": "python" })),
        ],
        json!({ "search": "openai", "search_url": server.url(), "search_model": "gpt-5" }),
    );
    let (failed, text) = tool_result(&events, "one");
    assert!(!failed, "{text}");
    assert!(
        text.contains("(searched for \"latest python release\")")
            && text.contains("1. Download Python\n   https://www.python.org/downloads/\n   Python 3.14 is the newest release")
            && text.contains("2. https://docs.python.org/3/whatsnew/"),
        "{text}"
    );
    let (failed, text) = tool_result(&events, "two");
    assert!(
        failed && text.contains("answered without searching"),
        "{text}"
    );
    let requests = server.requests();
    let head = requests[0].head.to_ascii_lowercase();
    assert!(head.starts_with("post /v1/responses "), "{head}");
    assert!(
        head.contains("authorization: bearer sk-openai-test"),
        "{head}"
    );
    let body: Value = serde_json::from_slice(&requests[0].body).expect("json body");
    assert_eq!(body["model"], "gpt-5");
    assert_eq!(body["tools"][0]["type"], "web_search");
}

#[test]
fn without_a_backend_there_is_no_web_search_tool() {
    let env = Env::new(tack!());
    let events = run(
        &env,
        &[("find", "web_search", json!({ "query": "x" }))],
        json!({}),
    );
    let (failed, text) = tool_result(&events, "find");
    assert!(failed && text.contains("web_search"), "{text}");
    let env = Env::new(tack!());
    let plugin = env.scripted_provider_with(
        json!({ "script": [{ "text": "hi" }] }),
        json!({ "web": { "search": "bing" } }),
    );
    let out = env.run(&["--plugin", plugin.to_str().expect("utf8"), "-p", "go"]);
    assert!(
        stderr(&out).contains("search = \"bing\" is no backend tack knows"),
        "{}",
        stderr(&out)
    );
}

/// Runs `script` (sh) in a user, network and mount namespace of its own, where `203.0.113.5`
/// (TEST-NET-3) stands for a host on the internet and `10.9.8.7` for one on a private network,
/// both on the namespace's loopback device (a dummy device would need a kernel module a user
/// namespace cannot load), and `/etc/hosts` names them `public.test` and `intranet.test`. It
/// has a process namespace too, so whatever the script leaves running dies with it.
fn in_namespace(dir: &Path, script: &str) -> std::process::Output {
    std::fs::write(
        dir.join("hosts"),
        "127.0.0.1 localhost\n203.0.113.5 public.test\n10.9.8.7 intranet.test\n",
    )
    .expect("hosts");
    let setup = format!(
        "set -e; ip link set lo up; ip addr add 203.0.113.5/32 dev lo; \
         ip addr add 10.9.8.7/32 dev lo; mount --bind {}/hosts /etc/hosts; {script}",
        dir.display()
    );
    Command::new("unshare")
        .args(["-rnmpf", "--kill-child", "sh", "-c", &setup])
        .output()
        .expect("unshare runs")
}

#[test]
fn names_are_resolved_once_and_a_private_answer_is_refused() {
    let env = Env::new(tack!());
    let site = env.root().join("site");
    std::fs::create_dir_all(&site).expect("site");
    std::fs::write(
        site.join("index.html"),
        "<html><body><p>hello from the internet</p></body></html>",
    )
    .expect("page");
    allow_hosts(&env, &["*.test", "10.9.8.7"]);
    let calls = [
        (
            "public",
            "web_fetch",
            json!({ "url": "http://public.test:8080/" }),
        ),
        (
            "private",
            "web_fetch",
            json!({ "url": "http://intranet.test:8080/" }),
        ),
        (
            "literal",
            "web_fetch",
            json!({ "url": "http://10.9.8.7:8080/" }),
        ),
    ];
    let tack_run = command(&env, &calls, json!({}));
    let mut line = String::new();
    for (key, value) in tack_run.get_envs() {
        if let (Some(value), Some(key)) = (value, key.to_str()) {
            line.push_str(&format!(
                "{key}={} ",
                shell_quote(value.to_str().expect("utf8"))
            ));
        }
    }
    line.push_str(&shell_quote(tack_run.get_program().to_str().expect("utf8")));
    for arg in tack_run.get_args() {
        line.push(' ');
        line.push_str(&shell_quote(arg.to_str().expect("utf8")));
    }
    let script = format!(
        "cd {site}; python3 -m http.server 8080 --bind 0.0.0.0 > {log} 2>&1 & \
         for i in $(seq 50); do python3 -c 'import socket; socket.create_connection((\"203.0.113.5\", 8080))' 2>/dev/null && break; sleep 0.1; done; \
         cd {ws}; env {line}",
        site = shell_quote(site.to_str().expect("utf8")),
        log = shell_quote(env.root().join("server.log").to_str().expect("utf8")),
        ws = shell_quote(env.workspace().to_str().expect("utf8")),
    );
    let out = in_namespace(env.root(), &script);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    let (failed, public) = tool_result(&events, "public");
    assert!(
        !failed && public.contains("hello from the internet"),
        "{public}"
    );
    let (failed, private) = tool_result(&events, "private");
    assert!(
        failed
            && private
                .contains("refused: intranet.test resolves to 10.9.8.7, a private-network address"),
        "{private}"
    );
    let (failed, literal) = tool_result(&events, "literal");
    assert!(
        failed && literal.contains("refused: 10.9.8.7 is 10.9.8.7, a private-network address"),
        "{literal}"
    );
    let log = std::fs::read_to_string(env.root().join("server.log")).unwrap_or_default();
    assert_eq!(
        log.matches("GET / ").count(),
        1,
        "only the public fetch arrived: {log}"
    );
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
