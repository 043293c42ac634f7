//! Locking the host's shared state.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex whose data stays consistent even if a holder panicked (plain maps, lists and
/// slots), so one failed task does not take every later command down with it.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
