//! Providers and models: the catalog plugins offer, which one a run uses, `--model` patterns,
//! cycling and switching models between runs, and the router that sends each request to the
//! provider of its model.

pub mod azure;
pub mod bedrock;
pub mod catalog;
pub mod choose;
pub mod cycle;
pub mod discover;
pub mod host_credentials;
pub mod pattern;
pub mod presets;
pub mod router;
pub mod serve;
pub mod switch;
mod url_template;
pub mod vertex;
