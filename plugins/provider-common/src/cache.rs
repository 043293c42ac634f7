//! The conversation's converted form, kept across turns in the provider's instance.
//!
//! The host sends the whole conversation on every turn, and a plugin instance serves the turns
//! of a session one after another (the host pools instances and reuses the latest). Converting
//! every message again made each turn cost more than the one before; this cache keeps each
//! message's converted form (`F`, the provider's pre-serialized bytes) and converts only what
//! is new.
//!
//! A message is reused when it is at the same position with the same JSON text: the cache keeps
//! the previous request's `messages` text and where each message ended in it, so the messages
//! that end within the common prefix of the old and the new text are unchanged. Anything that
//! changes a message (a `context` hook's rewrite, compaction, a branch switch) therefore
//! invalidates from the first changed byte on; a change of what conversion depends on (the
//! model, for replayed signatures) is the `key` and invalidates everything. Comparing the text
//! itself rather than a hash of it costs a `memcmp` and leaves no room for collisions.
//!
//! A host that speaks `tack:provider@0.1.0` skips the comparison: it sends only the messages
//! after those it knows the instance holds ([`Messages::After`]), and the cache appends them to
//! the text it keeps, so either kind of request can follow the other.
//!
//! Pairing tool calls with results depends on what follows a message, so it runs every turn,
//! over what the cache kept of each message (its role and call ids), not over the messages.

use std::borrow::Cow;

use tack_sdk::ProviderError;

use crate::body::Body;
use crate::unified::{self, Message, Part, ToolResult, WireMessage, MISSING_RESULT};

/// What a provider's instance keeps from one request to the next: the conversation converted,
/// and the body (see [`Body`]).
#[derive(Clone, Debug)]
pub struct Kept<F> {
    pub messages: MessageCache<F>,
    pub body: Body,
    /// Set by [`expect`](Self::expect): the next request holds only the messages after this
    /// many of the previous one.
    after: Option<u32>,
}

impl<F> Default for Kept<F> {
    fn default() -> Self {
        Self {
            messages: MessageCache::default(),
            body: Body::default(),
            after: None,
        }
    }
}

impl<F: Clone> Kept<F> {
    /// The plugin's answer to `expect-messages-after(kept, ..., held_body)`, for conversions
    /// under `key`: whether the next request may carry only the messages after the first `kept`.
    pub fn expect(&mut self, key: &str, kept: u32, held_body: u64) -> bool {
        self.body.expect_held(held_body);
        let holds = self.messages.holds(key, kept as usize);
        // With nothing kept the host sends the whole conversation, which the prefix comparison
        // reads (equal messages the host made anew, as a context hook's, are still reused).
        self.after = (holds && kept > 0).then_some(kept);
        holds
    }

    /// What the latest [`expect`](Self::expect) agreed on, for the request that follows it
    /// (`None`: that request holds the whole conversation).
    pub fn take_after(&mut self) -> Option<u32> {
        self.after.take()
    }

    /// The plugin's answer to `body-prefix`.
    pub fn body_prefix(&self) -> u64 {
        self.body.prefix() as u64
    }
}

/// The provider's converted messages of the previous request, and that request's text.
#[derive(Clone, Debug)]
pub struct MessageCache<F> {
    key: String,
    text: String,
    seen: Vec<Seen<F>>,
    reused: usize,
}

impl<F> Default for MessageCache<F> {
    fn default() -> Self {
        Self {
            key: String::new(),
            text: String::new(),
            seen: Vec::new(),
            reused: 0,
        }
    }
}

#[derive(Clone, Debug)]
struct Seen<F> {
    /// Where the message's JSON ends in `text`.
    end: usize,
    kind: Kind<F>,
}

#[derive(Clone, Debug)]
enum Kind<F> {
    /// A role providers do not see.
    Skipped,
    User(F),
    /// With its tool calls: (id, tool name).
    Assistant(F, Vec<(String, String)>),
    /// With the id of the call it answers, and which call of the assistant message before it
    /// that is, when exactly one has that id (found once, at conversion, so that pairing on
    /// every turn compares indices rather than the ids, each a cache miss away at turn 800).
    ToolResult(F, String, Option<usize>),
}

/// The messages a request carries.
#[derive(Clone, Debug)]
pub enum Messages {
    /// The whole conversation, as a JSON array.
    All(String),
    /// The JSON array of the messages after the first `kept` of the previous request, which
    /// the host knows this instance holds (it asked [`MessageCache::holds`] first).
    After { kept: usize, json: String },
}

impl Messages {
    /// A request's `messages`: the messages after the first `kept` when the plugin answered
    /// `expect-messages-after(kept, ..)` with true before this request, else all of them.
    pub fn of(json: String, after: Option<u32>) -> Self {
        match after {
            Some(kept) => Messages::After {
                kept: kept as usize,
                json,
            },
            None => Messages::All(json),
        }
    }
}

impl From<String> for Messages {
    fn from(json: String) -> Self {
        Messages::All(json)
    }
}

/// Which role a converted message has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
}

/// One message of the request, converted: every tool call is followed by exactly one result
/// (see [`unified::parse_messages`]); a result added for a call without one is converted anew.
#[derive(Debug)]
pub struct Converted<'a, F: Clone> {
    pub role: Role,
    pub fragment: Cow<'a, F>,
}

impl<F: Clone> MessageCache<F> {
    /// The request's messages, converted by `convert` where the cache had no converted form of
    /// them. `key` names everything `convert` depends on besides the message.
    pub fn update(
        &mut self,
        key: &str,
        messages: impl Into<Messages>,
        convert: impl Fn(&Message) -> Result<F, ProviderError>,
    ) -> Result<Vec<Converted<'_, F>>, ProviderError> {
        match messages.into() {
            Messages::All(messages) => {
                if self.key != key {
                    self.seen.clear();
                    key.clone_into(&mut self.key);
                }
                let common = common_prefix(self.text.as_bytes(), messages.as_bytes());
                let keep = self.seen.partition_point(|seen| seen.end <= common);
                self.seen.truncate(keep);
                self.reused = keep;
                self.text = messages;
            }
            Messages::After { kept, json } => {
                if !self.holds(key, kept) {
                    let held = if self.key == key { self.seen.len() } else { 0 };
                    self.seen.clear();
                    self.text.clear();
                    return Err(unified::malformed(format!(
                        "the request leaves out the first {kept} messages, but this instance \
                         holds {held}"
                    )));
                }
                self.reused = kept;
                self.splice_after(kept, json);
            }
        }
        if let Err(error) = self.convert_rest(&convert) {
            // The full parse names the fault the way a request without the cache would.
            let error = unified::parse_messages(&self.text).err().unwrap_or(error);
            self.seen.clear();
            self.text.clear();
            return Err(error);
        }
        pair(&self.seen, &convert)
    }

    /// How many messages the latest [`update`](Self::update) took from the cache.
    pub fn reused(&self) -> usize {
        self.reused
    }

    /// Whether the first `kept` messages of the previous request are here, converted under
    /// `key`: then the next request may carry only the messages after them.
    pub fn holds(&self, key: &str, kept: usize) -> bool {
        self.key == key && kept <= self.seen.len()
    }

    /// Makes the kept text that of the whole conversation again: the first `kept` messages,
    /// then the ones in `json`, so [`convert_rest`](Self::convert_rest) reads on from the last
    /// kept message and the next whole request compares with the right text.
    fn splice_after(&mut self, kept: usize, json: String) {
        let Some(cut) = kept.checked_sub(1).map(|last| self.seen[last].end) else {
            self.seen.clear();
            self.text = json;
            return;
        };
        self.seen.truncate(kept);
        self.text.truncate(cut);
        let rest = json.trim_start();
        // Not an array: left as it is, for the parse to refuse.
        let Some(rest) = rest.strip_prefix('[') else {
            self.text.push(',');
            self.text.push_str(rest);
            return;
        };
        if !rest.trim_start().starts_with(']') {
            self.text.push(',');
        }
        self.text.push_str(rest);
    }

    /// Parses and converts the messages after the kept ones. The array's punctuation is read
    /// here, each message by serde, so that each message's end is known.
    fn convert_rest(
        &mut self,
        convert: &impl Fn(&Message) -> Result<F, ProviderError>,
    ) -> Result<(), ProviderError> {
        let text = self.text.as_str();
        let bytes = text.as_bytes();
        let (mut at, mut first) = match self.seen.last() {
            Some(seen) => (seen.end, false),
            None => {
                let at = skip_whitespace(bytes, 0);
                if bytes.get(at) != Some(&b'[') {
                    return Err(unified::malformed("expected an array"));
                }
                (at + 1, true)
            }
        };
        loop {
            at = skip_whitespace(bytes, at);
            match bytes.get(at) {
                Some(b']') => break,
                Some(b',') if !first => at = skip_whitespace(bytes, at + 1),
                _ if first => {}
                _ => return Err(unified::malformed("expected `,` or `]`")),
            }
            first = false;
            let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter();
            let wire: WireMessage = match stream.next() {
                Some(Ok(wire)) => wire,
                Some(Err(e)) => return Err(unified::malformed(e)),
                None => return Err(unified::malformed("the array is not closed")),
            };
            at += stream.byte_offset();
            let kind = match wire.into_message() {
                None => Kind::Skipped,
                Some(message) => {
                    let fragment = convert(&message)?;
                    match message {
                        Message::User(_) => Kind::User(fragment),
                        Message::Assistant(assistant) => {
                            let calls = assistant
                                .content
                                .into_iter()
                                .filter_map(|part| match part {
                                    unified::AssistantPart::ToolCall { id, name, .. } => {
                                        Some((id, name))
                                    }
                                    _ => None,
                                })
                                .collect();
                            Kind::Assistant(fragment, calls)
                        }
                        Message::ToolResult(result) => {
                            let call = self.answered_call(&result.call_id);
                            Kind::ToolResult(fragment, result.call_id, call)
                        }
                    }
                }
            };
            self.seen.push(Seen { end: at, kind });
        }
        if skip_whitespace(bytes, at + 1) != bytes.len() {
            return Err(unified::malformed("trailing characters"));
        }
        Ok(())
    }
}

impl<F> MessageCache<F> {
    /// Which call of the latest assistant message a result for `call_id` answers: the one
    /// call with that id, if the messages since that assistant message are only results (and
    /// skipped ones). `None` leaves pairing to compare the ids.
    fn answered_call(&self, call_id: &str) -> Option<usize> {
        let calls = self.seen.iter().rev().find_map(|seen| match &seen.kind {
            Kind::Skipped | Kind::ToolResult(..) => None,
            Kind::User(_) => Some(None),
            Kind::Assistant(_, calls) => Some(Some(calls)),
        })??;
        let mut matching = calls
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| id == call_id);
        match (matching.next(), matching.next()) {
            (Some((at, _)), None) => Some(at),
            _ => None,
        }
    }
}

/// The messages in order with every tool call answered once, as [`unified::parse_messages`]
/// pairs them.
fn pair<'a, F: Clone>(
    seen: &'a [Seen<F>],
    convert: &impl Fn(&Message) -> Result<F, ProviderError>,
) -> Result<Vec<Converted<'a, F>>, ProviderError> {
    let mut out = Vec::with_capacity(seen.len());
    // The calls not answered yet, with their place among their message's calls.
    let mut pending: Vec<(usize, &(String, String))> = Vec::new();
    for seen in seen {
        match &seen.kind {
            Kind::Skipped => {}
            Kind::ToolResult(fragment, call_id, call) => {
                let answered = match call {
                    Some(call) => pending.iter().position(|(at, _)| at == call),
                    None => pending.iter().position(|(_, (id, _))| id == call_id),
                };
                if let Some(at) = answered {
                    pending.remove(at);
                    out.push(Converted {
                        role: Role::ToolResult,
                        fragment: Cow::Borrowed(fragment),
                    });
                }
            }
            Kind::User(fragment) => {
                answer_missing(&mut pending, &mut out, convert)?;
                out.push(Converted {
                    role: Role::User,
                    fragment: Cow::Borrowed(fragment),
                });
            }
            Kind::Assistant(fragment, calls) => {
                answer_missing(&mut pending, &mut out, convert)?;
                // Refilled, not collected anew: one allocation a turn, not one per assistant
                // message of the conversation.
                pending.extend(calls.iter().enumerate());
                out.push(Converted {
                    role: Role::Assistant,
                    fragment: Cow::Borrowed(fragment),
                });
            }
        }
    }
    answer_missing(&mut pending, &mut out, convert)?;
    Ok(out)
}

fn answer_missing<F: Clone>(
    pending: &mut Vec<(usize, &(String, String))>,
    out: &mut Vec<Converted<'_, F>>,
    convert: &impl Fn(&Message) -> Result<F, ProviderError>,
) -> Result<(), ProviderError> {
    for (_, (call_id, tool_name)) in pending.drain(..) {
        let missing = Message::ToolResult(ToolResult {
            call_id: call_id.clone(),
            tool_name: tool_name.clone(),
            content: vec![Part::Text(MISSING_RESULT.to_string())],
            is_error: true,
        });
        out.push(Converted {
            role: Role::ToolResult,
            fragment: Cow::Owned(convert(&missing)?),
        });
    }
    Ok(())
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The length of the longest common prefix, compared 64 bytes at a time as eight 64-bit words
/// and byte by byte only within the first block that differs. Not a slice comparison: in the
/// wasm guest that is wasi-libc's `memcmp`, which goes a byte at a time, and at turn 800 (a
/// megabyte of conversation) this was the largest single cost of a turn in the guest.
///
/// The eight words are written out rather than folded in a loop: guests are built for size, so
/// LLVM keeps such a loop, and wasmtime checks the epoch deadline at every loop's back edge, a
/// load and a compare per word. Never inlined: inside the large function that builds a request,
/// the loop's values were spilled to the stack.
#[inline(never)]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    let (a_blocks, _) = a.as_chunks::<BLOCK>();
    let (b_blocks, _) = b.as_chunks::<BLOCK>();
    let mut at = 0;
    for (x, y) in a_blocks.iter().zip(b_blocks) {
        if blocks_differ(x, y) {
            break;
        }
        at += BLOCK;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

#[inline(always)]
fn blocks_differ(x: &[u8; 64], y: &[u8; 64]) -> bool {
    let word = |block: &[u8; 64], i: usize| {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&block[i * 8..i * 8 + 8]);
        u64::from_ne_bytes(bytes)
    };
    let differ = |i: usize| word(x, i) ^ word(y, i);
    (differ(0) | differ(1) | differ(2) | differ(3) | differ(4) | differ(5) | differ(6) | differ(7))
        != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A fragment that shows what was converted: the message, printed.
    fn convert(message: &Message) -> Result<String, ProviderError> {
        Ok(format!("{message:?}"))
    }

    fn fragments(converted: &[Converted<'_, String>]) -> Vec<String> {
        converted.iter().map(|c| c.fragment.to_string()).collect()
    }

    fn direct(json: &str) -> Vec<String> {
        unified::parse_messages(json)
            .unwrap()
            .iter()
            .map(|m| convert(m).unwrap())
            .collect()
    }

    #[test]
    fn matches_the_full_parse_and_reuses_the_unchanged_prefix() {
        let mut cache = MessageCache::default();
        let mut messages = vec![
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "a", "name": "ls", "arguments": {}},
                {"type": "toolCall", "id": "b", "name": "ls", "arguments": {}}]}),
            json!({"role": "toolResult", "toolCallId": "a", "toolName": "ls", "content": []}),
        ];
        let mut check = |messages: &[serde_json::Value], reused: usize| {
            let text = serde_json::to_string(messages).unwrap();
            let got = cache.update("k", text.clone(), convert).unwrap();
            assert_eq!(fragments(&got), direct(&text));
            assert_eq!(cache.reused(), reused);
        };
        check(&messages, 0);
        messages.push(json!({"role": "custom", "content": "x"}));
        messages.push(json!({"role": "toolResult", "toolCallId": "b", "toolName": "ls"}));
        check(&messages, 3);
        messages[0] = json!({"role": "user", "content": "hello"});
        check(&messages, 0);
        messages.truncate(2);
        check(&messages, 2);
        // Spacing the host never writes is still read.
        let spaced = " [ {\"role\": \"user\"} ,\n{\"role\":\"user\",\"content\":\"x\"} ] ";
        assert_eq!(
            fragments(&cache.update("k", spaced.to_string(), convert).unwrap()),
            direct(spaced)
        );
        assert_eq!(
            cache.update("k", "[]".to_string(), convert).unwrap().len(),
            0
        );
    }

    #[test]
    fn the_messages_after_the_held_ones_make_the_same_conversation() {
        let mut cache = MessageCache::default();
        let message = |i: usize| match i % 3 {
            0 => json!({"role": "user", "content": format!("turn {i}")}),
            1 => json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": format!("c{i}"), "name": "ls", "arguments": {}}]}),
            _ => {
                json!({"role": "toolResult", "toolCallId": format!("c{}", i - 1), "toolName": "ls",
                "content": [{"type": "text", "text": "ok"}]})
            }
        };
        let all: Vec<serde_json::Value> = (0..12).map(message).collect();
        let text = |messages: &[serde_json::Value]| serde_json::to_string(messages).unwrap();
        cache.update("k", text(&all[..4]), convert).unwrap();
        // Each step: how many the request leaves out, and how many it holds in all.
        for (kept, len) in [(4, 7), (7, 7), (7, 9), (5, 8), (8, 12), (12, 12)] {
            assert!(cache.holds("k", kept));
            let after = Messages::After {
                kept,
                json: text(&all[kept..len]),
            };
            let got = cache.update("k", after, convert).unwrap();
            assert_eq!(fragments(&got), direct(&text(&all[..len])), "{kept}..{len}");
            assert_eq!(cache.reused(), kept);
            // The text kept is the whole conversation's: a whole request reuses all of it.
            let got = cache.update("k", text(&all[..len]), convert).unwrap();
            assert_eq!(fragments(&got), direct(&text(&all[..len])));
            assert_eq!(cache.reused(), len);
        }
        // Spacing the host never writes is still read.
        let spaced = format!(" [ \n{} ] ", serde_json::to_string(&all[11]).unwrap());
        cache
            .update(
                "k",
                Messages::After {
                    kept: 11,
                    json: spaced,
                },
                convert,
            )
            .unwrap();
        assert_eq!(cache.reused(), 11);
        let empty = Messages::After {
            kept: 12,
            json: " [ ] ".into(),
        };
        assert_eq!(
            fragments(&cache.update("k", empty, convert).unwrap()),
            direct(&text(&all))
        );

        // What the cache does not hold is refused, and the cache starts over.
        assert!(!cache.holds("k", 13));
        assert!(!cache.holds("other", 1));
        let err = cache
            .update(
                "k",
                Messages::After {
                    kept: 13,
                    json: "[]".into(),
                },
                convert,
            )
            .unwrap_err();
        assert!(err.message.contains("holds 12"), "{}", err.message);
        assert!(!cache.holds("k", 1));
        // A malformed rest is refused as the whole conversation's parse refuses it.
        cache.update("k", text(&all[..3]), convert).unwrap();
        let err = cache
            .update(
                "k",
                Messages::After {
                    kept: 3,
                    json: "[5]".into(),
                },
                convert,
            )
            .unwrap_err();
        let mut whole = text(&all[..3]);
        whole.truncate(whole.len() - 1);
        whole.push_str(",5]");
        assert_eq!(
            err.message,
            unified::parse_messages(&whole).unwrap_err().message
        );
        assert!(!cache.holds("k", 1));
    }

    #[test]
    fn results_pair_with_calls_as_the_full_parse_pairs_them() {
        let call = |id: &str| json!({"type": "toolCall", "id": id, "name": "ls", "arguments": {}});
        let result = |id: &str| {
            json!({"role": "toolResult", "toolCallId": id, "toolName": "ls",
            "content": [{"type": "text", "text": id}]})
        };
        let assistant = |calls: &[&str]| json!({"role": "assistant", "content": calls.iter().map(|id| call(id)).collect::<Vec<_>>()});
        let user = json!({"role": "user", "content": "go on"});
        let cases = [
            // Out of order, a result twice, a result for no call.
            vec![
                assistant(&["a", "b"]),
                result("b"),
                result("a"),
                result("a"),
                result("z"),
            ],
            // Two calls with one id.
            vec![
                assistant(&["a", "a"]),
                result("a"),
                result("a"),
                result("a"),
            ],
            // A result after the user spoke, and one after a skipped message.
            vec![assistant(&["a"]), user.clone(), result("a")],
            vec![
                assistant(&["a"]),
                json!({"role": "custom", "content": "x"}),
                result("a"),
            ],
            // A result whose call is in an earlier assistant message.
            vec![
                assistant(&["a"]),
                assistant(&["b"]),
                result("a"),
                result("b"),
            ],
        ];
        for messages in cases {
            let text = serde_json::to_string(&messages).unwrap();
            let mut cache = MessageCache::default();
            let got = cache.update("k", text.clone(), convert).unwrap();
            assert_eq!(fragments(&got), direct(&text), "{text}");
            // And message by message, each turn reusing the ones before.
            let mut cache = MessageCache::default();
            for len in 1..=messages.len() {
                let text = serde_json::to_string(&messages[..len]).unwrap();
                let got = cache.update("k", text.clone(), convert).unwrap();
                assert_eq!(fragments(&got), direct(&text), "{text}");
            }
        }
    }

    #[test]
    fn with_nothing_kept_the_whole_conversation_is_compared() {
        let mut kept: Kept<String> = Kept::default();
        let text = r#"[{"role":"user","content":"hi"}]"#.to_string();
        kept.messages.update("k", text.clone(), convert).unwrap();
        // Nothing left out: the next request is whole, and read with the prefix comparison.
        assert!(kept.expect("k", 0, 0));
        assert_eq!(kept.take_after(), None);
        kept.messages.update("k", text, convert).unwrap();
        assert_eq!(kept.messages.reused(), 1);
        assert!(kept.expect("k", 1, 0));
        assert_eq!(kept.take_after(), Some(1));
        assert_eq!(kept.take_after(), None, "for one request only");
        assert!(!kept.expect("other", 1, 0));
        assert_eq!(kept.take_after(), None);
    }

    #[test]
    fn another_key_converts_everything_again() {
        let mut cache = MessageCache::default();
        let text = r#"[{"role":"user","content":"hi"}]"#;
        cache.update("a", text.to_string(), convert).unwrap();
        cache.update("a", text.to_string(), convert).unwrap();
        assert_eq!(cache.reused(), 1);
        cache.update("b", text.to_string(), convert).unwrap();
        assert_eq!(cache.reused(), 0);
    }

    #[test]
    fn malformed_text_is_refused_as_the_full_parse_refuses_it() {
        let mut cache = MessageCache::default();
        let good = r#"[{"role":"user","content":"hi"}]"#;
        cache.update("k", good.to_string(), convert).unwrap();
        for bad in [
            "",
            "{}",
            "[",
            "[,]",
            r#"[{"role":"user"},]"#,
            r#"[{"role":"user"}"#,
            r#"[{"role":"user"}] x"#,
            r#"[{"role":"user"} {"role":"user"}]"#,
            r#"[{"role":"user","content":"hi"},5]"#,
            r#"[{"role":"user","content":"hi"},{"role":"user","content":5}]"#,
        ] {
            let err = cache.update("k", bad.to_string(), convert).unwrap_err();
            let full = unified::parse_messages(bad).unwrap_err();
            assert_eq!(err.message, full.message, "{bad}");
            // The cache starts over after a refusal.
            cache.update("k", good.to_string(), convert).unwrap();
            assert_eq!(cache.reused(), 0);
        }
    }

    #[test]
    fn a_result_added_for_a_missing_one_is_converted_each_time() {
        let mut cache = MessageCache::default();
        let text = r#"[{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"ls"}]}]"#;
        let got = cache.update("k", text.to_string(), convert).unwrap();
        assert!(matches!(got[1].fragment, Cow::Owned(_)));
        assert_eq!(fragments(&got), direct(text));
    }

    #[test]
    fn common_prefix_finds_the_first_difference() {
        let a: Vec<u8> = (0..2000u32).map(|i| (i % 251) as u8).collect();
        let mut b = a.clone();
        assert_eq!(common_prefix(&a, &b), 2000);
        b[700] = 255;
        assert_eq!(common_prefix(&a, &b), 700);
        assert_eq!(common_prefix(&a[..10], &b), 10);
        assert_eq!(common_prefix(&[], &b), 0);
        // Every position of the difference, within and across words and blocks, and every
        // length around the block size.
        for len in [
            0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200,
        ] {
            let a: Vec<u8> = (0..len as u32).map(|i| (i % 251) as u8).collect();
            assert_eq!(common_prefix(&a, &a), len);
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 1;
                assert_eq!(common_prefix(&a, &b), at, "len {len}, difference at {at}");
                assert_eq!(common_prefix(&b[..at], &a), at);
            }
        }
    }
}
