//! One-line logging into tack's log, tagged with the plugin's name by the host.

use crate::bindings::tack::plugin::host;
use crate::Level;

/// Logs at debug level.
pub fn debug(message: impl AsRef<str>) {
    host::log(Level::Debug, message.as_ref());
}

/// Logs at info level.
pub fn info(message: impl AsRef<str>) {
    host::log(Level::Info, message.as_ref());
}

/// Logs at warn level.
pub fn warn(message: impl AsRef<str>) {
    host::log(Level::Warn, message.as_ref());
}

/// Logs at error level.
pub fn error(message: impl AsRef<str>) {
    host::log(Level::Error, message.as_ref());
}
