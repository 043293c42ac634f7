//! What tack's policy plugins share. plan-mode, permission-gate and protected-paths all judge
//! `bash` commands and file paths the model wants to touch; they must read a command line the
//! same way, or one plugin's idea of "read-only" would differ from another's:
//!
//! - [`shell`]: parses a POSIX shell command line into pipelines of simple commands, with quotes
//!   removed and redirections separated, including commands hidden in `$(…)`, backticks and
//!   process substitutions.
//! - [`commands`]: flattens a parsed line into the commands that actually run: wrappers such as
//!   `sudo`, `env` or `xargs` are peeled, and scripts passed to `sh -c`, `eval` or `find -exec`
//!   are parsed too.
//! - [`readonly`]: whether a command line only reads (the allow-list plan mode and permission-gate's
//!   read-only mode use).
//! - [`paths`]: lexical path normalization against the workspace.
//! - [`place`]: where a path on a command line really leads: through `cd`, `~`, expansions and
//!   symlinks.
//! - [`writes`]: the files a command line obviously writes.
//! - [`glob`]: glob patterns, matched without a regex engine.

pub mod commands;
pub mod glob;
pub mod paths;
pub mod place;
pub mod readonly;
pub mod shell;
pub mod writes;
