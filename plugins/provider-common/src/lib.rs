//! What tack's provider plugins (Anthropic, OpenAI Chat Completions, OpenAI Responses, Google
//! Gemini) share. Each plugin translates the unified request into its API's body and its API's
//! server-sent events back into unified stream events; the parts that do not depend on the API
//! live here, so the four translate the same conversation the same way:
//!
//! - [`unified`]: the request's messages and tools, parsed and repaired (every tool call answered).
//! - [`cache`]: each message's converted form, kept across turns so only new messages are
//!   converted.
//! - [`json`]: writing a body from typed values and already-converted pieces.
//! - [`options`]: typed access to the compat flags in the request's `options`.
//! - [`ids`]: tool-call ids rewritten to what an API accepts.
//! - [`errors`]: classifying error responses, including each API's context-overflow wording.
//! - [`stream`]: helpers for decoders: event payloads, block indices, cut streams.
//! - [`kit`]: an HTTP provider as a trait of its wire format, and the macro that exports it.
//! - [`models`]: registration entries for a provider's model catalogue.
//! - [`openai_models`]: OpenAI's model catalogue, served by both OpenAI plugins.
//! - [`tool_images`]: images from tool results, for APIs whose tool results take only text.

pub mod body;
pub mod cache;
pub mod errors;
#[cfg(feature = "test-support")]
pub mod fixtures;
pub mod ids;
pub mod json;
pub mod kit;
pub mod models;
pub mod openai_models;
pub mod options;
#[cfg(feature = "test-support")]
pub mod script;
pub mod stream;
pub mod tool_images;
pub mod unified;

/// For [`export_http_provider!`]: the SDK's export macros, reached through this crate so that a
/// provider names only the kit.
#[doc(hidden)]
pub use tack_sdk as __sdk;

/// For [`bench_long_session!`]: criterion's macros, reached through this crate.
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub use criterion as __criterion;
