//! Tool-call ids of the Responses API. A function call has two ids: `call_id`, which its output
//! names, and the item id (`fc_…`), which pairs it with the reasoning item before it. Both are
//! kept in the unified id as `call_id|item_id`, so that the pair can be replayed.

use provider_common::ids;

/// The API's limit on ids it accepts back.
const MAX_ID_CHARS: usize = 64;

pub fn join(call_id: &str, item_id: &str) -> String {
    if item_id.is_empty() {
        call_id.to_string()
    } else {
        format!("{call_id}|{item_id}")
    }
}

/// `(call_id, item_id)` of a unified id; ids from other providers have no item id.
pub fn split(id: &str) -> (String, Option<String>) {
    match id.split_once('|') {
        Some((call_id, item_id)) => (
            ids::sanitize(call_id, MAX_ID_CHARS),
            Some(ids::sanitize(item_id, MAX_ID_CHARS)).filter(|item| item.starts_with("fc")),
        ),
        None => (ids::sanitize(id, MAX_ID_CHARS), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(join("call_1", "fc_1"), "call_1|fc_1");
        assert_eq!(join("call_1", ""), "call_1");
        assert_eq!(split("call_1|fc_1"), ("call_1".into(), Some("fc_1".into())));
        assert_eq!(split("toolu_01"), ("toolu_01".into(), None));
        assert_eq!(split("a b|xyz"), ("a_b".into(), None));
    }
}
