//! Providers as a new user meets them, through the real binary against loopback servers that
//! speak each provider's wire: a local server's models found by asking it, a key kept in a
//! password manager (`!command` in auth.json), what each kind of token cost, presets (Groq,
//! DeepSeek, Kimi, Mistral, an Azure deployment), a Bedrock stream the host signs (checked by
//! botocore) and Vertex tokens the host exchanges a service-account key for (checked by PyJWT).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use serde_json::{json, Value};
use tack_test_support::http::{MockServer, Reply, Request};
use tack_test_support::json_mode::json_events;
use tack_test_support::openai::{self, chunk, text};
use tack_test_support::{stderr, stdout, tack, Env};

/// An Ollama-style server: `GET /v1/models` lists `models`, and every other request gets a short
/// streamed answer.
fn local_server(models: &'static [&'static str]) -> MockServer {
    MockServer::routed(move |_, request: &Request| {
        if request.head.starts_with("GET /v1/models ") {
            let data: Vec<Value> = models
                .iter()
                .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "library"}))
                .collect();
            Reply::json(
                "200 OK",
                json!({"object": "list", "data": data}).to_string(),
            )
        } else {
            openai::text_reply("served locally")
        }
    })
}

fn chat_requests(server: &MockServer) -> Vec<Request> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.head.starts_with("POST /v1/chat/completions "))
        .collect()
}

#[test]
fn a_local_servers_models_are_found_by_asking_it() {
    let env = Env::new(tack!());
    // A listed id with control characters in it is nobody's model, and never printed.
    let server = local_server(&["qwen3-coder:30b", "llama3.2:3b", "bad\u{1b}]0;title\u{7}"]);
    let base = format!("{}/v1", server.url());

    // The OpenAI provider at a URL of the user's choosing takes any model the server lists.
    let out = env.run(&[
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "qwen3-coder:30b",
        "-p",
        "hello",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("served locally"), "{}", stdout(&out));
    let chats = chat_requests(&server);
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0].json()["model"], "qwen3-coder:30b");
    assert!(
        !server.requests()[0].text().contains("authorization"),
        "no key was set, and none is sent"
    );

    // The `ollama` preset needs no config beyond where the server is (here a test port); a
    // fragment of an id is enough, as for any model.
    env.config(json!({"providers": {"ollama": {"base_url": base}}}));
    let out = env.run(&["--provider", "ollama", "--model", "llama3.2", "-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let chats = chat_requests(&server);
    assert_eq!(chats.len(), 2);
    let body = chats[1].json();
    assert_eq!(body["model"], "llama3.2:3b");
    assert!(
        body.get("max_completion_tokens").is_none(),
        "local servers are never sent the field some of them do not know: {body}"
    );
    let session = env.session_lines();
    assert!(
        session
            .iter()
            .any(|l| l["type"] == "model_change" && l["provider"] == "ollama"),
        "the session records the preset: {session:?}"
    );

    // A model the server does not serve is refused with what it does serve.
    let out = env.run(&["--provider", "ollama", "--model", "mistral:7b", "-p", "hi"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("has no model 'mistral:7b'"), "{err}");
    assert!(
        err.contains("serves qwen3-coder:30b, llama3.2:3b\n")
            || err.ends_with("serves qwen3-coder:30b, llama3.2:3b"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "{err}");
    assert!(err.contains(&base), "the error says which server: {err}");
    assert_eq!(chat_requests(&server).len(), 2, "nothing was sent");
}

#[test]
fn a_local_server_that_cannot_be_asked_is_named_in_the_error() {
    let env = Env::new(tack!());
    let server = MockServer::always(Reply::json("404 Not Found", r#"{"error":"no such route"}"#));
    let base = format!("{}/v1", server.url());
    env.config(json!({"providers": {"vllm": {"base_url": base}}}));
    let out = env.run(&["--provider", "vllm", "-p", "hi"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("provider 'vllm' lists no models"), "{err}");
    assert!(err.contains(&format!("{base}/models")), "{err}");
    assert!(err.contains("404"), "{err}");
}

/// auth.json, private as the host insists.
fn auth_json(env: &Env, value: Value) {
    let path = env.home().join("auth.json");
    std::fs::write(&path, value.to_string()).expect("auth.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
}

#[test]
fn a_key_from_a_command_in_auth_json_is_sent_and_a_failing_one_is_named() {
    let env = Env::new(tack!());
    let server = MockServer::always(openai::text_reply("keyed"));
    let base = format!("{}/v1", server.url());
    // A password manager stands in: a script that prints the key.
    let manager = env.root().join("vault");
    std::fs::write(&manager, "#!/bin/sh\necho sk-from-the-vault\n").expect("script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&manager, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    auth_json(
        &env,
        json!({"OPENAI_API_KEY": format!("!{} --field key", manager.display())}),
    );
    let out = env.run(&["--provider", "openai", "--base-url", &base, "-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0]
            .head
            .to_ascii_lowercase()
            .contains("authorization: bearer sk-from-the-vault\r\n"),
        "{}",
        requests[0].head
    );

    auth_json(
        &env,
        json!({"OPENAI_API_KEY": "!echo 'the vault is locked' >&2; exit 4"}),
    );
    let out = env.run(&["--provider", "openai", "--base-url", &base, "-p", "hi"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("OPENAI_API_KEY"), "{err}");
    assert!(err.contains("the vault is locked"), "{err}");
    assert_eq!(server.requests().len(), 1, "nothing sent without a key");
}

#[test]
fn each_kind_of_token_is_priced_from_the_catalog() {
    let env = Env::new(tack!());
    // 1,000 prompt tokens of which 400 were read from the cache, and 200 output tokens.
    let server = MockServer::always(openai::stream(&[
        text("cached answer"),
        chunk(json!({}), Some("stop")),
        json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0,
            "model": openai::MODEL, "choices": [],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200,
                      "prompt_tokens_details": {"cached_tokens": 400}}
        }),
    ]));
    env.config(json!({"providers": {"priced": {
        "api": "openai",
        "base_url": format!("{}/v1", server.url()),
        "secret": "",
        "models": [{"id": "m1", "cost_input": 3.0, "cost_output": 15.0,
                    "cost_cache_read": 0.3, "cost_cache_write": 3.75}],
    }}}));
    let out = env.run(&["--provider", "priced", "--mode", "json", "-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let events = json_events(&out);
    let end = events
        .iter()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .expect("the assistant's message_end");
    let usage = &end["message"]["usage"];
    assert_eq!(usage["input"], 600);
    assert_eq!(usage["cacheRead"], 400);
    let cost = &usage["cost"];
    let close = |field: &str, dollars: f64| {
        let got = cost[field].as_f64().unwrap_or(f64::NAN);
        assert!((got - dollars).abs() < 1e-12, "{field}: {got} != {dollars}");
    };
    close("input", 600.0 * 3.0 / 1e6);
    close("output", 200.0 * 15.0 / 1e6);
    close("cacheRead", 400.0 * 0.3 / 1e6);
    close("cacheWrite", 0.0);
    close("total", (600.0 * 3.0 + 200.0 * 15.0 + 400.0 * 0.3) / 1e6);

    let stored = env
        .session_lines()
        .into_iter()
        .find(|l| l["message"]["role"] == "assistant")
        .expect("the stored assistant message");
    assert_eq!(
        stored["message"]["usage"]["cost"], *cost,
        "the session keeps the same"
    );
}

#[test]
fn models_can_be_searched_and_local_server_presets_are_listed() {
    let env = Env::new(tack!());
    let all = stdout(&env.run(&["models"]));
    assert!(
        all.contains("ollama (Ollama) — http://localhost:11434/v1 — no key needed"),
        "{all}"
    );
    assert!(all.contains("(the models the server lists, asked when it is used)"));
    let out = env.run(&["models", "sonnet"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let found = stdout(&out);
    assert!(found.contains("claude-sonnet"), "{found}");
    assert!(!found.contains("gpt-"), "{found}");
    assert!(!found.contains("ollama"), "{found}");
    let none = env.run(&["models", "zzzz-no-such-model"]);
    assert!(!none.status.success());
    assert!(stdout(&none).contains("no model matches 'zzzz-no-such-model'"));

    // Cloudflare's URL names the user's account, filled in from the environment; without it
    // the preset says what to set, and a value that would change the URL's shape is refused.
    let listed = stdout(&env.run(&["models", "cloudflare-workers-ai/gpt-oss-120b"]));
    assert!(
        listed.contains("unusable: set CLOUDFLARE_ACCOUNT_ID"),
        "{listed}"
    );
    let with_account = Env::new(tack!()).with_var("CLOUDFLARE_ACCOUNT_ID", "acct-42");
    let listed = stdout(&with_account.run(&["models", "cloudflare-workers-ai/gpt-oss-120b"]));
    assert!(
        listed.contains(
            "cloudflare-workers-ai (Cloudflare Workers AI) — \
             https://api.cloudflare.com/client/v4/accounts/acct-42/ai/v1 — key: CLOUDFLARE_API_KEY"
        ),
        "{listed}"
    );
    // A URL of the user's own (a gateway) needs no account in the environment.
    let own = Env::new(tack!());
    own.config(
        json!({"providers": {"cloudflare-workers-ai": {"base_url": "http://127.0.0.1:9/cf"}}}),
    );
    let listed = stdout(&own.run(&["models", "cloudflare-workers-ai/gpt-oss-120b"]));
    assert!(listed.contains("http://127.0.0.1:9/cf"), "{listed}");
    assert!(!listed.contains("unusable"), "{listed}");
    let hostile = Env::new(tack!()).with_var("CLOUDFLARE_ACCOUNT_ID", "x@evil.example");
    let listed = stdout(&hostile.run(&["models", "cloudflare-workers-ai/gpt-oss-120b"]));
    assert!(!listed.contains("evil.example"), "{listed}");
    assert!(listed.contains("may hold only letters"), "{listed}");
    let plans = stdout(&env.run(&["models", "xiaomi-token-plan"]));
    for region in ["ams", "cn", "sgp"] {
        assert!(
            plans.contains(&format!(
                "xiaomi-token-plan-{region} (Xiaomi MiMo Token Plan"
            )),
            "{plans}"
        );
    }
}

#[test]
fn a_preset_provider_needs_only_its_key_and_is_never_chosen_unasked() {
    let env = Env::new(tack!()).with_var("GROQ_API_KEY", "gsk-test-key");
    let server = MockServer::always(openai::text_reply("from groq"));
    // The preset knows Groq's own URL; the test points it at the loopback server instead.
    let base = format!("{}/v1", server.url());
    let out = env.run(&["--provider", "groq", "--base-url", &base, "-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("from groq"));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let head = requests[0].head.to_ascii_lowercase();
    assert!(
        head.contains("authorization: bearer gsk-test-key\r\n"),
        "{head}"
    );
    assert_eq!(
        requests[0].json()["model"],
        "openai/gpt-oss-120b",
        "the model Pi starts Groq on"
    );

    // A key that happens to be set does not pick its preset: the offline demo answers.
    let out = env.run(&["-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("using the offline demo provider"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requests().len(), 1);

    // Its models carry the catalog's prices.
    let listed = stdout(&env.run(&["models", "groq/gpt-oss-120b"]));
    assert!(
        listed.contains("groq (Groq) — https://api.groq.com/openai/v1 — key: GROQ_API_KEY (set)"),
        "{listed}"
    );
    assert!(listed.contains("openai/gpt-oss-120b"), "{listed}");
    assert!(listed.contains("per Mtok"), "{listed}");
}

#[test]
fn deepseek_thinks_by_its_switch_and_gets_its_reasoning_back_with_the_tool_result() {
    let env = Env::new(tack!()).with_var("DEEPSEEK_API_KEY", "sk-deepseek-test");
    env.write("a.txt", "hello\n");
    let server = MockServer::replies(vec![
        openai::thinking_tool_reply(
            "Read the file first.",
            "call_1",
            "read",
            json!({ "path": "a.txt" }),
        ),
        openai::text_reply("It says hello."),
    ]);
    let base = server.url().to_string();
    let out = env.run(&[
        "--provider",
        "deepseek",
        "--base-url",
        &base,
        "--thinking",
        "high",
        "-p",
        "what is in a.txt?",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("It says hello."), "{}", stdout(&out));
    let bodies = server.json_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["model"], "deepseek-v4-pro");
    assert_eq!(bodies[0]["thinking"], json!({ "type": "enabled" }));
    assert_eq!(bodies[0]["reasoning_effort"], "high");
    // DeepSeek refuses a tool call's follow-up in thinking mode without the reasoning that led
    // to the call; it goes back in the field it came in.
    let assistant = bodies[1]["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "assistant"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        assistant["reasoning_content"], "Read the file first.",
        "{assistant}"
    );
    assert_eq!(assistant["tool_calls"][0]["id"], "call_1", "{assistant}");
}

#[test]
fn a_preset_on_the_anthropic_api_sends_its_headers_and_configured_headers_are_checked() {
    let env = Env::new(tack!()).with_var("KIMI_API_KEY", "sk-kimi-test");
    let server = MockServer::always(tack_test_support::anthropic::text_reply("from kimi"));
    let out = env.run(&[
        "--provider",
        "kimi-coding",
        "--base-url",
        server.url(),
        "-p",
        "hi",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let head = server.requests()[0].head.to_ascii_lowercase();
    assert!(head.contains("x-api-key: sk-kimi-test\r\n"), "{head}");
    assert!(
        head.contains("user-agent: kimicli/1.5\r\n"),
        "the preset's header: {head}"
    );

    // A header of the user's own goes along; one that routes the request is refused by name.
    let openai_server = MockServer::always(openai::text_reply("titled"));
    let base = format!("{}/v1", openai_server.url());
    env.config(json!({"providers": {"openai": {"headers": {"X-Title": "tack tests"}}}}));
    let run = |env: &Env| {
        env.run(&[
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--api-key",
            "sk-x",
            "-p",
            "hi",
        ])
    };
    let out = run(&env);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let head = openai_server.requests()[0].head.to_ascii_lowercase();
    assert!(head.contains("x-title: tack tests\r\n"), "{head}");
    env.config(json!({"providers": {"openai": {"headers": {"Host": "elsewhere.example"}}}}));
    let out = run(&env);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("the header `Host` is set by the host"),
        "{}",
        stderr(&out)
    );
    assert_eq!(openai_server.requests().len(), 1, "nothing was sent");
}

/// OpenCode Zen serves each model on the API it speaks, under one root and one key, as Pi's
/// catalog has it: Anthropic's Messages, OpenAI's Responses and Chat Completions, Gemini's.
#[test]
fn opencode_sends_each_model_to_its_own_api_under_one_root() {
    let env = Env::new(tack!()).with_var("OPENCODE_API_KEY", "sk-zen-test");
    let server = MockServer::routed(|_, request: &Request| {
        let path = request.head.split(' ').nth(1).unwrap_or("");
        match path {
            "/zen/v1/messages" => tack_test_support::anthropic::text_reply("claude here"),
            "/zen/v1/responses" => tack_test_support::openai_responses::text_reply("gpt here"),
            "/zen/v1/chat/completions" => openai::text_reply("kimi here"),
            "/zen/v1/models/gemini-3-flash:streamGenerateContent?alt=sse" => {
                tack_test_support::google::text_reply("gemini here")
            }
            _ => Reply::json("404 Not Found", "{}"),
        }
    });
    let root = format!("{}/zen", server.url());
    // A model of the user's own goes to the provider's first API (Chat Completions).
    env.config(
        json!({"providers": {"opencode": {"base_url": root, "models": [{"id": "my-own-model"}]}}}),
    );

    // Its first model is Pi's, on Chat Completions, without the developer role Zen refuses.
    let out = env.run(&["--provider", "opencode", "-p", "hi"]);
    assert!(stdout(&out).contains("kimi here"), "{}", stderr(&out));
    // A continued session moves to a model of another API; the conversation goes along.
    for (model, answer) in [
        ("opencode/claude-sonnet-4-5", "claude here"),
        ("opencode/gpt-5", "gpt here"),
        ("opencode/gemini-3-flash", "gemini here"),
        ("opencode/my-own-model", "kimi here"),
    ] {
        let out = env.run(&["-c", "--model", model, "-p", "again"]);
        assert!(stdout(&out).contains(answer), "{model}: {}", stderr(&out));
    }
    let requests = server.requests();
    let heads: Vec<String> = requests
        .iter()
        .map(|r| r.head.to_ascii_lowercase())
        .collect();
    let paths: Vec<&str> = requests
        .iter()
        .map(|r| r.head.split(' ').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        paths,
        [
            "/zen/v1/chat/completions",
            "/zen/v1/messages",
            "/zen/v1/responses",
            "/zen/v1/models/gemini-3-flash:streamGenerateContent?alt=sse",
            "/zen/v1/chat/completions",
        ]
    );
    // The one key, as each API takes it.
    assert!(
        heads[0].contains("authorization: bearer sk-zen-test\r\n"),
        "{}",
        heads[0]
    );
    assert!(
        heads[1].contains("x-api-key: sk-zen-test\r\n"),
        "{}",
        heads[1]
    );
    assert!(
        heads[2].contains("authorization: bearer sk-zen-test\r\n"),
        "{}",
        heads[2]
    );
    assert!(
        heads[3].contains("x-goog-api-key: sk-zen-test\r\n"),
        "{}",
        heads[3]
    );
    let chat = requests[0].json();
    assert_eq!(chat["model"], "kimi-k2.6");
    assert_eq!(chat["messages"][0]["role"], "system", "{chat}");
    let claude = requests[1].json();
    assert_eq!(claude["model"], "claude-sonnet-4-5");
    let said = claude["messages"].to_string();
    assert!(
        said.contains("kimi here"),
        "the earlier answer went along: {said}"
    );
    assert_eq!(requests[2].json()["model"], "gpt-5");

    // A model the catalog does not list is refused, naming what Zen serves.
    let out = env.run(&[
        "--provider",
        "opencode",
        "--model",
        "no-such-model",
        "-p",
        "hi",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("claude-sonnet-4-5"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requests().len(), 5, "nothing more was sent");
}

/// Cloudflare's AI Gateway: the account's and gateway's URL from the environment, one API per
/// model under it, and the key as a bearer token in `cf-aig-authorization` whatever the API, as
/// Pi sends it (the gateway holds the upstream providers' keys).
#[test]
fn cloudflares_ai_gateway_takes_its_key_as_a_bearer_token_in_its_own_header() {
    let env = Env::new(tack!()).with_var("CLOUDFLARE_API_KEY", "cf-test-key");
    // Without the account and gateway it says what to set, and sends nothing.
    let out = env.run(&["--provider", "cloudflare-ai-gateway", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("set CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_GATEWAY_ID"),
        "{}",
        stderr(&out)
    );

    let server = MockServer::routed(|_, request: &Request| {
        match request.head.split(' ').nth(1).unwrap_or("") {
            "/v1/acct/gw/anthropic/v1/messages" => {
                tack_test_support::anthropic::text_reply("claude via the gateway")
            }
            "/v1/acct/gw/openai/responses" => {
                tack_test_support::openai_responses::text_reply("gpt via the gateway")
            }
            "/v1/acct/gw/compat/chat/completions" => openai::text_reply("kimi via the gateway"),
            _ => Reply::json("404 Not Found", "{}"),
        }
    });
    let env = env
        .with_var("CLOUDFLARE_ACCOUNT_ID", "acct")
        .with_var("CLOUDFLARE_GATEWAY_ID", "gw");
    // The user's root stands for Cloudflare's, as a proxy's would.
    let root = format!("{}/v1/acct/gw", server.url());
    env.config(json!({"providers": {"cloudflare-ai-gateway": {"base_url": root}}}));
    for (model, answer) in [
        (
            "cloudflare-ai-gateway/workers-ai/@cf/moonshotai/kimi-k2.6",
            "kimi via the gateway",
        ),
        (
            "cloudflare-ai-gateway/claude-sonnet-4-5",
            "claude via the gateway",
        ),
        ("cloudflare-ai-gateway/gpt-5.1", "gpt via the gateway"),
    ] {
        let out = env.run(&["--model", model, "-p", "hi"]);
        assert!(stdout(&out).contains(answer), "{model}: {}", stderr(&out));
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        let head = request.head.to_ascii_lowercase();
        assert!(
            head.contains("cf-aig-authorization: bearer cf-test-key\r\n"),
            "{head}"
        );
        assert!(!head.contains("x-api-key"), "{head}");
        assert!(!head.contains("\r\nauthorization:"), "{head}");
    }
    let compat = requests[0].json();
    assert_eq!(compat["model"], "workers-ai/@cf/moonshotai/kimi-k2.6");
    assert_eq!(
        compat["messages"][0]["role"], "system",
        "no developer role there"
    );
}

#[test]
fn an_azure_deployment_gets_its_key_in_api_key_and_its_deployment_name() {
    use tack_test_support::openai_responses;
    let env = Env::new(tack!()).with_var("AZURE_OPENAI_API_KEY", "az-test-key");

    // With no resource named, nothing is sent, and the error says what to set.
    let out = env.run(&["--provider", "azure-openai-responses", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("AZURE_OPENAI_BASE_URL"),
        "{}",
        stderr(&out)
    );

    let server = MockServer::always(openai_responses::text_reply("from azure"));
    let env = env
        .with_var(
            "AZURE_OPENAI_BASE_URL",
            format!("{}/openai/v1", server.url()),
        )
        .with_var("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "gpt-5.4=prod-gpt54");
    let out = env.run(&["--provider", "azure-openai-responses", "-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("from azure"), "{}", stdout(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let head = requests[0].head.to_ascii_lowercase();
    assert!(
        head.starts_with("post /openai/v1/responses?api-version=v1 "),
        "{head}"
    );
    assert!(head.contains("api-key: az-test-key\r\n"), "{head}");
    assert!(!head.contains("authorization:"), "{head}");
    assert_eq!(requests[0].json()["model"], "prod-gpt54");

    let listed = stdout(&env.run(&["models", "azure-openai-responses/gpt-5.4"]));
    assert!(
        listed.contains("key: AZURE_OPENAI_API_KEY (set)"),
        "{listed}"
    );
}

/// A Python peer of `tests/<script>` (run by the venv `scripts/install-mcp-servers` makes, with
/// botocore, PyJWT and cryptography) listening on a free port, given as its first argument;
/// killed when dropped. `None` (the test is skipped) when the venv is missing, unless
/// `TACK_REQUIRE_MCP=1`.
struct PythonPeer {
    child: std::process::Child,
    port: u16,
}

impl PythonPeer {
    fn start(script: &str, args: &[&std::ffi::OsStr], vars: &[(&str, &str)]) -> Option<PythonPeer> {
        let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let python = tests.join("mcp-peers/python/bin/python");
        if !python.is_file() {
            assert!(
                std::env::var("TACK_REQUIRE_MCP").as_deref() != Ok("1"),
                "{} is missing (run scripts/install-mcp-servers), and TACK_REQUIRE_MCP=1",
                python.display()
            );
            eprintln!("skipped: {} is missing", python.display());
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = std::process::Command::new(python)
            .arg(tests.join(script))
            .arg(port.to_string())
            .args(args)
            .envs(vars.iter().copied())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("python starts");
        let peer = PythonPeer { child, port };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "{script} did not listen"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Some(peer)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for PythonPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A peer's log: one JSON object per line.
fn logged(log: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("a logged request"))
        .collect()
}

/// Runs tack with `args` against a logging peer: its output and what the peer logged, failing
/// with both shown when tack failed.
fn run_logged(
    env: &Env,
    log: &std::path::Path,
    args: &[&str],
) -> (std::process::Output, Vec<Value>) {
    let out = env.run(args);
    let requests = logged(log);
    assert!(
        out.status.success(),
        "stderr: {}\nserver: {requests:?}",
        stderr(&out)
    );
    (out, requests)
}

/// Every file below `root`.
fn walk(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// No file below `root` but `except` holds any of `secrets`.
fn assert_no_file_holds(root: &std::path::Path, except: &std::path::Path, secrets: &[&str]) {
    for file in walk(root).into_iter().filter(|f| f != except) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        for secret in secrets {
            assert!(!text.contains(secret), "{} holds {secret}", file.display());
        }
    }
}

#[test]
fn a_bedrock_stream_is_signed_by_the_host_with_the_users_aws_credentials() {
    let env = Env::new(tack!())
        .with_var("AWS_ACCESS_KEY_ID", "AKIDTACKTEST")
        .with_var("AWS_SECRET_ACCESS_KEY", "tack-test-secret-key")
        .with_var("AWS_SESSION_TOKEN", "tack-test-session-token")
        .with_var("AWS_REGION", "eu-west-1");
    env.write("a.txt", "hello\n");
    let log = env.root().join("bedrock.log");
    let Some(server) = PythonPeer::start(
        "aws-peers/bedrock_server.py",
        &[log.as_os_str()],
        &[
            ("BEDROCK_TEST_KEY_ID", "AKIDTACKTEST"),
            ("BEDROCK_TEST_SECRET", "tack-test-secret-key"),
            ("BEDROCK_TEST_REGION", "eu-west-1"),
        ],
    ) else {
        return;
    };
    env.config(json!({"providers": {"amazon-bedrock": {"base_url": server.url()}}}));
    let model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    let (out, requests) = run_logged(
        &env,
        &log,
        &[
            "--provider",
            "amazon-bedrock",
            "--model",
            model,
            "--mode",
            "json",
            "what is in a.txt?",
        ],
    );
    assert_eq!(requests.len(), 2, "{requests:?}");
    for request in &requests {
        assert_eq!(request["signature_problem"], Value::Null, "{request}");
        assert_eq!(
            request["path"],
            "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
        );
        assert_eq!(
            request["headers"]["x-amz-security-token"],
            "tack-test-session-token"
        );
    }
    // The tool result went back, with the reasoning and its signature before the call.
    let second = &requests[1]["body"]["messages"];
    assert_eq!(
        second[1]["content"][0]["reasoningContent"]["reasoningText"]["signature"], "c2lnbmVk",
        "{second}"
    );
    assert_eq!(
        second[2]["content"][0]["toolResult"]["toolUseId"],
        "tooluse_a1"
    );
    assert!(
        second[2]["content"][0]["toolResult"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("hello")),
        "{second}"
    );
    let events = json_events(&out);
    let ended = events
        .iter()
        .rev()
        .find(|e| e["type"] == "agent_end")
        .expect("agent_end");
    assert!(ended.to_string().contains("It says hello."), "{ended}");
    // Cache reads are counted, and nothing tack wrote holds the secrets.
    assert!(
        events
            .iter()
            .any(|e| e.pointer("/message/usage/cacheRead") == Some(&json!(500))),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("tack-test-secret-key"));
    assert_no_file_holds(
        env.root(),
        &log,
        &["tack-test-secret-key", "tack-test-session-token"],
    );

    // A plugin granted the request's payload may replace it: the host signs what it finally
    // sends, and the plugin sees neither the credentials nor the signature.
    let hostile = env.package(
        "hostile",
        tack_builtin::artifacts::TEST_HOSTILE,
        r#"provider_payload = "replace""#,
    );
    env.grant("hostile", r#"provider_payload = "replace""#);
    let replaced = json!({
        "inferenceConfig": {"maxTokens": 64},
        "messages": [{"role": "user", "content": [{"text": "replaced by a plugin"}]}]
    });
    env.config(json!({
        "providers": {"amazon-bedrock": {"base_url": server.url()}},
        "plugins": {"hostile": {"payload": {"replace_with": replaced.to_string()}}}
    }));
    let (_, requests) = run_logged(
        &env,
        &log,
        &[
            "--plugin",
            &hostile.display().to_string(),
            "--provider",
            "amazon-bedrock",
            "--model",
            model,
            "-p",
            "hi",
        ],
    );
    let last = requests.last().expect("a request");
    assert_eq!(last["signature_problem"], Value::Null, "{last}");
    assert_eq!(
        last["body"]["messages"][0]["content"][0]["text"],
        "replaced by a plugin"
    );
    let seen = serde_json::to_string(&env.session_lines()).unwrap_or_default();
    assert!(
        seen.contains("saw-request") && seen.contains("saw-response"),
        "{seen}"
    );
    for secret in [
        "tack-test-secret-key",
        "tack-test-session-token",
        "AKIDTACKTEST",
        "AWS4-HMAC",
    ] {
        assert!(!seen.contains(secret), "the plugin saw {secret}: {seen}");
    }
    let sent = requests.len();

    // Without credentials nothing is sent, and the error says where they are looked for.
    let bare = Env::new(tack!()).with_var("AWS_REGION", "eu-west-1");
    bare.config(json!({"providers": {"amazon-bedrock": {"base_url": server.url()}}}));
    let out = bare.run(&["--provider", "amazon-bedrock", "--model", model, "-p", "hi"]);
    assert!(!out.status.success());
    assert_eq!(logged(&log).len(), sent, "nothing more was sent");
    let listed = stdout(&bare.run(&["models", "amazon-bedrock/opus-4-6"]));
    assert!(
        listed.contains("AWS credentials, requests signed by tack for eu-west-1"),
        "{listed}"
    );
    assert!(
        stderr(&out).contains("no AWS credentials") || stdout(&out).contains("no AWS credentials"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn vertex_gets_tokens_the_host_exchanges_a_service_account_key_for_and_renews_them() {
    let env = Env::new(tack!())
        .with_var("GOOGLE_CLOUD_PROJECT", "tack-project")
        .with_var("GOOGLE_CLOUD_LOCATION", "us-central1");
    env.write("a.txt", "hello\n");
    let log = env.root().join("vertex.log");
    let key_file = env.root().join("service-account.json");
    // Tokens that live 30 s are within the host's one-minute margin at once: each request
    // renews its token, as one would mid-session.
    let Some(server) = PythonPeer::start(
        "google-peers/vertex_server.py",
        &[log.as_os_str(), key_file.as_os_str(), "30".as_ref()],
        &[],
    ) else {
        return;
    };
    let env = env.with_var("GOOGLE_APPLICATION_CREDENTIALS", &key_file);
    let base = format!(
        "{}/v1/projects/tack-project/locations/us-central1/publishers/google",
        server.url()
    );
    env.config(json!({"providers": {"google-vertex": {"base_url": base}}}));
    let (out, requests) = run_logged(
        &env,
        &log,
        &[
            "--provider",
            "google-vertex",
            "--model",
            "gemini-2.5-flash",
            "-p",
            "what is in a.txt?",
        ],
    );
    assert!(stdout(&out).contains("It says hello."), "{}", stdout(&out));
    let paths: Vec<&str> = requests
        .iter()
        .map(|r| r["path"].as_str().unwrap_or(""))
        .collect();
    let model_path = "/v1/projects/tack-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    assert_eq!(
        paths,
        ["/token", model_path, "/token", model_path],
        "{requests:?}"
    );
    for request in &requests {
        assert_eq!(request["problem"], Value::Null, "{request}");
        if request["path"] != "/token" {
            assert_eq!(request["ok"], true, "{request}");
        }
    }
    assert_eq!(
        requests[3]["authorization"],
        "Bearer ya29.tack-test-token-2"
    );
    assert_no_file_holds(env.root(), &log, &["ya29.tack-test-token"]);

    // Without a project nothing is sent, and the error says what to set.
    let bare = Env::new(tack!());
    let out = bare.run(&["--provider", "google-vertex", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("GOOGLE_CLOUD_PROJECT"),
        "{}",
        stderr(&out)
    );
    assert_eq!(logged(&log).len(), 4, "nothing more was sent");
}

#[test]
fn mistral_gets_tool_call_ids_of_nine_letters_and_digits_and_its_system_role() {
    let env = Env::new(tack!()).with_var("MISTRAL_API_KEY", "mistral-test-key");
    env.write("a.txt", "hello\n");
    let server = MockServer::replies(vec![
        openai::stream(&[
            openai::call("call_Ab1_x", "read", &json!({ "path": "a.txt" })),
            chunk(json!({}), Some("tool_calls")),
        ]),
        openai::text_reply("It says hello."),
    ]);
    let base = format!("{}/v1", server.url());
    let out = env.run(&[
        "--provider",
        "mistral",
        "--base-url",
        &base,
        "-p",
        "what is in a.txt?",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("It says hello."), "{}", stdout(&out));
    let bodies = server.json_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["model"], "devstral-medium-latest");
    assert_eq!(bodies[0]["messages"][0]["role"], "system");
    assert!(bodies[0].get("stream_options").is_none(), "{}", bodies[0]);
    let messages = bodies[1]["messages"].as_array().expect("messages");
    let call = messages
        .iter()
        .find(|m| m["role"] == "assistant")
        .map(|m| m["tool_calls"][0]["id"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    assert_eq!(call.len(), 9, "{call}");
    assert!(call.chars().all(|c| c.is_ascii_alphanumeric()), "{call}");
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("the tool result");
    assert_eq!(result["tool_call_id"], call.as_str());

    // Magistral thinks when asked to, by `prompt_mode`, and streams its thinking as chunks.
    let server = MockServer::replies(vec![openai::stream(&[
        chunk(
            json!({"content": [{"type": "thinking",
                                "thinking": [{"type": "text", "text": "Greet briefly."}]}]}),
            None,
        ),
        chunk(
            json!({"content": [{"type": "text", "text": "Bonjour."}]}),
            Some("stop"),
        ),
    ])]);
    let base = format!("{}/v1", server.url());
    let out = env.run(&[
        "--provider",
        "mistral",
        "--model",
        "magistral-medium-latest",
        "--thinking",
        "high",
        "--base-url",
        &base,
        "--mode",
        "json",
        "-p",
        "greet me",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let body = &server.json_bodies()[0];
    assert_eq!(body["prompt_mode"], "reasoning", "{body}");
    let events = stdout(&out);
    assert!(events.contains("Greet briefly."), "{events}");
    assert!(events.contains("Bonjour."), "{events}");
}

#[test]
fn a_key_saved_with_tack_login_is_sent_and_tack_logout_removes_it() {
    use std::io::Write as _;
    let env = Env::new(tack!());
    let login = |provider: &str, key: &str| {
        let mut child = env
            .command()
            .args(["login", provider])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("tack login");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(key.as_bytes())
            .expect("the key");
        child.wait_with_output().expect("login")
    };
    let out = login("groq", "gsk-saved-key\n");
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("saved GROQ_API_KEY"),
        "{}",
        stderr(&out)
    );
    let auth = std::fs::read_to_string(env.home().join("auth.json")).expect("auth.json");
    assert!(auth.contains("gsk-saved-key"), "{auth}");

    let server = MockServer::always(openai::text_reply("from groq"));
    let base = format!("{}/v1", server.url());
    let out = env.run(&["--provider", "groq", "--base-url", &base, "-p", "hi"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let head = server.requests()[0].head.to_ascii_lowercase();
    assert!(
        head.contains("authorization: bearer gsk-saved-key\r\n"),
        "{head}"
    );

    // Bedrock, whose requests the host signs, also takes an API key of its own kind; a local
    // server preset takes none, and a provider that does not exist none either.
    let out = login("amazon-bedrock", "bedrock-api-key\n");
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("saved AWS_BEARER_TOKEN_BEDROCK"),
        "{}",
        stderr(&out)
    );
    let out = login("ollama", "x\n");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("takes no API key"),
        "{}",
        stderr(&out)
    );
    let out = login("no-such-provider", "x\n");
    assert!(
        stderr(&out).contains("unknown provider 'no-such-provider'"),
        "{}",
        stderr(&out)
    );

    // A key with no provider to go to is refused rather than dropped.
    let out = env.run(&["--api-key", "sk-nowhere", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--api-key needs --provider"),
        "{}",
        stderr(&out)
    );

    let out = env.run(&["logout", "groq"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let auth = std::fs::read_to_string(env.home().join("auth.json")).expect("auth.json");
    assert!(!auth.contains("gsk-saved-key"), "{auth}");
}

/// Even a trusted project cannot point Bedrock, whose requests carry the user's AWS
/// credentials, at a server of its choosing; its other provider settings still apply.
#[test]
fn a_trusted_projects_config_does_not_choose_where_cloud_credentials_go() {
    let env = Env::new(tack!()).with_var("AWS_REGION", "eu-west-1");
    env.write(
        ".tack/config.toml",
        "[providers.amazon-bedrock]\nbase_url = \"http://127.0.0.1:9/decoy\"\n\n\
         [providers.openai-codex]\nbase_url = \"http://127.0.0.1:9/chatgpt-decoy\"\n\n\
         [providers.groq]\nbase_url = \"http://127.0.0.1:9/groq\"\n",
    );
    let out = env.run(&["--trust", "models", "bedrock/opus-4-6"]);
    let listed = stdout(&out);
    assert!(
        listed.contains(
            "amazon-bedrock (Amazon Bedrock) — https://bedrock-runtime.eu-west-1.amazonaws.com"
        ),
        "{listed}"
    );
    assert!(!listed.contains("decoy"), "{listed}");
    // Nor where a ChatGPT login's token goes.
    let listed = stdout(&env.run(&["--trust", "models", "openai-codex/gpt-5.4"]));
    assert!(
        listed.contains("openai-codex (ChatGPT Plus/Pro (Codex subscription)) — https://chatgpt.com/backend-api/codex"),
        "{listed}"
    );
    assert!(!listed.contains("decoy"), "{listed}");
    let listed = stdout(&env.run(&["--trust", "models", "groq/gpt-oss-120b"]));
    assert!(listed.contains("http://127.0.0.1:9/groq"), "{listed}");
}

/// A ChatGPT access token: a JWT whose claim names the account, numbered so the test can tell
/// which one a request carried.
fn chatgpt_jwt(n: usize) -> String {
    use base64::Engine as _;
    let claims = json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-7"}, "n": n});
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    format!(
        "{}.{}.sig",
        b64.encode(br#"{"alg":"none"}"#),
        b64.encode(claims.to_string())
    )
}

/// A plain HTTP/1.1 GET, as a browser would make it: the status line, and the whole answer.
fn browser_get(address: &str) -> (String, String) {
    use std::io::{Read as _, Write as _};
    let url = url::Url::parse(address).expect("url");
    let host = url.host_str().expect("host");
    let port = url.port().expect("port");
    let mut stream = std::net::TcpStream::connect((host, port)).expect("connect");
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    };
    write!(
        stream,
        "GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    let status = answer.lines().next().unwrap_or_default().to_string();
    (status, answer)
}

/// `tack login openai-codex` through its browser step (the test plays the browser: it opens the
/// sign-in address on the loopback issuer and follows its redirect back to tack), a PKCE code
/// exchange the issuer checks, then a run whose login has expired: the host refreshes it before
/// each request that needs it (each refresh token used once), the requests carry the newest
/// token and the account, and the plugin and session never see either token.
#[test]
fn a_chatgpt_login_signs_in_in_the_browser_and_is_refreshed_when_it_expires() {
    use sha2::Digest as _;
    use std::io::BufRead as _;
    use std::sync::{Arc, Mutex};
    let challenge: Arc<Mutex<Option<String>>> = Arc::default();
    let responses = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let server = {
        let challenge = challenge.clone();
        let responses = responses.clone();
        MockServer::routed(move |_, request| {
            let line = request.head.lines().next().unwrap_or_default().to_string();
            let target = line.split(' ').nth(1).unwrap_or_default();
            let url = url::Url::parse(&format!("http://issuer{target}")).expect("target");
            let query: std::collections::HashMap<String, String> =
                url.query_pairs().into_owned().collect();
            match url.path() {
                "/oauth/authorize" => {
                    *challenge.lock().unwrap() = query.get("code_challenge").cloned();
                    let back = format!(
                        "{}?code=code-1&state={}",
                        query["redirect_uri"], query["state"]
                    );
                    Reply::redirect("302 Found", &back)
                }
                "/oauth/token" => {
                    let form: std::collections::HashMap<String, String> =
                        url::form_urlencoded::parse(&request.body)
                            .into_owned()
                            .collect();
                    let (n, expires_in) = match form["grant_type"].as_str() {
                        "authorization_code" => {
                            let verifier = &form["code_verifier"];
                            let made = base64::Engine::encode(
                                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                                sha2::Sha256::digest(verifier.as_bytes()),
                            );
                            if form["code"] != "code-1"
                                || Some(made) != *challenge.lock().unwrap()
                                || form["client_id"] != "app_EMoamEEZ73f0CkXaXp7hrann"
                            {
                                return Reply::json(
                                    "400 Bad Request",
                                    r#"{"error":"invalid_grant"}"#,
                                );
                            }
                            // Already expiring: the first request must refresh it.
                            (1, 30)
                        }
                        "refresh_token" if form["refresh_token"] == "rt-1" => (2, 30),
                        "refresh_token" if form["refresh_token"] == "rt-2" => (3, 3600),
                        _ => return Reply::json("400 Bad Request", r#"{"error":"invalid_grant"}"#),
                    };
                    let answer = json!({"access_token": chatgpt_jwt(n),
                                        "refresh_token": format!("rt-{n}"),
                                        "expires_in": expires_in, "token_type": "Bearer"});
                    Reply::json("200 OK", answer.to_string())
                }
                "/codex/responses" => {
                    use tack_test_support::openai_responses;
                    match responses.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
                        0 => openai_responses::tool_reply(
                            "c1",
                            "read",
                            &json!({"path": "notes.txt"}),
                        ),
                        _ => openai_responses::text_reply("the notes say hello"),
                    }
                }
                _ => Reply::json("404 Not Found", "{}"),
            }
        })
    };
    let env = Env::new(tack!())
        .with_var("TACK_CHATGPT_ISSUER", server.url())
        .with_var("TACK_LOGIN_CALLBACK_PORT", "0");
    env.write("notes.txt", "hello");

    // Not signed in: the run says how to sign in, and nothing is sent.
    let base = format!("{}/codex", server.url());
    let out = env.run(&[
        "--provider",
        "openai-codex",
        "--base-url",
        &base,
        "-p",
        "hi",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("tack login openai-codex"),
        "{}",
        stderr(&out)
    );

    let mut login = env
        .command()
        .args(["login", "openai-codex"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("tack login");
    let mut said = String::new();
    let mut lines = std::io::BufReader::new(login.stderr.take().expect("stderr")).lines();
    let address = loop {
        let line = lines
            .next()
            .expect("tack printed the sign-in address")
            .expect("line");
        said.push_str(&line);
        said.push('\n');
        if let Some(at) = line.find("http") {
            break line[at..].trim().to_string();
        }
    };
    assert!(
        address.starts_with(&format!("{}/oauth/authorize?", server.url())),
        "{said}"
    );
    let (status, answer) = browser_get(&address);
    assert!(status.contains("302"), "{answer}");
    let back = answer
        .lines()
        .find_map(|line| {
            line.strip_prefix("location: ")
                .or_else(|| line.strip_prefix("Location: "))
        })
        .expect("a redirect back")
        .trim()
        .to_string();
    assert!(back.starts_with("http://localhost:"), "{back}");
    // A visit with another sign-in's state is turned away, and the login goes on waiting.
    let stale = back.replace("state=", "state=stale");
    assert!(browser_get(&stale).0.contains("400"));
    let (status, page) = browser_get(&back);
    assert!(status.contains("200"), "{page}");
    assert!(page.contains("tack has your answer"), "{page}");
    for line in lines {
        said.push_str(&line.expect("line"));
        said.push('\n');
    }
    assert!(login.wait().expect("login").success(), "{said}");
    assert!(said.contains("Signed in to ChatGPT"), "{said}");
    let auth_path = env.home().join("auth.json");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&auth_path).expect("auth.json")).unwrap();
    assert_eq!(stored["openai-codex"]["type"], "oauth");
    assert_eq!(stored["openai-codex"]["refresh"], "rt-1");
    assert_eq!(stored["openai-codex"]["accountId"], "acct-7");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&auth_path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let listed = stdout(&env.run(&["models", "openai-codex"]));
    assert!(listed.contains("ChatGPT login (signed in)"), "{listed}");

    let out = env.run(&[
        "--provider",
        "openai-codex",
        "--base-url",
        &base,
        "--thinking",
        "high",
        "-p",
        "what do my notes say?",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stdout(&out).contains("the notes say hello"),
        "{}",
        stdout(&out)
    );
    let requests = server.requests();
    let refreshes: Vec<String> = requests
        .iter()
        .filter(|r| r.head.starts_with("POST /oauth/token "))
        .map(|r| r.body_text())
        .collect();
    assert_eq!(refreshes.len(), 3, "{refreshes:?}"); // the sign-in, then two refreshes
    assert!(
        refreshes[1].contains("refresh_token=rt-1"),
        "{}",
        refreshes[1]
    );
    assert!(
        refreshes[2].contains("refresh_token=rt-2"),
        "{}",
        refreshes[2]
    );
    let calls: Vec<&Request> = requests
        .iter()
        .filter(|r| r.head.starts_with("POST /codex/responses "))
        .collect();
    assert_eq!(calls.len(), 2);
    for (call, n) in calls.iter().zip([2, 3]) {
        let head = call.head.to_ascii_lowercase();
        let token = chatgpt_jwt(n).to_ascii_lowercase();
        assert!(
            head.contains(&format!("authorization: bearer {token}\r\n")),
            "{head}"
        );
        assert!(head.contains("chatgpt-account-id: acct-7\r\n"), "{head}");
        assert!(
            head.contains("openai-beta: responses=experimental\r\n"),
            "{head}"
        );
        assert!(head.contains("originator: tack\r\n"), "{head}");
        let body = call.json();
        assert_eq!(body["store"], false);
        assert!(body.get("max_output_tokens").is_none(), "{body}");
        assert!(body["instructions"].as_str().is_some_and(|i| !i.is_empty()));
        // Its models all reason, catalogued by the plugin or not.
        assert_eq!(
            body["include"],
            json!(["reasoning.encrypted_content"]),
            "{body}"
        );
        assert_eq!(body["reasoning"]["effort"], "high", "{body}");
    }
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&auth_path).expect("auth.json")).unwrap();
    assert_eq!(stored["openai-codex"]["refresh"], "rt-3");
    assert_eq!(stored["openai-codex"]["access"], chatgpt_jwt(3));
    // No token reached the session.
    let sessions = env.sessions_text();
    for n in 1..=3 {
        assert!(
            !sessions.contains(&chatgpt_jwt(n)),
            "token {n} in a session"
        );
    }
    assert!(!sessions.contains("rt-"), "a refresh token in a session");

    let out = env.run(&["logout", "openai-codex"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let stored = std::fs::read_to_string(&auth_path).expect("auth.json");
    assert!(!stored.contains("openai-codex"), "{stored}");
}
