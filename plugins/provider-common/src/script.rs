//! A long scripted session in the host's message format, for the providers' tests and benches
//! (feature `test-support`): tool loops with thinking, text, one or two calls per turn, results
//! with text and now and then an image, and a user message every few turns; now and then a
//! call without a result (an aborted turn), a result without a call and a message of a role
//! providers do not see.

use serde_json::{json, Value};

use crate::cache::Kept;
use crate::kit::{self, HttpProvider};

/// How the provider under test names what it produced: the assistant messages carry these, so
/// that their opaque data (signatures, reasoning items, item ids) is replayed.
pub struct Script {
    pub provider: &'static str,
    pub model: &'static str,
    /// The thinking block's signature of turn `n`, as the provider's decoder stores it.
    pub signature: fn(usize) -> String,
    /// The id of call `k` of turn `n`, as the provider's decoder stores it.
    pub call_id: fn(usize, usize) -> String,
    /// Another model of the provider, for a switch in the middle of the session.
    pub other_model: &'static str,
}

impl Script {
    /// The messages of a session of `turns` tool round trips, oldest first, and where each
    /// turn's request ends: the request of turn `t` (0: the first prompt) holds
    /// `messages[..ends[t]]`.
    pub fn session(&self, turns: usize) -> (Vec<Value>, Vec<usize>) {
        let mut messages = vec![user(
            0,
            "Refactor the parser module and keep the tests green.",
        )];
        let mut ends = vec![1];
        for turn in 1..=turns {
            let calls = if turn.is_multiple_of(3) { 2 } else { 1 };
            let mut content = vec![json!({
                "type": "thinking",
                "thinking": format!("Turn {turn}: the next step is to look at file {turn}."),
                "signature": (self.signature)(turn),
            })];
            if turn.is_multiple_of(2) {
                content.push(json!({"type": "text", "text": format!("Checking src/f{turn}.rs.")}));
            }
            for k in 0..calls {
                content.push(json!({
                    "type": "toolCall",
                    "id": (self.call_id)(turn, k),
                    "name": if k == 0 { "read" } else { "bash" },
                    "arguments": {"path": format!("src/f{turn}.rs"), "offset": k, "limit": 200},
                }));
            }
            messages.push(json!({
                "role": "assistant",
                "content": content,
                "api": "test",
                "provider": self.provider,
                "model": self.model,
                "usage": {"input": 1000 + turn, "output": 50, "cacheRead": 0, "cacheWrite": 0,
                          "totalTokens": 1050 + turn},
                "stopReason": "toolUse",
                "timestamp": 1_700_000_000_000u64 + turn as u64,
            }));
            for k in 0..calls {
                if turn.is_multiple_of(37) && k == 0 {
                    continue;
                }
                let mut blocks = vec![json!({"type": "text", "text": file_text(turn, k)})];
                if turn.is_multiple_of(25) {
                    blocks.push(json!({"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==",
                                       "mimeType": "image/png"}));
                }
                messages.push(json!({
                    "role": "toolResult",
                    "toolCallId": (self.call_id)(turn, k),
                    "toolName": if k == 0 { "read" } else { "bash" },
                    "content": blocks,
                    "isError": turn.is_multiple_of(17),
                    "timestamp": 1_700_000_000_500u64 + turn as u64,
                }));
            }
            if turn.is_multiple_of(41) {
                messages.push(
                    json!({"role": "toolResult", "toolCallId": format!("stray_{turn}"),
                                     "toolName": "read", "content": "late"}),
                );
            }
            if turn.is_multiple_of(13) {
                messages.push(
                    json!({"role": "custom", "customType": "note", "content": "n",
                                     "display": true}),
                );
            }
            if turn.is_multiple_of(10) {
                messages.push(user(
                    turn,
                    &format!("Good so far; after turn {turn} go on."),
                ));
            }
            ends.push(messages.len());
        }
        (messages, ends)
    }
}

/// The request's `messages` text for `messages`, as the host serializes it.
pub fn to_json(messages: &[Value]) -> String {
    Value::Array(messages.to_vec()).to_string()
}

fn user(turn: usize, text: &str) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    if turn.is_multiple_of(50) && turn > 0 {
        content.push(
            json!({"type": "image", "data": "R0lGODlhAQABAAAAACw=", "mimeType": "image/gif"}),
        );
    }
    json!({"role": "user", "content": content, "timestamp": 1_700_000_000_000u64 + turn as u64})
}

/// About 1.5 KB of source-like text with quotes, escapes and non-ASCII.
fn file_text(turn: usize, k: usize) -> String {
    (0..30)
        .map(|line| {
            format!("{line:4}\tfn item_{turn}_{k}_{line}(x: &str) -> String {{ format!(\"\\\"{{x}}\\\" → ok\") }}\n")
        })
        .collect()
}

/// Chat Completions: thinking is not replayed, ids are plain.
pub const OPENAI: Script = Script {
    provider: "openai",
    model: "o4-mini",
    signature: |turn| format!("sig{turn}"),
    call_id: |turn, k| format!("call_{turn}_{k}"),
    other_model: "gpt-4.1",
};

/// Responses: the signature is the whole reasoning item, the id joins call and item ids.
pub const OPENAI_RESPONSES: Script = Script {
    provider: "openai-responses",
    model: "o4-mini",
    signature: |turn| {
        json!({"type": "reasoning", "id": format!("rs_{turn}"),
               "summary": [{"type": "summary_text", "text": format!("Step {turn}.")}],
               "encrypted_content": format!("gAAAAB{turn}xyzzy")})
        .to_string()
    },
    call_id: |turn, k| format!("call_{turn}_{k}|fc_{turn}_{k}"),
    other_model: "gpt-5",
};

pub const ANTHROPIC: Script = Script {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    signature: |turn| format!("c2lnbmF0dXJl{turn}=="),
    call_id: |turn, k| format!("toolu_{turn}_{k}"),
    other_model: "claude-opus-4-1",
};

pub const GOOGLE: Script = Script {
    provider: "google",
    model: "gemini-2.5-flash",
    signature: |turn| format!("Z2VtaW5p{turn}"),
    call_id: |turn, k| format!("call_{turn}_{k}"),
    other_model: "gemini-3-pro-preview",
};

/// The request a session of `script`'s provider sends with `messages`.
pub fn request(script: &Script, messages: String) -> tack_sdk::ProviderRequest {
    let tool = |name: &str, description: &str| {
        tack_sdk::ToolSpec {
        name: name.into(),
        label: name.into(),
        description: description.into(),
        parameters: r#"{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}"#.into(),
        mode: tack_sdk::ExecutionMode::Parallel,
        prompt_snippet: None,
    }
    };
    tack_sdk::ProviderRequest {
        provider: script.provider.into(),
        model: script.model.into(),
        system_prompt: "You are a coding agent. Be terse.".into(),
        messages,
        tools: vec![
            tool("read", "Reads a file"),
            tool("bash", "Runs a command"),
            tool("edit", "Edits a file"),
            tool("write", "Writes a file"),
        ],
        max_tokens: Some(8192),
        reasoning: tack_sdk::ReasoningLevel::Medium,
        options: "{}".into(),
    }
}

/// A plugin's `build_with`: a request built with the state its instance keeps.
pub type CachedBuild<F> = dyn Fn(&mut Kept<F>, tack_sdk::ProviderRequest, Option<u32>) -> Vec<u8>;

/// A provider's request builders: with the state its instance keeps, and from scratch.
pub struct Builders<'a, F> {
    /// The plugin's `cache_key`: what a message's conversion depends on besides the message.
    pub key: fn(&str, &str) -> String,
    /// The plugin's `build_with`, giving the body it returns: built with the state the
    /// previous request left, `after` as the plugin's `expect-messages-after` agreed.
    pub cached: &'a CachedBuild<F>,
    pub fresh: &'a dyn Fn(tack_sdk::ProviderRequest) -> Vec<u8>,
}

/// Builds every turn of a session of `turns` round trips with the cache and from scratch and
/// asserts the bodies are the same bytes, turn after turn and after what changes the history:
/// a `context` hook's rewrite of one turn's view, a model switch, a branch switch (back to the
/// middle, then on another way) and a compaction (a summary and the latest turns). Also asserts
/// the cache reused what it should, so a cache that converts everything anew does not pass.
///
/// The session runs twice: with whole conversations, then as a host speaking
/// `tack:provider/incremental` sends them, only the messages after those the cache holds.
pub fn assert_cache_matches_fresh<F: Clone>(
    script: &Script,
    turns: usize,
    builders: Builders<'_, F>,
) {
    let mut cache = Kept::default();
    for incremental in [false, true] {
        run_session(script, turns, &builders, &mut cache, incremental);
    }
}

/// [`assert_cache_matches_fresh`] for a provider of the kit: its own cache against fresh
/// instances.
#[allow(clippy::expect_used)] // A panic is how a test reports a failed build.
pub fn assert_kit_matches_fresh<P: HttpProvider>(script: &Script, turns: usize) {
    assert_cache_matches_fresh(
        script,
        turns,
        Builders {
            key: |provider, model| P::cache_key(provider, P::model_id(model)),
            cached: &|cache, request, after| {
                kit::build(&mut P::default(), cache, request, after)
                    .expect("cached")
                    .body
            },
            fresh: &|request| kit::build_fresh::<P>(&request).expect("fresh").body,
        },
    );
}

/// [`bench_long_session`] for a provider of the kit.
pub fn bench_kit<P: HttpProvider>(c: &mut criterion::Criterion, group: &str, script: &Script) {
    bench_long_session(
        c,
        group,
        script,
        |cache: &mut Kept<P::Fragment>, request, after| {
            kit::build(&mut P::default(), cache, request, after)
        },
    );
}

/// A provider's whole `long_session` bench: [`bench_kit`] over the script `$script` (one of this
/// module's constants) for `$provider`, under the bench's package name.
#[macro_export]
macro_rules! bench_long_session {
    ($provider:ty, $script:ident) => {
        fn long_session(c: &mut $crate::__criterion::Criterion) {
            let script = &$crate::script::$script;
            $crate::script::bench_kit::<$provider>(c, env!("CARGO_PKG_NAME"), script);
        }
        $crate::__criterion::criterion_group!(benches, long_session);
        $crate::__criterion::criterion_main!(benches);
    };
}

fn run_session<F: Clone>(
    script: &Script,
    turns: usize,
    builders: &Builders<'_, F>,
    cache: &mut Kept<F>,
    incremental: bool,
) {
    let Builders { key, cached, fresh } = builders;
    let (messages, ends) = script.session(turns + 10);
    let mode = if incremental { "incremental" } else { "whole" };
    let mut sent: Vec<Value> = Vec::new();
    let mut left_out = 0;
    // Over the turns that only add messages: bytes repeated from the previous body, and sent.
    let (mut repeated, mut sent_bytes) = (0, 0);
    let mut check = |label: &str, messages: &[Value], model: &str, reused: Option<usize>| {
        let label = format!("{mode}: {label}");
        let mut request = request(script, to_json(messages));
        request.model = model.into();
        let expected = fresh(request.clone());
        let kept = sent
            .iter()
            .zip(messages)
            .take_while(|(old, new)| old == new)
            .count() as u32;
        // As a host speaking `tack:provider` asks, holding the previous body; an older host
        // (the whole mode) does not ask.
        let after = if incremental {
            let held = cache.body.bytes().len() as u64;
            cache.expect(&key(&request.provider, model), kept, held);
            cache.take_after()
        } else {
            None
        };
        if let Some(kept) = after {
            request.messages = to_json(&messages[kept as usize..]);
            left_out += 1;
        }
        let part = cached(cache, request, after);
        let prefix = cache.body.prefix();
        let body = cache.body.bytes().to_vec();
        assert!(
            body[prefix..] == part[..],
            "{label}: the returned part is not what follows the repeated prefix"
        );
        let got = cache.messages.reused();
        if after.is_some() && label.contains(": turn ") {
            repeated += prefix;
            sent_bytes += body.len();
        }
        sent = messages.to_vec();
        assert!(
            body == expected,
            "{label}: the cached body differs from a fresh one:\n{}\n{}",
            String::from_utf8_lossy(&body),
            String::from_utf8_lossy(&expected)
        );
        if let Some(reused) = reused {
            assert_eq!(got, reused, "{label}: messages reused");
        }
    };
    let model = script.model;
    for turn in 0..=turns {
        let reused = turn.checked_sub(1).map(|before| ends[before]);
        check(
            &format!("turn {turn}"),
            &messages[..ends[turn]],
            model,
            reused,
        );
    }
    let all = &messages[..ends[turns]];

    let mut rewritten = all.to_vec();
    rewritten[5]["content"] = json!([{"type": "text", "text": "[elided by a context hook]"}]);
    check("context hook rewrite", &rewritten, model, Some(5));
    check("the turn after the rewrite", all, model, Some(5));

    // Chat Completions converts messages the same for every model, so its cache may keep them.
    check("model switch", all, script.other_model, None);
    check(
        "the turn after the switch",
        all,
        script.other_model,
        Some(all.len()),
    );
    check("switch back", all, model, None);

    let middle = turns / 2;
    let mut branch = messages[..ends[middle]].to_vec();
    branch.push(user(middle, "Go back and try another way."));
    check("branch switch", &branch, model, Some(ends[middle]));
    for turn in middle + 1..middle + 10 {
        let before = branch.len();
        branch.extend_from_slice(&messages[ends[turn - 1]..ends[turn]]);
        check(&format!("branch turn {turn}"), &branch, model, Some(before));
    }

    let mut compacted = vec![user(
        0,
        "Summary of the session so far: the parser is half done.",
    )];
    compacted.extend_from_slice(&messages[ends[turns - 3]..ends[turns]]);
    check("compaction", &compacted, model, Some(0));
    for turn in turns + 1..=turns + 10 {
        let before = compacted.len();
        compacted.extend_from_slice(&messages[ends[turn - 1]..ends[turn]]);
        check(
            &format!("turn {turn} after compaction"),
            &compacted,
            model,
            Some(before),
        );
    }
    // Every turn but the first could leave out what the cache holds.
    assert!(
        !incremental || left_out >= turns,
        "{left_out} incremental requests"
    );
    // And most of each body came from the one before.
    assert!(
        !incremental || repeated * 10 >= sent_bytes * 8,
        "{repeated} of {sent_bytes} bytes repeated"
    );
}

/// The providers' `long_session` bench: `build` (a plugin's `request::build_with`) at turns 50,
/// 400 and 800 of `script`'s session: from scratch, with the cache the turn before left
/// (`incremental`), and with that cache and only the messages it does not hold, as a host that
/// speaks `tack:provider` sends them (`only_new`).
#[allow(clippy::expect_used)] // A panic is how a bench reports a failed build.
pub fn bench_long_session<C, T, E>(
    c: &mut criterion::Criterion,
    group: &str,
    script: &Script,
    build: fn(&mut C, tack_sdk::ProviderRequest, Option<u32>) -> Result<T, E>,
) where
    C: Default + Clone,
    E: std::fmt::Debug,
{
    use criterion::BatchSize;
    let (messages, ends) = script.session(800);
    let mut group = c.benchmark_group(group);
    group.sample_size(20);
    for turn in [50, 400, 800] {
        let request = request(script, to_json(&messages[..ends[turn]]));
        group.bench_function(format!("from_scratch/turn_{turn}"), |b| {
            b.iter_batched(
                || request.clone(),
                |request| build(&mut C::default(), request, None).expect("builds"),
                BatchSize::LargeInput,
            )
        });
        // The plugin's cache as the turn before left it.
        let mut warm = C::default();
        let before = self::request(script, to_json(&messages[..ends[turn - 1]]));
        build(&mut warm, before, None).expect("builds");
        group.bench_function(format!("incremental/turn_{turn}"), |b| {
            b.iter_batched(
                || (warm.clone(), request.clone()),
                |(mut cache, request)| {
                    let call = build(&mut cache, request, None).expect("builds");
                    (cache, call)
                },
                BatchSize::LargeInput,
            )
        });
        let held = ends[turn - 1];
        let only_new = self::request(script, to_json(&messages[held..ends[turn]]));
        group.bench_function(format!("only_new/turn_{turn}"), |b| {
            b.iter_batched(
                || (warm.clone(), only_new.clone()),
                |(mut cache, request)| {
                    let call = build(&mut cache, request, Some(held as u32)).expect("builds");
                    (cache, call)
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}
