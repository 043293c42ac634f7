//! Locking the host's shared state (the policy lives in `tack_core::sync`).

pub use tack_core::sync::lock;
