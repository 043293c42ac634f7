//! What a plugin may hand the host. A guest's own memory is capped per instance (`limits.rs`),
//! but what it passes out through results and host calls is copied into host memory, where a
//! plugin with no grants could otherwise make tack allocate without bound: a 16 MiB result from
//! each of 4096 tasks, a gigabyte of custom state, a widget of a million lines.
//!
//! Going over a budget fails the call with [`BudgetExceeded`] naming the plugin, what was too
//! large and the cap, and counts as a fault of the plugin like a trap does.

use std::fmt;

/// The caps, per plugin call unless said otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budgets {
    /// A tool result or a partial result (text and image bytes).
    pub tool_result_bytes: usize,
    /// All outputs of one fan-out (`tasks.run`) together.
    pub task_output_bytes: usize,
    /// One custom entry's data.
    pub custom_entry_bytes: usize,
    /// One message a plugin adds to the conversation.
    pub message_bytes: usize,
    /// One text shown by a front end: a notification, a status, a dialog's title, message or
    /// option, a widget line.
    pub ui_text_bytes: usize,
    /// Lines of one widget, options of one `select`.
    pub ui_items: usize,
    /// Instances of one plugin alive at once, pooled or in a call (fan-out workers included).
    pub live_instances: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            tool_result_bytes: 8 << 20,
            task_output_bytes: 64 << 20,
            custom_entry_bytes: 1 << 20,
            message_bytes: 1 << 20,
            ui_text_bytes: 16 << 10,
            ui_items: 200,
            live_instances: 16,
        }
    }
}

/// The error a host call returns (as a trap) when a plugin goes over a budget; the runtime turns
/// it into `PluginError::OverBudget`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExceeded {
    pub what: String,
    pub size: usize,
    pub cap: usize,
    /// `size` and `cap` count items, not bytes.
    pub items: bool,
}

impl BudgetExceeded {
    pub fn bytes(what: impl Into<String>, size: usize, cap: usize) -> Self {
        Self {
            what: what.into(),
            size,
            cap,
            items: false,
        }
    }

    pub fn items(what: impl Into<String>, size: usize, cap: usize) -> Self {
        Self {
            what: what.into(),
            size,
            cap,
            items: true,
        }
    }

    fn size_text(&self) -> String {
        amount(self.size, self.items)
    }

    fn cap_text(&self) -> String {
        amount(self.cap, self.items)
    }
}

impl fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {}, over the cap of {}",
            self.what,
            self.size_text(),
            self.cap_text()
        )
    }
}

impl std::error::Error for BudgetExceeded {}

fn amount(n: usize, items: bool) -> String {
    if items {
        n.to_string()
    } else if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / f64::from(1 << 20))
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

/// `Err` when `size` bytes of `what` are over `cap`.
pub fn check_bytes(what: &str, size: usize, cap: usize) -> Result<(), BudgetExceeded> {
    if size > cap {
        Err(BudgetExceeded::bytes(what, size, cap))
    } else {
        Ok(())
    }
}
