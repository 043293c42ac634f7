//! What tack's tests and benches share, so that each test file holds only its tests: the real
//! `tack` binary run in a temp home and project ([`Env`]), plugin packages and the scripted
//! provider, loopback HTTP servers ([`http`]) speaking a provider's wire ([`openai`],
//! [`openai_responses`], [`anthropic`], [`google`]), Pi's coding agent as a peer ([`pi_peer`]),
//! and fixtures for tests that drive tack-core and real components in process ([`session`],
//! [`runtime`]).
//!
//! Used only as a dev-dependency. Each part is behind a feature (`binary`, `core`, `pty`,
//! `runtime`) so
//! that a crate's tests build only what they use.

// Test-only code: a failed setup panics with what failed, as in the tests that call it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod anthropic;
#[cfg(feature = "binary")]
mod binary;
pub mod google;
pub mod http;
#[cfg(feature = "tokio")]
pub mod http_tokio;
pub mod json_mode;
pub mod openai;
pub mod openai_responses;
#[cfg(feature = "binary")]
mod package;
pub mod pi;
#[cfg(feature = "pty")]
pub mod pty;
#[cfg(feature = "runtime")]
pub mod runtime;
#[cfg(feature = "core")]
pub mod session;

#[cfg(feature = "binary")]
pub use binary::{Env, Tack};
#[cfg(feature = "binary")]
pub use package::Package;
pub use pi::{pi_peer, PiPeer};

/// The `tack` binary of the calling crate's tests, sharing one component cache per target dir.
/// Only the `tack` crate's own tests and benches can expand it (Cargo sets `CARGO_BIN_EXE_tack`
/// and `CARGO_TARGET_TMPDIR` for them alone).
#[cfg(feature = "binary")]
#[macro_export]
macro_rules! tack {
    () => {
        $crate::Tack::new(
            env!("CARGO_BIN_EXE_tack"),
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tack-component-cache"),
        )
    };
}

/// A process's stdout, as text.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A process's stderr, as text.
pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
