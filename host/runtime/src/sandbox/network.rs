//! Network off: a seccomp filter under which `socket()` fails with `EACCES` for every address
//! family but `AF_UNIX`, so a command gets a clean "permission denied" rather than a hang. Local
//! sockets stay (build tools, language servers and `ssh-agent`-less git all use them); io_uring,
//! which can open sockets without `socket()`, is refused as a whole.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::SandboxError;

/// A compiled filter, installed in the child.
pub(super) struct Program(BpfProgram);

impl Program {
    pub(super) fn deny_sockets() -> Result<Self, SandboxError> {
        let seccomp = |e: &dyn std::fmt::Display| SandboxError::Seccomp(e.to_string());
        let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| seccomp(&e))?;
        let not_unix = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )
        .map_err(|e| seccomp(&e))?;
        let mut rules = BTreeMap::new();
        rules.insert(
            libc::SYS_socket,
            vec![SeccompRule::new(vec![not_unix]).map_err(|e| seccomp(&e))?],
        );
        // An empty rule list matches every call.
        rules.insert(libc::SYS_io_uring_setup, Vec::new());
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EACCES as u32),
            arch,
        )
        .map_err(|e| seccomp(&e))?;
        let program = BpfProgram::try_from(filter).map_err(|e| seccomp(&e))?;
        Ok(Program(program))
    }

    /// Installs the filter on the calling thread (the child, before `exec`).
    pub(super) fn apply(&self) -> std::io::Result<()> {
        match seccompiler::apply_filter(&self.0) {
            Ok(()) => Ok(()),
            Err(seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e)) => Err(e),
            Err(_) => Err(std::io::Error::from_raw_os_error(libc::EINVAL)),
        }
    }
}
