//! Saying so when the sandbox may be why a command failed: a command that exits non-zero after
//! printing "Permission denied" or "Network is unreachable" under the sandbox gets a line added
//! to its output naming the sandbox, so the model (and the user reading along) does not go
//! looking for a wrong file mode.

use super::SandboxPolicy;

/// What the kernel's refusals read like in the messages of common programs.
const FILESYSTEM: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    // Renaming onto (or away) a path the sandbox mounted read-only: `git config` does.
    "Device or resource busy",
];

const NETWORK: &[&str] = &[
    "Network is unreachable",
    "Address family not supported",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Couldn't connect to server",
    "Failed to connect",
    "Name or service not known",
];

/// Longest pattern, less one: kept from one chunk of output to the next, so a message split
/// across two reads is still found.
const CARRY: usize = 40;

/// Watches a sandboxed command's output for refusals.
pub struct BlockedWatch {
    note: String,
    patterns: Vec<&'static str>,
    carry: Vec<u8>,
    seen: bool,
}

impl BlockedWatch {
    /// A watch for a command confined by `policy`; `None` when nothing confines it.
    pub fn new(policy: &SandboxPolicy) -> Option<Self> {
        if !policy.confines() {
            return None;
        }
        let mut patterns = FILESYSTEM.to_vec();
        if !policy.network {
            patterns.extend_from_slice(NETWORK);
        }
        Some(BlockedWatch {
            note: format!(
                "\n[tack sandbox: {}, network {} — the command may have been blocked by the \
                 sandbox]\n",
                policy.mode,
                if policy.network { "on" } else { "off" }
            ),
            patterns,
            carry: Vec::new(),
            seen: false,
        })
    }

    /// Looks at the next bytes of output (stdout or stderr: the bash tool merges them).
    pub fn observe(&mut self, bytes: &[u8]) {
        if self.seen {
            return;
        }
        let mut window = std::mem::take(&mut self.carry);
        window.extend_from_slice(bytes);
        self.seen = self
            .patterns
            .iter()
            .any(|p| window.windows(p.len()).any(|w| w == p.as_bytes()));
        let keep = window.len().saturating_sub(CARRY);
        self.carry = window.split_off(keep);
    }

    /// The line to add to the output of a command that ended with `code`, if it failed after a
    /// refusal.
    pub fn note(&self, code: Option<i32>) -> Option<Vec<u8>> {
        (self.seen && code != Some(0)).then(|| self.note.clone().into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxMode;

    #[test]
    fn a_refusal_split_across_reads_is_noted_only_when_the_command_fails() {
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite, false, 0);
        let mut watch = BlockedWatch::new(&policy).expect("confined");
        watch.observe(b"touch: cannot touch '/etc/x': Read-only fi");
        assert_eq!(watch.note(Some(1)), None);
        watch.observe(b"le system\n");
        let note = String::from_utf8(watch.note(Some(1)).expect("noted")).expect("utf8");
        assert!(
            note.contains("[tack sandbox: workspace-write, network off — the command may"),
            "{note}"
        );
        assert_eq!(watch.note(Some(0)), None, "it succeeded anyway");
        assert!(BlockedWatch::new(&SandboxPolicy::full()).is_none());
    }

    #[test]
    fn network_messages_count_only_with_the_network_off() {
        let online = SandboxPolicy::new(SandboxMode::WorkspaceWrite, true, 0);
        let mut watch = BlockedWatch::new(&online).expect("confined");
        watch.observe(b"curl: (7) Failed to connect to example.com");
        assert_eq!(watch.note(Some(7)), None);
    }
}
