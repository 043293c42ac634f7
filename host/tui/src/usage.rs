//! The session's token counts and cost, added up from its messages for the footer.

use tack_core::message::Message;

/// Token counts and cost of the session so far, and the size of the last context.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cost: f64,
    pub context_tokens: u64,
}

impl Usage {
    pub(crate) fn add(&mut self, message: &Message) {
        if let Message::Assistant(a) = message {
            let u = &a.usage;
            self.input += u.input + u.cache_read + u.cache_write;
            self.output += u.output;
            self.cost += u.cost.total;
            let context = u.input + u.cache_read + u.cache_write + u.output;
            if context > 0 {
                self.context_tokens = context;
            }
        }
        if let Message::ToolResult(r) = message {
            self.add_subagent(r.details.as_ref());
        }
    }

    /// A sub-agent's tokens and cost (the `subagents` plugin's `task` result) count with the
    /// session's; its context is its own, so the context size stays the parent's.
    fn add_subagent(&mut self, details: Option<&serde_json::Value>) {
        let Some(usage) = details.and_then(|d| d.get("subagent")?.get("usage")) else {
            return;
        };
        let number = |key: &str| usage.get(key).and_then(serde_json::Value::as_u64);
        self.input += number("input").unwrap_or(0)
            + number("cacheRead").unwrap_or(0)
            + number("cacheWrite").unwrap_or(0);
        self.output += number("output").unwrap_or(0);
        self.cost += usage
            .get("cost")
            .and_then(serde_json::Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0)
            .unwrap_or(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_core::message::ToolResultMessage;

    #[test]
    fn a_subagents_usage_counts_in_the_footer_but_not_its_context() {
        let mut usage = Usage {
            context_tokens: 500,
            ..Usage::default()
        };
        let result = Message::ToolResult(ToolResultMessage {
            tool_call_id: "t1".into(),
            tool_name: "task".into(),
            content: Vec::new(),
            details: Some(serde_json::json!({
                "subagent": { "usage": { "input": 1000, "output": 50, "cacheRead": 10,
                                         "cacheWrite": 0, "cost": 0.25 } }
            })),
            is_error: false,
            timestamp: 0,
            rewrite: None,
        });
        usage.add(&result);
        assert_eq!(usage.input, 1010);
        assert_eq!(usage.output, 50);
        assert!((usage.cost - 0.25).abs() < 1e-9);
        assert_eq!(usage.context_tokens, 500);
    }
}
