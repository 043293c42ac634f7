//! Locking the host's shared state: one policy for a poisoned lock.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex whose data stays consistent even if a holder panicked (plain maps, lists and
/// slots). The host recovers the data rather than failing every later call, or, worse, reading a
/// poisoned "disabled" flag as "not disabled".
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
