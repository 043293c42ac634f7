//! The capability broker: one file per capability. Each checks the plugin's effective grant (what
//! its manifest declares and the user granted) on every use.

pub mod agents;
pub mod bus;
pub mod commands;
pub mod control;
pub mod dirs;
pub mod events;
pub mod exec;
pub mod files;
pub mod fs;
pub mod http;
pub mod models;
pub mod process;
pub mod project;
pub mod providers;
pub mod screen;
pub mod secrets;
pub mod shortcuts;
pub mod tools;
