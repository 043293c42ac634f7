//! `google`: Gemini through Google's Generative Language API.
//!
//! The plugin only translates: [`request`] builds a streamed `streamGenerateContent` call
//! (system instruction, function declarations, images, thinking config, thought signatures
//! replayed), [`decode`] turns its chunks into unified events, and [`errors`] classifies
//! failures; the provider kit exports the [`request::Google`] they make up. The host sends the request to the
//! configured base URL and attaches `GEMINI_API_KEY` in the `x-goog-api-key` header (not the
//! `key` query parameter, which would put the key in URLs and logs); the key never enters the
//! guest.

mod decode;
mod errors;
mod models;
mod request;
mod thinking;

provider_common::export_http_provider!(request::Google);
