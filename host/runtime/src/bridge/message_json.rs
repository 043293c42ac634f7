//! The conversation as the JSON array provider plugins read, without serializing the whole
//! history again every turn: each message's JSON is kept while the request holds the very same
//! `Arc` at the same place (messages are immutable behind their `Arc`, and the kept clone keeps
//! the address from being reused), so a turn serializes only what is new or changed (a context
//! hook's rewrite, a compaction, a branch switch).

use std::sync::{Arc, Mutex};

use tack_core::message::Message;

#[derive(Default)]
pub struct MessageJson {
    kept: Mutex<Vec<(Arc<Message>, String)>>,
}

impl MessageJson {
    /// The bytes `serde_json::to_string(messages)` would give.
    pub fn encode(&self, messages: &[Arc<Message>]) -> serde_json::Result<String> {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let mut previous = std::mem::take(&mut *kept).into_iter();
        let mut next = Vec::with_capacity(messages.len());
        for message in messages {
            let json = match previous.next() {
                Some((old, json)) if Arc::ptr_eq(&old, message) => json,
                _ => serde_json::to_string(message.as_ref())?,
            };
            next.push((Arc::clone(message), json));
        }
        let size = next.iter().map(|(_, json)| json.len() + 1).sum::<usize>() + 2;
        let mut out = String::with_capacity(size);
        out.push('[');
        for (i, (_, json)) in next.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(json);
        }
        out.push(']');
        *kept = next;
        Ok(out)
    }
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

    #[test]
    fn the_bytes_of_a_full_serialization_turn_after_turn() {
        let cache = MessageJson::default();
        let mut messages: Vec<Arc<Message>> = (0..50).map(|i| user(&format!("m{i}"))).collect();
        for turn in 0..5 {
            messages.push(user(&format!("turn {turn} \"quoted\"")));
            assert_eq!(
                cache.encode(&messages).unwrap(),
                serde_json::to_string(&messages).unwrap()
            );
        }
        // A context hook's rewrite in the middle, a compaction that shifts everything, empty.
        messages[10] = user("rewritten");
        assert_eq!(
            cache.encode(&messages).unwrap(),
            serde_json::to_string(&messages).unwrap()
        );
        let compacted: Vec<Arc<Message>> = std::iter::once(user("summary"))
            .chain(messages[40..].iter().cloned())
            .collect();
        assert_eq!(
            cache.encode(&compacted).unwrap(),
            serde_json::to_string(&compacted).unwrap()
        );
        assert_eq!(cache.encode(&[]).unwrap(), "[]");
    }
}
