//! `openai`: OpenAI's Chat Completions API, and every server that speaks it (Ollama, vLLM,
//! llama.cpp, OpenRouter) through a configured base URL and the compat flags of [`compat`].
//!
//! The plugin only translates: [`request`] builds a streamed `POST /chat/completions`,
//! [`decode`] turns its chunks into unified events, and [`errors`] classifies failures;
//! [`provider`] hands them to the provider kit. The host sends the request to the configured
//! base URL and attaches `OPENAI_API_KEY` as a bearer token; the key never enters the guest.

mod compat;
mod decode;
mod errors;
mod provider;
mod request;

provider_common::export_http_provider!(provider::OpenAi);
