//! The conversation as the JSON array provider plugins read, without serializing or copying the
//! whole history again every turn. The array's text is kept from the previous request with where
//! each message ends in it; a message is reused while the request holds the very same `Arc` at
//! the same place (messages are immutable behind their `Arc`, and the kept clone keeps the
//! address from being reused). A turn cuts the text after the last unchanged message and appends
//! only what is new or changed (a context hook's rewrite, a compaction, a branch switch): at turn
//! 800 the array is a megabyte, and building it afresh meant a fresh megabyte buffer every turn.

use std::sync::{Arc, Mutex};

use tack_core::message::Message;

#[derive(Default)]
pub struct MessageJson {
    kept: Mutex<Encoded>,
}

/// A request's messages as JSON: lent to the request while it is built, then given back with
/// [`MessageJson::restore`] to be reused by the next.
#[derive(Default)]
pub struct Encoded {
    /// The bytes `serde_json::to_string(messages)` gives.
    pub text: String,
    /// Each message, and where its JSON ends in `text`.
    ends: Vec<(Arc<Message>, usize)>,
}

impl MessageJson {
    /// `messages` as JSON. Give it back with [`restore`](Self::restore) once the request is
    /// built; until then a concurrent request encodes from scratch, which is correct, only slower.
    pub fn encode(&self, messages: &[Arc<Message>]) -> serde_json::Result<Encoded> {
        let mut encoded = std::mem::take(&mut *self.kept.lock().unwrap_or_else(|p| p.into_inner()));
        let same = encoded
            .ends
            .iter()
            .zip(messages)
            .take_while(|((old, _), new)| unchanged(old, new))
            .count();
        encoded.ends.truncate(same);
        let cut = encoded.ends.last().map_or(0, |(_, end)| *end);
        if cut == 0 {
            encoded.text.clear();
            encoded.text.push('[');
        } else {
            encoded.text.truncate(cut);
        }
        for message in &messages[same..] {
            if !encoded.ends.is_empty() {
                encoded.text.push(',');
            }
            encoded
                .text
                .push_str(&serde_json::to_string(message.as_ref())?);
            encoded.ends.push((Arc::clone(message), encoded.text.len()));
        }
        encoded.text.push(']');
        Ok(encoded)
    }

    /// Keeps `encoded` for the next request.
    pub fn restore(&self, encoded: Encoded) {
        *self.kept.lock().unwrap_or_else(|p| p.into_inner()) = encoded;
    }
}

impl Encoded {
    /// The JSON array of the messages after the first `kept`: the bytes
    /// `serde_json::to_string(&messages[kept..])` gives, cut from the whole array's text.
    pub fn json_after(&self, kept: usize) -> String {
        let Some(&(_, end)) = kept.checked_sub(1).and_then(|last| self.ends.get(last)) else {
            return self.text.clone();
        };
        // What follows a message is `,` and the next one, or the array's `]`.
        let rest = &self.text[end..];
        let mut json = String::with_capacity(rest.len() + 1);
        json.push('[');
        json.push_str(rest.strip_prefix(',').unwrap_or(rest));
        json
    }
}

/// How many of `messages` lead with the messages of `sent`, unchanged.
pub fn kept_from(sent: &[Arc<Message>], messages: &[Arc<Message>]) -> usize {
    sent.iter()
        .zip(messages)
        .take_while(|(old, new)| unchanged(old, new))
        .count()
}

/// Whether `new` has the JSON `old` had. The same `Arc` does; so does an equal user message,
/// because the provider's view makes custom messages and summaries into user messages afresh
/// every turn (after a compaction, the very first message), and a user message holds only
/// strings and an integer, whose equality is equality of their JSON. Other messages may hold
/// JSON values, where `0.0 == -0.0` though their text differs, so they are not compared.
fn unchanged(old: &Arc<Message>, new: &Arc<Message>) -> bool {
    Arc::ptr_eq(old, new)
        || matches!((&**old, &**new), (Message::User(old), Message::User(new)) if old == new)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tack_core::message::{Content, UserMessage};

    fn user(text: &str) -> Arc<Message> {
        Arc::new(Message::User(UserMessage {
            content: vec![Content::text(text)],
            timestamp: 1,
        }))
    }

    /// Encodes, checks the bytes against a full serialization and gives the text back.
    fn check(cache: &MessageJson, messages: &[Arc<Message>]) {
        let encoded = cache.encode(messages).unwrap();
        assert_eq!(encoded.text, serde_json::to_string(messages).unwrap());
        cache.restore(encoded);
    }

    #[test]
    fn the_bytes_of_a_full_serialization_turn_after_turn() {
        let cache = MessageJson::default();
        let mut messages: Vec<Arc<Message>> = (0..50).map(|i| user(&format!("m{i}"))).collect();
        for turn in 0..5 {
            messages.push(user(&format!("turn {turn} \"quoted\"")));
            check(&cache, &messages);
        }
        // A context hook's rewrite in the middle, of the first and of the last message.
        messages[10] = user("rewritten");
        check(&cache, &messages);
        messages[0] = user("first rewritten");
        check(&cache, &messages);
        let last = messages.len() - 1;
        messages[last] = user("last rewritten");
        check(&cache, &messages);
        // A compaction that shifts everything, a branch that drops the tail, the same again,
        // empty, and back.
        let compacted: Vec<Arc<Message>> = std::iter::once(user("summary"))
            .chain(messages[40..].iter().cloned())
            .collect();
        check(&cache, &compacted);
        // The provider's view makes the summary a user message afresh every turn: an equal one
        // is reused, a different one is not.
        let mut again = compacted.clone();
        again[0] = user("summary");
        let encoded = cache.encode(&again).unwrap();
        assert!(Arc::ptr_eq(&encoded.ends[0].0, &compacted[0]));
        assert_eq!(encoded.text, serde_json::to_string(&again).unwrap());
        cache.restore(encoded);
        again[0] = user("another summary");
        check(&cache, &again);
        check(&cache, &compacted);
        check(&cache, &compacted[..3]);
        check(&cache, &compacted[..3]);
        check(&cache, &[]);
        check(&cache, &compacted);
    }

    #[test]
    fn the_messages_after_the_kept_ones_are_their_own_array() {
        let cache = MessageJson::default();
        let messages: Vec<Arc<Message>> = (0..4).map(|i| user(&format!("m{i} \"q\""))).collect();
        let encoded = cache.encode(&messages).unwrap();
        for kept in 0..=messages.len() {
            assert_eq!(
                encoded.json_after(kept),
                serde_json::to_string(&messages[kept..]).unwrap(),
                "after {kept}"
            );
        }
        let empty = cache.encode(&[]).unwrap();
        assert_eq!(empty.json_after(0), "[]");

        let mut edited = messages.clone();
        assert_eq!(kept_from(&messages, &edited), 4);
        edited[2] = user("changed");
        assert_eq!(kept_from(&messages, &edited), 2);
        // An equal user message made afresh (a summary, a custom message) is kept.
        edited[2] = user("m2 \"q\"");
        assert_eq!(kept_from(&messages, &edited), 4);
        assert_eq!(kept_from(&messages[..1], &edited), 1);
        assert_eq!(kept_from(&messages, &edited[..3]), 3);
    }

    #[test]
    fn a_request_built_while_the_text_is_lent_starts_from_scratch() {
        let cache = MessageJson::default();
        let messages: Vec<Arc<Message>> = (0..5).map(|i| user(&format!("m{i}"))).collect();
        check(&cache, &messages);
        let lent = cache.encode(&messages).unwrap();
        let other: Vec<Arc<Message>> = vec![user("another session")];
        check(&cache, &other);
        // The lent text comes back last and serves the next request of its own session.
        cache.restore(lent);
        check(&cache, &messages);
        // A text that is never given back costs only the reuse.
        let _lost = cache.encode(&messages).unwrap();
        check(&cache, &messages);
    }
}
