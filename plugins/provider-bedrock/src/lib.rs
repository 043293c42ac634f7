//! `bedrock-converse-stream`: Amazon Bedrock's Converse API, streamed
//! (`POST /model/{modelId}/converse-stream`).
//!
//! The plugin only translates: [`request`] writes the Converse body (system blocks, messages of
//! text, images, tool uses and results, reasoning with its signature replayed to the model that
//! wrote it, extended thinking for Claude models), and [`decode`] turns the stream's events into
//! unified events. The host signs each request with the user's AWS credentials and frames
//! AWS's binary event stream into the events the decoder takes (each named by its
//! `:event-type`, an error by `exception:<type>`).

mod decode;
mod request;

provider_common::export_http_provider!(request::Bedrock);
