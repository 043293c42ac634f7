//! Host bindings for every supported version of the `tack:plugin` WIT package: one module per
//! released folder of `wit/` (`v0_1_0` binds `wit/plugin/v0.1.0/`), as Zed's extension host keeps a
//! `since_v0_x_y.rs` per API version. The rest of the host names only [`latest`], so adding 0.2
//! is adding `wit/plugin/v0.2.0/`, a `v0_2_0.rs` here, pointing `latest` at it, and adapting the older
//! versions' calls to it (wit/README.md lists the steps).

pub mod agents_v0_1_0;
pub mod dirs_v0_1_0;
pub mod provider_v0_1_0;
pub mod v0_1_0;

/// The newest version, whose types the host uses throughout.
pub use v0_1_0 as latest;

/// The WIT package version this host speaks natively.
pub const API_VERSION: &str = latest::VERSION;

/// `tack:plugin` versions this host can load.
pub const SUPPORTED_API_VERSIONS: &[&str] = &[v0_1_0::VERSION];
