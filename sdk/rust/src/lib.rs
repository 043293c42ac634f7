//! Rust SDK for tack plugins.
//!
//! A tack plugin is a WebAssembly component exporting the `guest` interface of the WIT package
//! `tack:plugin@0.1.0` (see `wit/plugin/v0.1.0/` at the repository root). This crate wraps the generated
//! bindings in a [`Plugin`] trait whose methods all have defaults except [`Plugin::init`], so a
//! plugin implements only what it registers, and [`export_plugin!`] turns a type implementing it
//! into the component's exports.
//!
//! Build plugins as a `cdylib` for `wasm32-wasip2`; rustc then emits a component directly:
//!
//! ```toml
//! [lib]
//! crate-type = ["cdylib"]
//!
//! [dependencies]
//! tack-sdk = { path = "../../sdk/rust" }
//! serde = { version = "1", features = ["derive"] }
//! ```
//!
//! ```text
//! cargo build --release --target wasm32-wasip2
//! ```
//!
//! # Example
//!
//! A plugin with a tool, a command and a hook:
//!
//! ```rust,no_run
//! use serde::Deserialize;
//! use tack_sdk::serde_json::json;
//! use tack_sdk::{
//!     export_plugin, log, HookKind, InitContext, Plugin, Registration, ToolCall, ToolDecision,
//!     ToolResult, ToolSpec,
//! };
//!
//! #[derive(Default)]
//! struct Shout {
//!     calls: u32,
//! }
//!
//! #[derive(Deserialize)]
//! struct ShoutArgs {
//!     text: String,
//! }
//!
//! impl Plugin for Shout {
//!     fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
//!         log::info(format!("shout loaded in {}", ctx.workspace));
//!         Ok(Registration::new()
//!             .tool(ToolSpec::new(
//!                 "shout",
//!                 "Shout",
//!                 "Returns the given text in upper case.",
//!                 json!({
//!                     "type": "object",
//!                     "properties": { "text": { "type": "string" } },
//!                     "required": ["text"]
//!                 }),
//!             ))
//!             .command("shouts", "Show how many times the shout tool ran")
//!             .hook(HookKind::BeforeToolCall))
//!     }
//!
//!     fn call_tool(&mut self, call: ToolCall) -> ToolResult {
//!         match call.name.as_str() {
//!             "shout" => match call.args::<ShoutArgs>() {
//!                 Ok(args) => {
//!                     self.calls += 1;
//!                     ToolResult::text(args.text.to_uppercase())
//!                         .with_details(json!({ "calls": self.calls }))
//!                 }
//!                 Err(e) => ToolResult::error(e),
//!             },
//!             other => ToolResult::error(format!("unknown tool `{other}`")),
//!         }
//!     }
//!
//!     fn run_command(&mut self, name: &str, _args: &str) -> Result<Option<String>, String> {
//!         match name {
//!             "shouts" => Ok(Some(format!("shout ran {} times", self.calls))),
//!             other => Err(format!("unknown command `/{other}`")),
//!         }
//!     }
//!
//!     fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
//!         if call.name == "bash" && call.arguments.contains("rm -rf /") {
//!             ToolDecision::Block("refusing to wipe the disk".into())
//!         } else {
//!             ToolDecision::Allow
//!         }
//!     }
//! }
//!
//! export_plugin!(Shout);
//! ```
//!
//! # Modules
//! - [`host`], [`ui`], [`session`], [`agent`], [`exec`], [`http`]: the host's imports (the
//!   generated functions, plus conveniences such as [`exec::run`] and [`session::append_state`]).
//! - [`agents`]: sub-agents, child agent runs with their own context (`tack:agents`, needs the
//!   `agents` grant), with a typed request builder.
//! - [`tasks`]: fan-out of one call over several instances of the plugin, for work that wants
//!   more than one core ([`Plugin::run_task`] handles each task).
//! - [`process`]: long-lived programs the plugin writes to and reads from (0.2.0, needs the
//!   `process` grant), for MCP servers, language servers and shells.
//! - [`events`]: subscribe to the agent's events by name (every event of `tack --mode json`,
//!   `message_update` included) and receive them with [`Observer`] (0.2.0).
//! - [`bus`]: an event bus between plugins, Pi's `pi.events`, on channels granted to both
//!   sides (0.2.0, needs the `bus` grant); messages arrive at [`Observer`].
//! - [`tools`]: register and remove tools while running, and list every plugin's tools with
//!   their schemas (0.2.0).
//! - [`control`]: the model, context usage, idleness, the session's name and labels, and
//!   compaction on request, as Pi's `ctx` gives them (0.2.0).
//! - [`screen`]: widgets below the editor as well as above it, the title, the editor's text,
//!   the working row, the header and footer, tool expansion, the theme, components (0.2.0).
//! - [`shortcuts`]: keys the plugin binds in the terminal UI, heard by its [`Observer`] (0.2.0).
//! - [`ProviderHooks`]: see each provider request's body before it is sent, and the status and
//!   headers of the answer, as Pi's `before_provider_request` and `after_provider_response`
//!   (0.2.0, needs the `provider_payload` grant; replacing the body needs `"replace"`).
//! - [`SessionHooks`]: a say on the user's session moves (`/new`, `/resume`, `/fork`,
//!   `/clone`, `/tree`), as Pi's `session_before_switch`, `session_before_fork` and
//!   `session_before_tree` (0.2.0).
//! - [`Completions`]: items in the editor's completion popup for the plugin's commands'
//!   arguments (Pi's `getArgumentCompletions`) and, once [`screen::set_input_completion`] turned
//!   it on (the `components` grant), for the draft at the cursor (Pi's
//!   `addAutocompleteProvider`); export it with [`export_completions!`] (0.2.0).
//! - [`Renderers`]: lines for the plugin's own tools' calls and results and its own messages
//!   in the terminal UI (Pi's `renderCall`, `renderResult` and `registerMessageRenderer`);
//!   export it with [`export_renderers!`] (0.2.0).
//! - [`Editor`]: an editor of the plugin's own in place of tack's (Pi's `setEditorComponent`,
//!   with [`screen::set_editor`] and the `components` grant); export it with
//!   [`export_editor!`] (0.2.0).
//! - [`files`]: permission bits, which WASI's filesystem API lacks.
//! - [`project`]: whether the user trusts the project.
//! - [`log`]: one-line logging through the host.
//! - [`sse_local`]: an event-stream format for providers that answer without the network.

mod adapter;
mod helpers;
pub mod sse_local;

#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit/plugin/v0.1.0",
        // `plugin` plus the optional extensions; a plugin imports only the extensions it calls
        // (unused imports are left out of the component), and one that never starts tasks
        // answers `run-task` with an error.
        world: "plugin-extended",
        pub_export_macro: true,
        export_macro_name: "__export_plugin_bindings",
        default_bindings_module: "tack_sdk::bindings",
        additional_derives: [PartialEq],
    });
}

/// What `tack:plugin@0.2.0` adds to 0.1.0 (see [`process`]). Its world includes 0.1.0's
/// unchanged, so only the additions are generated here, beside [`bindings`]; a plugin that calls
/// none of them imports none, and stays a 0.1.0 plugin any 0.1 host loads.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod additions {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/additions@0.2.0",
        with: {
            "tack:plugin/types@0.1.0": crate::bindings::tack::plugin::types,
            "tack:plugin/http@0.1.0": crate::bindings::tack::plugin::http,
            "tack:plugin/session@0.1.0": crate::bindings::tack::plugin::session,
        },
        additional_derives: [PartialEq],
    });
}

/// The optional export of `tack:plugin@0.2.0`, `observer` (see [`events`]), generated apart so
/// only a plugin that calls [`export_observer!`] exports it.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod observer_bindings {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/observer-export@0.2.0",
        with: {
            "tack:plugin/types@0.1.0": crate::bindings::tack::plugin::types,
        },
        pub_export_macro: true,
        export_macro_name: "__export_observer_bindings",
        default_bindings_module: "tack_sdk::observer_bindings",
    });
}

/// The optional export of `tack:plugin@0.2.0`, `provider-hooks` (see [`ProviderHooks`]),
/// generated apart so only a plugin that calls [`export_provider_hooks!`] exports it.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod provider_hooks_bindings {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/provider-hooks-export@0.2.0",
        with: {
            "tack:plugin/types@0.1.0": crate::bindings::tack::plugin::types,
        },
        pub_export_macro: true,
        export_macro_name: "__export_provider_hooks_bindings",
        default_bindings_module: "tack_sdk::provider_hooks_bindings",
    });
}

/// The optional export of `tack:plugin@0.2.0`, `session-hooks` (see [`SessionHooks`]),
/// generated apart so only a plugin that calls [`export_session_hooks!`] exports it.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod session_hooks_bindings {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/session-hooks-export@0.2.0",
        pub_export_macro: true,
        export_macro_name: "__export_session_hooks_bindings",
        default_bindings_module: "tack_sdk::session_hooks_bindings",
    });
}

/// The optional export of `tack:plugin@0.2.0`, `completions` (see [`Completions`]), generated
/// apart so only a plugin that calls [`export_completions!`] exports it.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod completions_bindings {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/completions-export@0.2.0",
        pub_export_macro: true,
        export_macro_name: "__export_completions_bindings",
        default_bindings_module: "tack_sdk::completions_bindings",
    });
}

/// The optional export of `tack:plugin@0.2.0`, `renderers` (see [`Renderers`]), generated
/// apart so only a plugin that calls [`export_renderers!`] exports it.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod renderers_bindings {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/renderers-export@0.2.0",
        with: {
            "tack:plugin/types@0.1.0": crate::bindings::tack::plugin::types,
        },
        pub_export_macro: true,
        export_macro_name: "__export_renderers_bindings",
        default_bindings_module: "tack_sdk::renderers_bindings",
    });
}

/// The optional export of `tack:plugin@0.2.0`, `editor` (see [`Editor`]), generated apart so
/// only a plugin that calls [`export_editor!`] exports it.
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod editor_bindings {
    wit_bindgen::generate!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/editor-export@0.2.0",
        pub_export_macro: true,
        export_macro_name: "__export_editor_bindings",
        default_bindings_module: "tack_sdk::editor_bindings",
    });
}

/// `tack:agents@0.1.0`, a package of its own beside `tack:plugin` (see [`agents`]).
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod agents_bindings {
    wit_bindgen::generate!({
        path: "../../wit/agents/v0.1.0",
        world: "agents-client",
        additional_derives: [PartialEq],
    });
}

/// `tack:provider@0.1.0`, incremental provider requests, a package of its own beside
/// `tack:plugin` (see [`IncrementalProvider`]).
#[doc(hidden)]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
pub mod incremental_bindings {
    wit_bindgen::generate!({
        path: "../../wit/provider/v0.1.0",
        world: "incremental-provider",
        pub_export_macro: true,
        export_macro_name: "__export_incremental_bindings",
        default_bindings_module: "tack_sdk::incremental_bindings",
    });
}

pub use adapter::{
    CompletionItem, Completions, Decoder, Editor, EditorView, ForkPosition, ForkRequest,
    IncrementalProvider, InputCompletion, Observer, OutgoingRequest, Plugin, ProviderHooks,
    ProviderResponse, RenderOptions, RenderedCall, RenderedMessage, RenderedResult, Renderers,
    SessionDecision, SessionHooks, SwitchReason, SwitchRequest, TreeDecision, TreeRequest,
};
#[doc(hidden)]
pub use adapter::{
    CompletionsAdapter, DecoderAdapter, EditorAdapter, IncrementalAdapter, ObserverAdapter,
    PluginAdapter, ProviderHooksAdapter, RenderersAdapter, SessionHooksAdapter,
};
pub use helpers::{default_decode_error, progress};

pub use bindings::exports::tack::plugin::guest::{
    AgentStartPatch, BlockDelta, CompactDecision, CompactRequest, ErrorKind, HttpCall,
    InjectedMessage, InputAction, ProviderError, ProviderRequest, ReasoningLevel, RequestPlan,
    SseEvent, StopReason, StreamEvent, ToolCallStart, ToolDecision, Usage,
};
pub use bindings::tack::plugin::types::{
    AuthScheme, CommandSpec, ContentBlock, EventKind, ExecutionMode, HookKind, Image, InitContext,
    InputKind, Json, Level, ModelCost, ModelSpec, ProviderSpec, Registration, ToolCall, ToolResult,
    ToolSpec,
};

pub use serde;
pub use serde_json;

/// Host services every plugin may use: logging and tool progress (see also [`log`] and
/// [`progress`]).
pub mod host {
    pub use crate::bindings::tack::plugin::host::*;
}

/// Dialogs, notifications, status-line segments and widgets.
pub mod ui {
    pub use crate::bindings::tack::plugin::ui::*;
}

/// Control over the running agent's tool set.
pub mod agent {
    pub use crate::bindings::tack::plugin::agent::*;
}

/// Fan-out: split one call into tasks that the host runs at the same time on other instances of
/// this plugin, each handled by [`Plugin::run_task`]. A component instance is single-threaded;
/// this is how a plugin uses more than one core.
///
/// [`run`](tasks::run) waits for every task and returns their results in input order; the task
/// instances have this plugin's grants and went through its `init`, and they share the calling
/// call's deadline. Tasks cannot start tasks.
pub mod tasks {
    pub use crate::bindings::tack::plugin::tasks::*;
}

/// Unix permission bits, which `wasi:filesystem` cannot read or set: keep a file's mode when
/// replacing it. Paths are checked against the plugin's filesystem grants.
pub mod files {
    pub use crate::bindings::tack::plugin::files::*;
}

/// What the host knows about the project: [`project::trusted`] says whether the user trusts it,
/// so a policy can refuse to loosen itself by rules the project's own files ship.
pub mod project {
    pub use crate::bindings::tack::plugin::project::*;
}

/// Outbound HTTP (needs an `http` grant).
pub mod http {
    pub use crate::bindings::tack::plugin::http::*;
}

pub mod agents;
pub mod bus;
pub mod commands;
pub mod control;
pub mod events;
pub mod exec;
pub mod http_stream;
pub mod log;
pub mod models;
pub mod process;
pub mod providers;
pub mod screen;
pub mod session;
pub mod shortcuts;
pub mod tools;

/// Exports a type implementing [`Plugin`] as this component's `guest` interface.
///
/// Invoke it once, at the root of a `cdylib` crate: `tack_sdk::export_plugin!(MyPlugin);`.
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty) => {
        // The generated export macro only accepts an identifier, hence the alias.
        #[doc(hidden)]
        type __TackPluginExport = $crate::PluginAdapter<$plugin>;
        $crate::bindings::__export_plugin_bindings!(
            __TackPluginExport with_types_in $crate::bindings
        );
    };
}

/// Exports a type implementing [`Observer`] as this component's `tack:plugin/observer` export
/// (0.2.0), beside [`export_plugin!`] for the same type: `tack_sdk::export_observer!(MyPlugin);`.
#[macro_export]
macro_rules! export_observer {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackObserverExport = $crate::ObserverAdapter<$plugin>;
        $crate::observer_bindings::__export_observer_bindings!(
            __TackObserverExport with_types_in $crate::observer_bindings
        );
    };
}

/// Exports a type implementing [`ProviderHooks`] as this component's
/// `tack:plugin/provider-hooks` export (0.2.0), beside [`export_plugin!`] for the same type:
/// `tack_sdk::export_provider_hooks!(MyPlugin);`. The host calls it only when the user granted
/// the plugin `provider_payload` in its `tack.toml`.
#[macro_export]
macro_rules! export_provider_hooks {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackProviderHooksExport = $crate::ProviderHooksAdapter<$plugin>;
        $crate::provider_hooks_bindings::__export_provider_hooks_bindings!(
            __TackProviderHooksExport with_types_in $crate::provider_hooks_bindings
        );
    };
}

/// Exports a type implementing [`SessionHooks`] as this component's
/// `tack:plugin/session-hooks` export (0.2.0), beside [`export_plugin!`] for the same type:
/// `tack_sdk::export_session_hooks!(MyPlugin);`.
#[macro_export]
macro_rules! export_session_hooks {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackSessionHooksExport = $crate::SessionHooksAdapter<$plugin>;
        $crate::session_hooks_bindings::__export_session_hooks_bindings!(
            __TackSessionHooksExport with_types_in $crate::session_hooks_bindings
        );
    };
}

/// Exports a type implementing [`Completions`] as this component's `tack:plugin/completions`
/// export (0.2.0), beside [`export_plugin!`] for the same type:
/// `tack_sdk::export_completions!(MyPlugin);`.
#[macro_export]
macro_rules! export_completions {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackCompletionsExport = $crate::CompletionsAdapter<$plugin>;
        $crate::completions_bindings::__export_completions_bindings!(
            __TackCompletionsExport with_types_in $crate::completions_bindings
        );
    };
}

/// Exports a type implementing [`Renderers`] as this component's `tack:plugin/renderers`
/// export (0.2.0), beside [`export_plugin!`] for the same type:
/// `tack_sdk::export_renderers!(MyPlugin);`.
#[macro_export]
macro_rules! export_renderers {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackRenderersExport = $crate::RenderersAdapter<$plugin>;
        $crate::renderers_bindings::__export_renderers_bindings!(
            __TackRenderersExport with_types_in $crate::renderers_bindings
        );
    };
}

/// Exports a type implementing [`Editor`] as this component's `tack:plugin/editor` export
/// (0.2.0), beside [`export_plugin!`] for the same type: `tack_sdk::export_editor!(MyPlugin);`.
#[macro_export]
macro_rules! export_editor {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackEditorExport = $crate::EditorAdapter<$plugin>;
        $crate::editor_bindings::__export_editor_bindings!(
            __TackEditorExport with_types_in $crate::editor_bindings
        );
    };
}

/// Exports a type implementing [`IncrementalProvider`] as this component's
/// `tack:provider/incremental` interface, beside [`export_plugin!`] for the same type:
/// `tack_sdk::export_incremental_provider!(MyProvider);`.
#[macro_export]
macro_rules! export_incremental_provider {
    ($plugin:ty) => {
        #[doc(hidden)]
        type __TackIncrementalExport = $crate::IncrementalAdapter<$plugin>;
        $crate::incremental_bindings::__export_incremental_bindings!(
            __TackIncrementalExport with_types_in $crate::incremental_bindings
        );
    };
}
