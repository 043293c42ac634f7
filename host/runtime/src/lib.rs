//! tack's plugin runtime.
//!
//! One wasmtime [`Engine`](wasmtime::Engine) per process, an on-disk cache of compiled components,
//! per-store memory and table limits, per-call deadlines driven by epoch interruption, and a
//! capability broker (one file per capability under [`broker`]) that gives a plugin nothing but
//! what its manifest declares and the user granted.

pub mod bindings;
pub mod bridge;
pub mod broker;
pub mod budget;
pub mod cache;
pub mod children;
pub mod engine;
pub mod engine_config;
pub mod error;
pub mod fan_out;
pub mod git;
pub mod grants;
pub mod known_registrations;
pub mod limits;
pub mod manifest;
pub mod plugin;
pub mod plugin_set;
pub mod sandbox;
pub mod services;
pub mod state;

pub use bindings::{API_VERSION, SUPPORTED_API_VERSIONS};
pub use engine::{CallLimits, Runtime, RuntimeConfig};
pub use error::{LoadError, PluginError};
pub use manifest::{
    Access, Capabilities, FsGrant, Manifest, PackageSection, PathSet, PayloadAccess,
};
pub use plugin::{
    validate_component, CompletionItem, Drawing, EditorView, HostContext, InputCompletion,
    LoadedPlugin, PluginSource, PluginSpec, ProviderSession, RenderedToolCall, ToolCallView,
    ToolResultView,
};
pub use plugin_set::PluginSet;
pub use sandbox::{SandboxMode, SandboxPolicy};
pub use services::{
    AgentServices, CompactionRequest, ComponentFrame, ComponentInput, ComponentPlacement, End,
    EndRequest, HeadlessUi, HostServices, ModelControl, PluginAgent, PluginSession, PluginUi,
    ProviderRegistry, RegisteredProvider, ScreenRead, ScreenReading, ScreenSetting,
    SessionServices, WidgetPlacement, WorkingIndicator,
};

/// Types of the newest WIT version, used across the host whatever version a plugin speaks.
pub mod api {
    pub use crate::bindings::latest::exports::tack::plugin::guest::{
        AgentStartPatch, BlockDelta, CompactDecision, CompactRequest, ErrorKind, HttpCall,
        InjectedMessage, InputAction, ProviderError, ProviderRequest, ReasoningLevel, RequestPlan,
        SseEvent, StopReason, StreamEvent, ToolCallStart, ToolDecision, Usage,
    };
    pub use crate::bindings::latest::tack::plugin::session::{Delivery, OutgoingMessage};
    pub use crate::bindings::latest::tack::plugin::types::{
        AuthScheme, CommandSpec, ContentBlock, EventKind, ExecutionMode, HookKind, Image,
        InitContext, InputKind, Level, ModelCost, ModelSpec, ProviderSpec, Registration, ToolCall,
        ToolResult, ToolSpec,
    };
}
