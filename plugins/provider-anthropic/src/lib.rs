//! `anthropic`: Claude through Anthropic's Messages API.
//!
//! The plugin only translates. [`request`] turns the unified request into a streamed
//! `POST /v1/messages` (prompt caching on the system prompt and the newest user turn, tools,
//! images, thinking budgets, signed thinking replayed), [`decode`] turns the event stream back
//! into unified events, and [`errors`] classifies failures; the provider kit exports the
//! [`request::Anthropic`] they make up. The host sends the request to the configured base URL and attaches
//! `ANTHROPIC_API_KEY` as `x-api-key`; the key never enters the guest.

mod decode;
mod errors;
mod models;
mod request;
mod thinking;

provider_common::export_http_provider!(request::Anthropic);
