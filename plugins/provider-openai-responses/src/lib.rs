//! `openai-responses`: OpenAI models through the Responses API, which streams reasoning
//! summaries and hands back encrypted reasoning to replay on the next turn.
//!
//! The plugin only translates: [`request`] builds a streamed `POST /responses`, [`decode`] turns
//! its events into unified events, and [`errors`] classifies failures; [`provider`] hands them
//! to the provider kit. The host sends the request to the configured base URL and attaches
//! `OPENAI_API_KEY` as a bearer token; the key never enters the guest.
//!
//! Options: `supports_reasoning_effort` (bool) sends a reasoning effort to models outside the
//! catalogue, or withholds it from catalogue models.

mod call_ids;
mod decode;
mod errors;
mod provider;
mod request;

provider_common::export_http_provider!(provider::OpenAiResponses);
