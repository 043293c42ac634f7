//! Host bindings for every supported version of the `tack:plugin` WIT package: one module per
//! folder of `wit/plugin/` (`v0_1_0` binds `wit/plugin/v0.1.0/`), as Zed's extension host keeps a
//! `since_v0_x_y.rs` per API version.
//!
//! 0.2.0 only adds interfaces: its world includes 0.1.0's unchanged, so the host binds each
//! interface once, in the version that introduced it, and one linker serves plugins of both
//! versions. A plugin's version is the newest `tack:plugin` version it imports or exports. A
//! later version that changes an existing interface gets a module of its own here, and the
//! older version's calls are adapted to it (wit/README.md lists the steps).

pub mod agents_v0_1_0;
pub mod dirs_v0_1_0;
pub mod provider_v0_1_0;
pub mod v0_1_0;
pub mod v0_2_0;

/// The version whose types the host uses for the interfaces every plugin meets (0.2.0 left them
/// as 0.1.0 had them).
pub use v0_1_0 as latest;

/// The newest WIT package version this host speaks, told to every plugin at `init`.
pub const API_VERSION: &str = v0_2_0::VERSION;

/// `tack:plugin` versions this host can load.
pub const SUPPORTED_API_VERSIONS: &[&str] = &[v0_1_0::VERSION, v0_2_0::VERSION];
