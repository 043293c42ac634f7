//! The [`Plugin`] trait and the glue between it and the generated `Guest` trait.

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;

use crate::bindings::exports::tack::plugin::guest::{Guest, GuestDecoder};
use crate::bindings::exports::tack::plugin::task_runner::Guest as TaskRunnerGuest;
use crate::{
    default_decode_error, AgentStartPatch, CompactDecision, CompactRequest, ErrorKind, EventKind,
    InitContext, InputAction, ProviderError, ProviderRequest, Registration, RequestPlan, SseEvent,
    StreamEvent, ToolCall, ToolDecision, ToolResult,
};

/// What a plugin implements. Every method but [`Plugin::init`] has a default, so a plugin writes
/// only the handlers for what its [`Registration`] lists; the host never calls the others.
///
/// One value of the type lives for the whole life of the component instance: it is created with
/// [`Default`] when the host calls `init`, and every later call gets `&mut self`, so fields are
/// the natural place for in-memory state. State that must follow the session's branches belongs
/// in session entries (see [`crate::session::append_state`]).
pub trait Plugin: Default + 'static {
    /// Called once, before anything else. Returns what the plugin provides.
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String>;

    /// Runs one of the plugin's tools. Failures the model should see are
    /// [`ToolResult::error`]s.
    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        ToolResult::error(format!("unknown tool `{}`", call.name))
    }

    /// Runs `/name args`; `Ok(Some(text))` shows `text` to the user.
    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        let _ = args;
        Err(format!("unknown command `/{name}`"))
    }

    /// `before-tool-call` hook: allow, block or rewrite a call.
    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        let _ = call;
        ToolDecision::Allow
    }

    /// `after-tool-call` hook: `Some` replaces the result.
    fn after_tool_call(&mut self, call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        let _ = (call, result);
        None
    }

    /// `input` hook: transform or consume the user's text.
    fn on_input(&mut self, text: &str) -> InputAction {
        let _ = text;
        InputAction::Continue
    }

    /// `before-agent-start` hook: change the system prompt or inject messages.
    fn before_agent_start(&mut self, prompt: &str, system_prompt: &str) -> AgentStartPatch {
        let _ = (prompt, system_prompt);
        AgentStartPatch::default()
    }

    /// `context` hook: receives the messages about to be sent (JSON array); `Some` replaces
    /// them for this provider call.
    fn context(&mut self, messages: &str) -> Option<String> {
        let _ = messages;
        None
    }

    /// `before-compact` hook: let the host summarize, cancel, or supply the summary.
    fn before_compact(&mut self, request: CompactRequest) -> CompactDecision {
        let _ = request;
        CompactDecision::Proceed
    }

    /// Lifecycle events the plugin subscribed to; `data` is the event as JSON.
    fn on_event(&mut self, kind: EventKind, data: &str) {
        let _ = (kind, data);
    }

    /// Providers: turns the unified request into an HTTP request description, or into a local
    /// response body ([`RequestPlan::Local`]).
    fn build_request(&mut self, request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        Err(ProviderError::new(
            ErrorKind::Other,
            format!(
                "this plugin does not implement provider `{}`",
                request.provider
            ),
        ))
    }

    /// Providers: turns a non-2xx response into an error. The default classifies by status
    /// (see [`default_decode_error`]).
    fn decode_error(
        &mut self,
        provider: &str,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> ProviderError {
        let _ = provider;
        default_decode_error(status, headers, body)
    }

    /// Providers: a fresh decoder for one response body.
    fn new_decoder(&mut self, provider: &str, model: &str) -> Box<dyn Decoder> {
        let _ = model;
        Box::new(NoDecoder {
            provider: provider.to_string(),
        })
    }

    /// Fan-out: runs one task this plugin started with [`crate::tasks::run`], on another
    /// instance of the plugin (one that went through `init` like any other). Input and output
    /// are bytes in a format of the plugin's choosing.
    fn run_task(&mut self, input: Vec<u8>) -> Result<Vec<u8>, String> {
        let _ = input;
        Err("this plugin runs no tasks".to_string())
    }
}

/// Per-response decoding state of a provider: turns server-sent events into stream events.
pub trait Decoder {
    /// One server-sent event, already framed by the host.
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError>;
    /// The body ended. A stream cut before its terminator must be an error here.
    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError>;
}

struct NoDecoder {
    provider: String,
}

impl NoDecoder {
    fn error(&self) -> ProviderError {
        ProviderError::new(
            ErrorKind::Other,
            format!(
                "this plugin has no stream decoder for provider `{}`",
                self.provider
            ),
        )
    }
}

impl Decoder for NoDecoder {
    fn push(&mut self, _event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        Err(self.error())
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        Err(self.error())
    }
}

/// A provider that keeps the conversation it converted for its previous request and that
/// request's body: it can be sent only the messages that follow what it keeps, and return only
/// the part of the body that changed (`tack:provider@0.1.0`). Export it with
/// [`export_incremental_provider!`](crate::export_incremental_provider) beside
/// [`export_plugin!`](crate::export_plugin).
pub trait IncrementalProvider: Plugin {
    /// Whether the next [`Plugin::build_request`] may carry only the messages after the first
    /// `kept` of the previous request this instance built, for `provider` and `model`: true
    /// only when the plugin still holds those `kept` messages converted for them. After true,
    /// the next request's `messages` is the JSON array of the messages after them.
    /// `held_body` is the length of this instance's previous body that the host holds (0 for
    /// none).
    fn expect_messages_after(
        &mut self,
        kept: u32,
        provider: &str,
        model: &str,
        held_body: u64,
    ) -> bool;

    /// How many bytes of the held body come before the body the latest
    /// [`Plugin::build_request`] returned (0: that body is whole).
    fn body_prefix(&mut self) -> u64;
}

/// Bridges an [`IncrementalProvider`] to the generated `incremental` export.
#[doc(hidden)]
pub struct IncrementalAdapter<T>(PhantomData<fn() -> T>);

impl<T: IncrementalProvider>
    crate::incremental_bindings::exports::tack::provider::incremental::Guest
    for IncrementalAdapter<T>
{
    fn expect_messages_after(kept: u32, provider: String, model: String, held_body: u64) -> bool {
        with_plugin::<T, _>(|p| p.expect_messages_after(kept, &provider, &model, held_body))
    }

    fn body_prefix() -> u64 {
        with_plugin::<T, _>(|p| p.body_prefix())
    }
}

/// A plugin that receives the events it subscribed to with [`crate::events::subscribe`]
/// (`tack:plugin/observer`, 0.2.0); export it with [`crate::export_observer!`].
pub trait Observer: Plugin {
    /// One event: `name` is its `type`, `data` the event as JSON in tack's own event shape (see
    /// `wit/plugin/v0.2.0/events.wit`).
    fn on_named_event(&mut self, name: &str, data: &str);
}

/// Bridges an [`Observer`] to the generated `observer` export.
#[doc(hidden)]
pub struct ObserverAdapter<T>(PhantomData<fn() -> T>);

impl<T: Observer> crate::observer_bindings::exports::tack::plugin0_2_0::observer::Guest
    for ObserverAdapter<T>
{
    fn on_event(name: String, data: String) {
        with_plugin::<T, _>(|p| p.on_named_event(&name, &data))
    }
}

/// A provider request about to be sent (`tack:plugin/provider-hooks`, 0.2.0).
pub use crate::provider_hooks_bindings::exports::tack::plugin0_2_0::provider_hooks::{
    OutgoingRequest, ProviderResponse,
};

/// Pi's `before_provider_request` and `after_provider_response`
/// (`tack:plugin/provider-hooks`, 0.2.0); export it with [`crate::export_provider_hooks!`].
/// The host calls these only when the user granted the plugin `provider_payload`.
pub trait ProviderHooks: Plugin {
    /// Each request's body before it is sent (`request.payload`, JSON text). `Some(body)` sends
    /// `body` instead, which needs `provider_payload = "replace"`.
    fn before_provider_request(&mut self, request: &OutgoingRequest) -> Option<String> {
        let _ = request;
        None
    }

    /// The status and headers of each answer (credential headers left out), when its head
    /// arrives.
    fn after_provider_response(&mut self, response: &ProviderResponse) {
        let _ = response;
    }
}

/// Bridges a [`ProviderHooks`] to the generated `provider-hooks` export.
#[doc(hidden)]
pub struct ProviderHooksAdapter<T>(PhantomData<fn() -> T>);

impl<T: ProviderHooks>
    crate::provider_hooks_bindings::exports::tack::plugin0_2_0::provider_hooks::Guest
    for ProviderHooksAdapter<T>
{
    fn before_provider_request(request: OutgoingRequest) -> Option<String> {
        with_plugin::<T, _>(|p| p.before_provider_request(&request))
    }

    fn after_provider_response(response: ProviderResponse) {
        with_plugin::<T, _>(|p| p.after_provider_response(&response))
    }
}

pub use crate::session_hooks_bindings::exports::tack::plugin0_2_0::session_hooks::{
    ForkPosition, ForkRequest, SessionDecision, SwitchReason, SwitchRequest, TreeDecision,
    TreeRequest,
};

/// Pi's `session_before_switch`, `session_before_fork` and `session_before_tree`
/// (`tack:plugin/session-hooks`, 0.2.0); export it with [`crate::export_session_hooks!`]. The
/// first plugin that cancels decides; every hook proceeds unless overridden.
pub trait SessionHooks: Plugin {
    /// Before `/new` or `/resume` replaces the session.
    fn before_switch(&mut self, request: &SwitchRequest) -> SessionDecision {
        let _ = request;
        SessionDecision::Proceed
    }

    /// Before `/fork` or `/clone` makes a new session from this one.
    fn before_fork(&mut self, request: &ForkRequest) -> SessionDecision {
        let _ = request;
        SessionDecision::Proceed
    }

    /// Before `/tree` moves the session; may supply the summary of the branch left.
    fn before_tree(&mut self, request: &TreeRequest) -> TreeDecision {
        let _ = request;
        TreeDecision::Proceed
    }
}

/// Bridges a [`SessionHooks`] to the generated `session-hooks` export.
#[doc(hidden)]
pub struct SessionHooksAdapter<T>(PhantomData<fn() -> T>);

impl<T: SessionHooks>
    crate::session_hooks_bindings::exports::tack::plugin0_2_0::session_hooks::Guest
    for SessionHooksAdapter<T>
{
    fn before_switch(request: SwitchRequest) -> SessionDecision {
        with_plugin::<T, _>(|p| p.before_switch(&request))
    }

    fn before_fork(request: ForkRequest) -> SessionDecision {
        with_plugin::<T, _>(|p| p.before_fork(&request))
    }

    fn before_tree(request: TreeRequest) -> TreeDecision {
        with_plugin::<T, _>(|p| p.before_tree(&request))
    }
}

pub use crate::completions_bindings::exports::tack::plugin0_2_0::completions::{
    CompletionItem, InputCompletion,
};

/// Completions in the user's editor (`tack:plugin/completions`, 0.2.0): Pi's
/// `getArgumentCompletions` for this plugin's commands, and its `addAutocompleteProvider` for the
/// draft once [`crate::screen::set_input_completion`] turned it on (with the `components`
/// grant). Export it with [`crate::export_completions!`]; both offer nothing unless overridden.
pub trait Completions: Plugin {
    /// Items for the argument of `command`, given what follows `/command ` so far.
    fn command_arguments(&mut self, command: &str, prefix: &str) -> Option<Vec<CompletionItem>> {
        let _ = (command, prefix);
        None
    }

    /// Items at the cursor of the draft (`lines`, cursor line and column in characters), and
    /// the text before the cursor they replace; `None` leaves it to tack's own completions.
    fn input(&mut self, lines: &[String], line: u32, col: u32) -> Option<InputCompletion> {
        let _ = (lines, line, col);
        None
    }
}

/// Bridges a [`Completions`] to the generated `completions` export.
#[doc(hidden)]
pub struct CompletionsAdapter<T>(PhantomData<fn() -> T>);

impl<T: Completions> crate::completions_bindings::exports::tack::plugin0_2_0::completions::Guest
    for CompletionsAdapter<T>
{
    fn command_arguments(command: String, prefix: String) -> Option<Vec<CompletionItem>> {
        with_plugin::<T, _>(|p| p.command_arguments(&command, &prefix))
    }

    fn input(lines: Vec<String>, cursor_line: u32, cursor_col: u32) -> Option<InputCompletion> {
        with_plugin::<T, _>(|p| p.input(&lines, cursor_line, cursor_col))
    }
}

pub use crate::renderers_bindings::exports::tack::plugin0_2_0::renderers::{
    CustomMessage as RenderedMessage, RenderOptions, ToolCall as RenderedCall,
    ToolResult as RenderedResult,
};

/// Lines for this plugin's own blocks in the terminal UI (`tack:plugin/renderers`, 0.2.0): its
/// tools' calls and results (Pi's `renderCall` and `renderResult`) and its custom messages (Pi's
/// `registerMessageRenderer`), at most `options.width` columns wide. Export it with
/// [`crate::export_renderers!`]; each leaves the block to tack unless overridden.
pub trait Renderers: Plugin {
    /// The heading of a call of this plugin's tool, shown after the tool's name.
    fn render_call(&mut self, call: &RenderedCall, options: RenderOptions) -> Option<Vec<String>> {
        let _ = (call, options);
        None
    }

    /// What a call of this plugin's tool returned so far, under its heading.
    fn render_result(
        &mut self,
        call: &RenderedCall,
        outcome: &RenderedResult,
        options: RenderOptions,
    ) -> Option<Vec<String>> {
        let _ = (call, outcome, options);
        None
    }

    /// A custom message this plugin sent, under tack's line naming its type and sender.
    fn render_message(
        &mut self,
        message: &RenderedMessage,
        options: RenderOptions,
    ) -> Option<Vec<String>> {
        let _ = (message, options);
        None
    }
}

/// Bridges a [`Renderers`] to the generated `renderers` export.
#[doc(hidden)]
pub struct RenderersAdapter<T>(PhantomData<fn() -> T>);

impl<T: Renderers> crate::renderers_bindings::exports::tack::plugin0_2_0::renderers::Guest
    for RenderersAdapter<T>
{
    fn render_call(call: RenderedCall, options: RenderOptions) -> Option<Vec<String>> {
        with_plugin::<T, _>(|p| p.render_call(&call, options))
    }

    fn render_result(
        call: RenderedCall,
        outcome: RenderedResult,
        options: RenderOptions,
    ) -> Option<Vec<String>> {
        with_plugin::<T, _>(|p| p.render_result(&call, &outcome, options))
    }

    fn render_message(message: RenderedMessage, options: RenderOptions) -> Option<Vec<String>> {
        with_plugin::<T, _>(|p| p.render_message(&message, options))
    }
}

pub use crate::editor_bindings::exports::tack::plugin0_2_0::editor::EditorView;

/// An editor of this plugin's own in place of tack's (`tack:plugin/editor`, 0.2.0; Pi's
/// `setEditorComponent`), put there with [`crate::screen::set_editor`] (the `components`
/// grant): its lines at a width, and the keys typed in it (named as a component's keys are).
/// Export it with [`crate::export_editor!`].
pub trait Editor: Plugin {
    /// The editor at `width` columns, with no key.
    fn view(&mut self, width: u32) -> EditorView;

    /// A key typed in the editor, and the editor after it; `submitted` is sent as the user's
    /// prompt.
    fn key(&mut self, key: &str, width: u32) -> EditorView;

    /// Text pasted into the editor; by default, typed key by key.
    fn paste(&mut self, text: &str, width: u32) -> EditorView {
        let mut last = None;
        for c in text.chars() {
            let key = if c == ' ' {
                "space".to_string()
            } else {
                c.to_string()
            };
            last = Some(self.key(&key, width));
        }
        last.unwrap_or_else(|| self.view(width))
    }
}

/// Bridges an [`Editor`] to the generated `editor` export.
#[doc(hidden)]
pub struct EditorAdapter<T>(PhantomData<fn() -> T>);

impl<T: Editor> crate::editor_bindings::exports::tack::plugin0_2_0::editor::Guest
    for EditorAdapter<T>
{
    fn view(width: u32) -> EditorView {
        with_plugin::<T, _>(|p| p.view(width))
    }

    fn key(key: String, width: u32) -> EditorView {
        with_plugin::<T, _>(|p| p.key(&key, width))
    }

    fn paste(text: String, width: u32) -> EditorView {
        with_plugin::<T, _>(|p| p.paste(&text, width))
    }
}

thread_local! {
    // A component instance is single-threaded and holds one plugin; `Any` lets this non-generic
    // slot hold whichever type `export_plugin!` named.
    static PLUGIN: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

fn with_plugin<T: Plugin, R>(f: impl FnOnce(&mut T) -> R) -> R {
    PLUGIN.with(|slot| {
        let mut slot = slot.borrow_mut();
        let boxed = slot.get_or_insert_with(|| Box::new(T::default()));
        if !boxed.is::<T>() {
            *boxed = Box::new(T::default());
        }
        match boxed.downcast_mut::<T>() {
            Some(plugin) => f(plugin),
            None => unreachable!("the plugin slot was just filled with this type"),
        }
    })
}

/// Implements the generated `Guest` trait for a [`Plugin`]; used by [`crate::export_plugin!`].
#[doc(hidden)]
pub struct PluginAdapter<T>(PhantomData<fn() -> T>);

impl<T: Plugin> Guest for PluginAdapter<T> {
    type Decoder = DecoderAdapter<T>;

    fn init(ctx: InitContext) -> Result<Registration, String> {
        PLUGIN.with(|slot| *slot.borrow_mut() = Some(Box::new(T::default())));
        with_plugin::<T, _>(|p| p.init(&ctx))
    }

    fn call_tool(call: ToolCall) -> ToolResult {
        with_plugin::<T, _>(|p| p.call_tool(call))
    }

    fn run_command(name: String, args: String) -> Result<Option<String>, String> {
        with_plugin::<T, _>(|p| p.run_command(&name, &args))
    }

    fn before_tool_call(call: ToolCall) -> ToolDecision {
        with_plugin::<T, _>(|p| p.before_tool_call(&call))
    }

    fn after_tool_call(call: ToolCall, result: ToolResult) -> Option<ToolResult> {
        with_plugin::<T, _>(|p| p.after_tool_call(&call, &result))
    }

    fn on_input(text: String) -> InputAction {
        with_plugin::<T, _>(|p| p.on_input(&text))
    }

    fn before_agent_start(prompt: String, system_prompt: String) -> AgentStartPatch {
        with_plugin::<T, _>(|p| p.before_agent_start(&prompt, &system_prompt))
    }

    fn context(messages: String) -> Option<String> {
        with_plugin::<T, _>(|p| p.context(&messages))
    }

    fn before_compact(request: CompactRequest) -> CompactDecision {
        with_plugin::<T, _>(|p| p.before_compact(request))
    }

    fn on_event(kind: EventKind, data: String) {
        with_plugin::<T, _>(|p| p.on_event(kind, &data))
    }

    fn build_request(request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        with_plugin::<T, _>(|p| p.build_request(request))
    }

    fn decode_error(
        provider: String,
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> ProviderError {
        with_plugin::<T, _>(|p| p.decode_error(&provider, status, &headers, &body))
    }
}

impl<T: Plugin> TaskRunnerGuest for PluginAdapter<T> {
    fn run_task(input: Vec<u8>) -> Result<Vec<u8>, String> {
        with_plugin::<T, _>(|p| p.run_task(input))
    }
}

/// The `decoder` resource of a [`Plugin`]: wraps the [`Decoder`] its `new_decoder` returned.
#[doc(hidden)]
pub struct DecoderAdapter<T> {
    inner: RefCell<Box<dyn Decoder>>,
    _plugin: PhantomData<fn() -> T>,
}

impl<T: Plugin> GuestDecoder for DecoderAdapter<T> {
    fn new(provider: String, model: String) -> Self {
        DecoderAdapter {
            inner: RefCell::new(with_plugin::<T, _>(|p| p.new_decoder(&provider, &model))),
            _plugin: PhantomData,
        }
    }

    fn push(&self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        self.inner.borrow_mut().push(event)
    }

    fn finish(&self) -> Result<Vec<StreamEvent>, ProviderError> {
        self.inner.borrow_mut().finish()
    }
}
