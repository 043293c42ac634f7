//! The tack plugin SDK for Zig, over the C SDK: the bindings wit-bindgen generates for the
//! `plugin-extended` world (`tack plugin c-bindgen`), the C helpers in tack.h, and this module,
//! which turns a Zig namespace into the component's exports.
//!
//!     const tack = @import("tack");
//!
//!     pub fn init(ctx: *tack.Init) !void {
//!         tack.log(.info, "ready, config {s}", .{ctx.config});
//!         try ctx.tool("shout", "Shout", "Upper-cases a text.", "{\"type\":\"object\"}");
//!     }
//!
//!     pub fn callTool(call: tack.Call) tack.ToolResult { ... }
//!
//!     comptime {
//!         tack.exportPlugin(@This());
//!     }
//!
//! `exportPlugin` exports what the namespace declares: `init` (required), and optionally
//! `callTool`, `runCommand`, `beforeToolCall`, `runTask` (the tasks `tasks.run` starts) and, on
//! `tack:plugin@0.2.0`, `onEvent` (the events `tack.v2.subscribe` asked for; see `v2`). Every
//! other export of the world keeps the C SDK's safe default (tack_defaults.c); a plugin that
//! needs one writes it against the C names in `tack.c`.
//!
//! Memory: every handler gets an arena (`call.arena`, `ctx.arena`, ...) that lives until the
//! handler returns; what it returns may live there, since the SDK copies it to the host.

const std = @import("std");

/// The C SDK (tack.h) and the generated bindings, as translated by `zig translate-c`.
pub const c = @import("c");

/// The outcome of something that can fail with a message for the user or the model (the WIT's
/// `result<T, string>`).
pub fn Outcome(comptime T: type) type {
    return union(enum) {
        ok: T,
        err: []const u8,
    };
}

// ---- strings ------------------------------------------------------------------------------

fn slice(s: c.plugin_string_t) []const u8 {
    return if (s.len == 0) "" else s.ptr[0..s.len];
}

fn bytes(s: c.plugin_list_u8_t) []const u8 {
    return if (s.len == 0) "" else s.ptr[0..s.len];
}

/// A borrowed WIT string over `s`, for calls into the host (which copy what they keep).
fn borrow(s: []const u8) c.plugin_string_t {
    return .{ .ptr = @constCast(s.ptr), .len = s.len };
}

/// A heap copy of `s` as a WIT string, for what an export returns (the glue frees it).
fn own(out: *c.plugin_string_t, s: []const u8) void {
    c.tack_string_dup_n(out, s.ptr, s.len);
}

fn cstr(arena: std.mem.Allocator, s: []const u8) [*c]const u8 {
    const z = arena.dupeSentinel(u8, s, 0) catch oom();
    return z.ptr;
}

fn oom() noreturn {
    // An allocation failure inside a plugin has no recovery: trap, and the host reports it.
    @trap();
}

// ---- host services ------------------------------------------------------------------------

pub const Level = enum(u8) { debug, info, warn, err };

/// Writes a line to tack's log.
pub fn log(level: Level, comptime fmt: []const u8, args: anytype) void {
    var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
    defer arena.deinit();
    const message = std.fmt.allocPrint(arena.allocator(), fmt, args) catch oom();
    var text = borrow(message);
    c.tack_plugin_host_log(@intFromEnum(level), &text);
}

/// Plugin state kept in `custom` session entries, so it follows the session's branches.
pub const session = struct {
    /// The JSON `data` of the newest `custom` entry of `custom_type` on the active branch.
    pub fn latestState(arena: std.mem.Allocator, custom_type: []const u8) ?[]const u8 {
        var out: c.plugin_string_t = undefined;
        if (!c.tack_latest_state(cstr(arena, custom_type), &out)) return null;
        defer c.plugin_string_free(&out);
        return arena.dupe(u8, slice(out)) catch oom();
    }

    /// Appends a `custom` entry of `custom_type` holding `json`.
    pub fn appendState(arena: std.mem.Allocator, custom_type: []const u8, state_json: []const u8) Outcome(void) {
        var err: c.plugin_string_t = undefined;
        if (c.tack_append_state(cstr(arena, custom_type), cstr(arena, state_json), &err)) return .ok;
        defer c.plugin_string_free(&err);
        return .{ .err = arena.dupe(u8, slice(err)) catch oom() };
    }
};

/// Fan-out: one call split into tasks the host runs at the same time on other instances of this
/// plugin, each handled by the plugin's `runTask`. Tasks share the calling call's deadline, have
/// this plugin's grants, and cannot start tasks themselves.
pub const tasks = struct {
    /// How many tasks the host runs at the same time: size a split by it.
    pub fn parallelism() u32 {
        return c.tack_task_parallelism();
    }

    /// Runs every input as a task and waits for all of them: the outcomes in input order, or
    /// `err` when the host refused the whole run (from `init` or a task, more than 4096 inputs).
    pub fn run(arena: std.mem.Allocator, inputs: []const []const u8) Outcome([]Outcome([]const u8)) {
        const ptrs = arena.alloc([*c]const u8, inputs.len) catch oom();
        const lens = arena.alloc(usize, inputs.len) catch oom();
        for (inputs, 0..) |input, i| {
            ptrs[i] = input.ptr;
            lens[i] = input.len;
        }
        var results: [*c]c.tack_task_result_t = undefined;
        var err: c.plugin_string_t = undefined;
        if (!c.tack_run_tasks(ptrs.ptr, lens.ptr, inputs.len, &results, &err)) {
            defer c.plugin_string_free(&err);
            return .{ .err = arena.dupe(u8, slice(err)) catch oom() };
        }
        defer c.tack_task_results_free(results, inputs.len);
        const out = arena.alloc(Outcome([]const u8), inputs.len) catch oom();
        for (out, 0..) |*o, i| {
            const r = results[i];
            o.* = if (r.ok)
                .{ .ok = arena.dupe(u8, slice(r.output)) catch oom() }
            else
                .{ .err = arena.dupe(u8, slice(r.@"error")) catch oom() };
        }
        return .{ .ok = out };
    }
};

/// Unix permission bits, which WASI cannot read or set. Paths are absolute and checked against
/// the plugin's `fs` grants like every filesystem call: outside them the host refuses, saying so.
pub const files = struct {
    /// The permission bits of the file at `path` (`0o644`, say).
    pub fn permissions(arena: std.mem.Allocator, path: []const u8) Outcome(u32) {
        var mode: u32 = 0;
        var err: c.plugin_string_t = undefined;
        if (c.tack_file_permissions(cstr(arena, path), &mode, &err)) return .{ .ok = mode };
        defer c.plugin_string_free(&err);
        return .{ .err = arena.dupe(u8, slice(err)) catch oom() };
    }

    /// Sets them (only the `0o777` bits; needs a read-write grant).
    pub fn setPermissions(arena: std.mem.Allocator, path: []const u8, mode: u32) Outcome(void) {
        var err: c.plugin_string_t = undefined;
        if (c.tack_set_file_permissions(cstr(arena, path), mode, &err)) return .ok;
        defer c.plugin_string_free(&err);
        return .{ .err = arena.dupe(u8, slice(err)) catch oom() };
    }
};

/// `value` as JSON text (tool details, session state).
pub fn json(arena: std.mem.Allocator, value: anytype) []const u8 {
    return std.json.Stringify.valueAlloc(arena, value, .{}) catch oom();
}

// ---- tack:plugin@0.2.0 --------------------------------------------------------------------

/// What `tack:plugin@0.2.0` adds, for a plugin whose tack.toml says `api = "0.2"` and whose
/// build binds both WIT folders (`tack-c bindgen <wit-0.1.0> <wit-0.2.0> <out>`). With 0.1.0's
/// bindings nothing here exists in `c`, and using it is a compile error; a plugin that never
/// uses it compiles as before, since Zig only analyses what is used.
///
/// Events subscribed to here reach the plugin's `pub fn onEvent(event: tack.v2.Event) void`,
/// which `exportPlugin` exports as the `observer` export. The other exports 0.2.0 adds
/// (`provider-hooks`, `session-hooks`) keep the C SDK's harmless defaults (proceed, unchanged).
pub const v2 = struct {
    /// One event of those subscribed: its `type` name (`session_start`) and the event as JSON.
    pub const Event = struct {
        name: []const u8,
        data: []const u8,
        arena: std.mem.Allocator,
    };

    /// Borrowed WIT strings over `items`, for one call into the host.
    fn borrowList(arena: std.mem.Allocator, items: []const []const u8) c.plugin_list_string_t {
        const list = arena.alloc(c.plugin_string_t, items.len) catch oom();
        for (items, list) |item, *s| s.* = borrow(item);
        return .{ .ptr = list.ptr, .len = list.len };
    }

    /// A WIT string the host gave (a result or an error message), copied to the arena and freed.
    fn takeString(arena: std.mem.Allocator, err: *c.plugin_string_t) []const u8 {
        defer c.plugin_string_free(err);
        return arena.dupe(u8, slice(err.*)) catch oom();
    }

    /// Subscribes to events by name (`session_start`, `turn_end`, `message_update`, ...; see
    /// `tack:plugin/events`); they reach `onEvent`. An unknown name fails the call, naming it.
    pub fn subscribe(arena: std.mem.Allocator, names: []const []const u8) Outcome(void) {
        var list = borrowList(arena, names);
        var err: c.plugin_string_t = undefined;
        if (c.tack_plugin_events_subscribe(&list, &err)) return .ok;
        return .{ .err = takeString(arena, &err) };
    }

    pub fn unsubscribe(arena: std.mem.Allocator, names: []const []const u8) void {
        var list = borrowList(arena, names);
        c.tack_plugin_events_unsubscribe(&list);
    }

    /// The event bus between plugins (Pi's `pi.events`; the `bus` grant names each channel).
    /// Messages on channels listened to reach `onEvent` as `bus_message`, whose data is
    /// `{"type","channel","from","data"}` (`from`: the sender, named by the host).
    pub const bus = struct {
        /// Sends `data_json` (one JSON value) on `channel` to the other plugins listening there.
        /// Refused, naming why, for a channel not granted or data over 64 KiB.
        pub fn emit(arena: std.mem.Allocator, channel: []const u8, data_json: []const u8) Outcome(void) {
            var ch = borrow(channel);
            var data = borrow(data_json);
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_bus_emit(&ch, &data, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// Listens on `channels`, all or none: one not granted fails the call, naming it.
        pub fn listen(arena: std.mem.Allocator, channels: []const []const u8) Outcome(void) {
            var list = borrowList(arena, channels);
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_bus_listen(&list, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        pub fn unlisten(arena: std.mem.Allocator, channels: []const []const u8) void {
            var list = borrowList(arena, channels);
            c.tack_plugin_bus_unlisten(&list);
        }
    };

    /// The running agent and its session (Pi's `ctx`).
    pub const control = struct {
        pub const Model = struct {
            provider: []const u8,
            id: []const u8,
            name: []const u8,
            context_window: u32,
            reasoning: bool,
            images: bool,
        };

        pub const ContextUsage = struct {
            tokens: u32,
            context_window: u32,
            percent: f32,
        };

        pub fn isIdle() bool {
            return c.tack_plugin_control_is_idle();
        }

        /// Whether a person can answer dialogs now (the terminal UI, RPC).
        pub fn hasUi() bool {
            return c.tack_plugin_control_has_ui();
        }

        /// The session's name, or null when it was never named.
        pub fn sessionName(arena: std.mem.Allocator) ?[]const u8 {
            var out: c.plugin_string_t = undefined;
            if (!c.tack_plugin_control_session_name(&out)) return null;
            return takeString(arena, &out);
        }

        /// Names the session (one line of at most 200 characters).
        pub fn setSessionName(arena: std.mem.Allocator, name: []const u8) Outcome(void) {
            var n = borrow(name);
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_control_set_session_name(&n, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// Sets the label of entry `entry_id`, or clears it with null.
        pub fn setLabel(arena: std.mem.Allocator, entry_id: []const u8, label: ?[]const u8) Outcome(void) {
            var id = borrow(entry_id);
            var text = borrow(label orelse "");
            var err: c.plugin_string_t = undefined;
            // The generated signature takes `option<string>` as a pointer: null is `none`.
            if (c.tack_plugin_control_set_label(&id, if (label != null) &text else null, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// The current model; null before an agent exists (during `init`).
        pub fn model(arena: std.mem.Allocator) ?Model {
            var info: c.tack_plugin_control_model_info_t = undefined;
            if (!c.tack_plugin_control_model(&info)) return null;
            defer c.tack_plugin_control_model_info_free(&info);
            return .{
                .provider = arena.dupe(u8, slice(info.provider)) catch oom(),
                .id = arena.dupe(u8, slice(info.id)) catch oom(),
                .name = arena.dupe(u8, slice(info.name)) catch oom(),
                .context_window = info.context_window,
                .reasoning = info.reasoning,
                .images = info.images,
            };
        }

        /// How full the context window is; null before an agent exists.
        pub fn contextUsage() ?ContextUsage {
            var usage: c.tack_plugin_control_context_window_usage_t = undefined;
            if (!c.tack_plugin_control_context_usage(&usage)) return null;
            return .{ .tokens = usage.tokens, .context_window = usage.context_window, .percent = usage.percent };
        }

        /// Asks for a compaction once the agent is idle, with optional instructions.
        pub fn compact(arena: std.mem.Allocator, instructions: ?[]const u8) Outcome(void) {
            var text = borrow(instructions orelse "");
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_control_compact(if (instructions != null) &text else null, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// From a command the user ran (Pi's `ctx.waitForIdle`): true when the run going on
        /// will be waited for, and `onEvent` then hears `idle` (with a command's powers) once
        /// the agent is idle; false when it is idle already. The command returns meanwhile.
        pub fn waitForIdle(arena: std.mem.Allocator) Outcome(bool) {
            var waiting: bool = false;
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_control_wait_for_idle(&waiting, &err)) return .{ .ok = waiting };
            return .{ .err = takeString(arena, &err) };
        }

        /// Stops the agent's run now; false when none was going on.
        pub fn abort() bool {
            return c.tack_plugin_control_abort();
        }

        /// From a command the user ran, once the agent is idle: the move the user's `/tree`
        /// makes to `entry_id`, summarizing the branch left when `summarize` (`focus`: what
        /// the summary dwells on).
        pub fn navigateTree(arena: std.mem.Allocator, entry_id: []const u8, summarize: bool, focus: ?[]const u8) Outcome(void) {
            var id = borrow(entry_id);
            var f = borrow(focus orelse "");
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_control_navigate_tree(&id, summarize, if (focus != null) &f else null, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }
    };

    /// What the plugin shows on the user's screen.
    pub const screen = struct {
        pub const Placement = enum(u8) { above_editor, below_editor };

        /// Sets widget `key` to `lines` at `placement`; no lines removes it.
        pub fn setWidget(arena: std.mem.Allocator, key: []const u8, lines: []const []const u8, placement: Placement) void {
            var k = borrow(key);
            var list = borrowList(arena, lines);
            c.tack_plugin_screen_set_widget(&k, &list, @intFromEnum(placement));
        }

        /// The terminal's title; "" restores tack's.
        pub fn setTitle(title: []const u8) void {
            var t = borrow(title);
            c.tack_plugin_screen_set_title(&t);
        }

        /// The text beside the spinner while the agent works; null restores tack's.
        pub fn setWorkingMessage(message: ?[]const u8) void {
            var m = borrow(message orelse "");
            c.tack_plugin_screen_set_working_message(if (message != null) &m else null);
        }

        /// Replaces tack's footer with `left` and `right`; null gives it back to tack.
        pub fn setFooter(footer: ?struct { left: []const u8, right: []const u8 }) void {
            if (footer) |f| {
                var parts = c.tack_plugin_screen_footer_t{ .left = borrow(f.left), .right = borrow(f.right) };
                c.tack_plugin_screen_set_footer(&parts);
            } else {
                c.tack_plugin_screen_set_footer(null);
            }
        }

        /// Replaces the text of the user's editor.
        pub fn setEditorText(text: []const u8) void {
            var t = borrow(text);
            c.tack_plugin_screen_set_editor_text(&t);
        }

        /// The user's unsent draft, copied to `arena` (the `components` grant); null without the
        /// grant or an editor.
        pub fn editorText(arena: std.mem.Allocator) ?[]const u8 {
            var text: c.plugin_string_t = undefined;
            if (!c.tack_plugin_screen_editor_text(&text)) return null;
            return takeString(arena, &text);
        }

        /// Shows or hides the spinner and its message while the agent works.
        pub fn setWorkingVisible(visible: bool) void {
            c.tack_plugin_screen_set_working_visible(visible);
        }

        /// `frames` in place of the spinner, each for `interval_ms` (0: the spinner's pace); no
        /// frames hides it; null gives the spinner back.
        pub fn setWorkingIndicator(arena: std.mem.Allocator, frames: ?[]const []const u8, interval_ms: u32) void {
            if (frames) |f| {
                var indicator = c.tack_plugin_screen_working_indicator_t{ .frames = borrowList(arena, f), .interval_ms = interval_ms };
                c.tack_plugin_screen_set_working_indicator(&indicator);
            } else {
                c.tack_plugin_screen_set_working_indicator(null);
            }
        }

        /// The label of hidden thinking in place of "Thinking"; null restores tack's.
        pub fn setHiddenThinkingLabel(label: ?[]const u8) void {
            var l = borrow(label orelse "");
            c.tack_plugin_screen_set_hidden_thinking_label(if (label != null) &l else null);
        }

        /// Lines over the conversation (at most 12); none gives the header back.
        pub fn setHeader(arena: std.mem.Allocator, lines: []const []const u8) void {
            var list = borrowList(arena, lines);
            c.tack_plugin_screen_set_header(&list);
        }

        /// Whether tool output shows in full (as Ctrl+O leaves it).
        pub fn toolsExpanded() bool {
            return c.tack_plugin_screen_tools_expanded();
        }

        pub fn setToolsExpanded(expanded: bool) void {
            c.tack_plugin_screen_set_tools_expanded(expanded);
        }

        /// Shows the theme called `name` for this run (a name `/settings` offers).
        pub fn setTheme(arena: std.mem.Allocator, name: []const u8) Outcome(void) {
            var n = borrow(name);
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_screen_set_theme(&n, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// Puts this plugin's editor (its `editor` export, defined with `@export` against the C
        /// names) in place of tack's, or gives tack's back (Pi's `setEditorComponent`; the
        /// `components` grant).
        pub fn setEditor(arena: std.mem.Allocator, enabled: bool) Outcome(void) {
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_screen_set_editor(enabled, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// Turns completing the user's draft on or off (Pi's `addAutocompleteProvider`; the
        /// `components` grant). The answers come from the `completions` export, which a Zig
        /// plugin leaves to the C SDK's defaults (none to offer) unless it defines them.
        pub fn setInputCompletion(arena: std.mem.Allocator, enabled: bool) Outcome(void) {
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_screen_set_input_completion(enabled, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }
    };

    /// Keys bound in the terminal UI (Pi's `registerShortcut`); a press reaches `onEvent` as
    /// `shortcut` with data `{"type","key"}`. A key tack or another plugin holds is not bound,
    /// and the user is told.
    pub const shortcuts = struct {
        /// Binds `key` (`ctrl+shift+p`: Ctrl or Alt, or F1-F12); refused, naming why, for a
        /// malformed key or past 32.
        pub fn register(arena: std.mem.Allocator, key: []const u8, description: []const u8) Outcome(void) {
            var k = borrow(key);
            var d = borrow(description);
            var err: c.plugin_string_t = undefined;
            if (c.tack_plugin_shortcuts_register(&k, &d, &err)) return .ok;
            return .{ .err = takeString(arena, &err) };
        }

        /// False when this plugin had not bound `key`.
        pub fn unregister(key: []const u8) bool {
            var k = borrow(key);
            return c.tack_plugin_shortcuts_unregister(&k);
        }
    };

    /// The registration error's message: every case of the variant carries one.
    fn registerError(arena: std.mem.Allocator, err: anytype) []const u8 {
        return takeString(arena, &err.val.invalid);
    }

    /// Tools registered while tack runs (not from `init`: register those with `ctx.tool`).
    pub const tools = struct {
        /// Registers (or replaces) one of this plugin's tools; calls reach `callTool`.
        pub fn register(arena: std.mem.Allocator, name: []const u8, label: []const u8, description: []const u8, parameters_json: []const u8) Outcome(void) {
            var spec = std.mem.zeroes(c.tack_plugin_tools_tool_spec_t);
            spec.name = borrow(name);
            spec.label = borrow(label);
            spec.description = borrow(description);
            spec.parameters = borrow(parameters_json);
            spec.mode = c.TACK_PLUGIN_TYPES_EXECUTION_MODE_PARALLEL;
            var err: c.tack_plugin_tools_register_error_t = undefined;
            if (c.tack_plugin_tools_register(&spec, &err)) return .ok;
            return .{ .err = registerError(arena, &err) };
        }

        /// False when this plugin registered no tool of that name here.
        pub fn unregister(name: []const u8) bool {
            var n = borrow(name);
            return c.tack_plugin_tools_unregister(&n);
        }
    };

    /// LLM providers registered while tack runs (`tack:plugin/providers`): a new id whose
    /// requests the provider `api` names writes (`"anthropic"`, `"openai"`, ...; null: this
    /// plugin's own provider functions), used only once the user granted this plugin `secret`
    /// (`secrets`) and `base_url` (`http`).
    pub const providers = struct {
        /// One model of a registered provider; prices in US dollars per million tokens.
        pub const Model = struct {
            id: []const u8,
            name: []const u8 = "",
            context_window: u32 = 128_000,
            max_output_tokens: u32 = 8192,
            reasoning: bool = false,
            images: bool = false,
            cost_input: f64 = 0,
            cost_output: f64 = 0,
        };

        // Text first: a text-only model takes the first kind, one with images both.
        const input_kinds = [_]c.tack_plugin_types_input_kind_t{ c.TACK_PLUGIN_TYPES_INPUT_KIND_TEXT, c.TACK_PLUGIN_TYPES_INPUT_KIND_IMAGE };

        /// Registers (or replaces) one of this plugin's providers.
        pub fn register(arena: std.mem.Allocator, id: []const u8, name: []const u8, api: ?[]const u8, base_url: []const u8, secret: ?[]const u8, models: []const Model) Outcome(void) {
            const specs = arena.alloc(c.tack_plugin_providers_model_spec_t, models.len) catch return .{ .err = "out of memory" };
            for (models, specs) |m, *spec| {
                spec.* = std.mem.zeroes(c.tack_plugin_providers_model_spec_t);
                spec.id = borrow(m.id);
                spec.name = borrow(if (m.name.len == 0) m.id else m.name);
                spec.context_window = m.context_window;
                spec.max_output_tokens = m.max_output_tokens;
                spec.reasoning = m.reasoning;
                spec.input = .{ .ptr = @constCast(&input_kinds), .len = if (m.images) 2 else 1 };
                spec.cost.input = m.cost_input;
                spec.cost.output = m.cost_output;
            }
            var registration = std.mem.zeroes(c.tack_plugin_providers_provider_registration_t);
            registration.id = borrow(id);
            registration.name = borrow(name);
            if (api) |a| {
                registration.api.is_some = true;
                registration.api.val = borrow(a);
            }
            registration.base_url = borrow(base_url);
            if (secret) |s| {
                registration.secret.is_some = true;
                registration.secret.val = borrow(s);
            }
            registration.models = .{ .ptr = specs.ptr, .len = specs.len };
            var err: c.tack_plugin_providers_register_error_t = undefined;
            if (c.tack_plugin_providers_register(&registration, &err)) return .ok;
            return .{ .err = registerError(arena, &err) };
        }

        /// False when this plugin registered no provider of that id.
        pub fn unregister(id: []const u8) bool {
            var i = borrow(id);
            return c.tack_plugin_providers_unregister(&i);
        }
    };

    /// Slash commands registered while tack runs; `/name` reaches `runCommand`.
    pub const commands = struct {
        pub fn register(arena: std.mem.Allocator, name: []const u8, description: []const u8) Outcome(void) {
            var spec = c.tack_plugin_commands_command_spec_t{ .name = borrow(name), .description = borrow(description) };
            var err: c.tack_plugin_commands_register_error_t = undefined;
            if (c.tack_plugin_commands_register(&spec, &err)) return .ok;
            return .{ .err = registerError(arena, &err) };
        }

        pub fn unregister(name: []const u8) bool {
            var n = borrow(name);
            return c.tack_plugin_commands_unregister(&n);
        }
    };

    /// Long-lived programs (the `process` grant), through the C SDK's helpers.
    pub const process = struct {
        pub const Stream = enum(u8) { stdout, stderr };
        pub const Signal = enum(u8) { interrupt, terminate, kill, hangup };

        /// What a read found: bytes (in the arena), nothing within the wait, or the end.
        pub const Read = union(enum) { data: []const u8, idle, closed, err: []const u8 };

        /// How a process ended: its exit code, or null when a signal ended it.
        pub const Exit = struct { code: ?i32 };

        fn failure(arena: std.mem.Allocator, err: *c.plugin_string_t) []const u8 {
            return takeString(arena, err);
        }

        /// Starts `command` (matched against the `process` grant) in `cwd` (null: the workspace).
        pub fn spawn(arena: std.mem.Allocator, command: []const u8, cwd: ?[]const u8) Outcome(u64) {
            var id: u64 = 0;
            var err: c.plugin_string_t = undefined;
            const dir: [*c]const u8 = if (cwd) |d| cstr(arena, d) else null;
            if (c.tack_process_spawn(cstr(arena, command), dir, &id, &err)) return .{ .ok = id };
            return .{ .err = failure(arena, &err) };
        }

        pub fn write(arena: std.mem.Allocator, id: u64, data: []const u8) Outcome(void) {
            var err: c.plugin_string_t = undefined;
            if (c.tack_process_write(id, data.ptr, data.len, &err)) return .ok;
            return .{ .err = failure(arena, &err) };
        }

        pub fn closeStdin(arena: std.mem.Allocator, id: u64) Outcome(void) {
            var err: c.plugin_string_t = undefined;
            if (c.tack_process_close_stdin(id, &err)) return .ok;
            return .{ .err = failure(arena, &err) };
        }

        fn readOutcome(arena: std.mem.Allocator, found: c.tack_read_t, out: *c.plugin_list_u8_t, err: *c.plugin_string_t) Read {
            return switch (found) {
                c.TACK_READ_DATA => blk: {
                    defer c.plugin_list_u8_free(out);
                    break :blk .{ .data = arena.dupe(u8, bytes(out.*)) catch oom() };
                },
                c.TACK_READ_IDLE => .idle,
                c.TACK_READ_CLOSED => .closed,
                else => .{ .err = failure(arena, err) },
            };
        }

        /// Reads up to `max_bytes`, waiting up to `wait_ms`.
        pub fn read(arena: std.mem.Allocator, id: u64, stream: Stream, max_bytes: u32, wait_ms: u32) Read {
            var out: c.plugin_list_u8_t = undefined;
            var err: c.plugin_string_t = undefined;
            const found = c.tack_process_read(id, @intFromEnum(stream), max_bytes, wait_ms, &out, &err);
            return readOutcome(arena, found, &out, &err);
        }

        /// Reads one line (with its newline), waiting up to `wait_ms`.
        pub fn readLine(arena: std.mem.Allocator, id: u64, stream: Stream, wait_ms: u32) Read {
            var out: c.plugin_list_u8_t = undefined;
            var err: c.plugin_string_t = undefined;
            const found = c.tack_process_read_line(id, @intFromEnum(stream), wait_ms, &out, &err);
            return readOutcome(arena, found, &out, &err);
        }

        /// Waits up to `wait_ms` for it to end: null while it still runs.
        pub fn wait(arena: std.mem.Allocator, id: u64, wait_ms: u32) Outcome(?Exit) {
            var exit: c.tack_exit_t = undefined;
            var err: c.plugin_string_t = undefined;
            if (!c.tack_process_wait(id, wait_ms, &exit, &err)) return .{ .err = failure(arena, &err) };
            if (!exit.exited) return .{ .ok = null };
            return .{ .ok = .{ .code = if (exit.has_code) exit.code else null } };
        }

        /// Signals its process group.
        pub fn signal(arena: std.mem.Allocator, id: u64, sig: Signal) Outcome(void) {
            var err: c.plugin_string_t = undefined;
            if (c.tack_process_signal(id, @intFromEnum(sig), &err)) return .ok;
            return .{ .err = failure(arena, &err) };
        }

        /// Forgets it, killing it first if it still runs.
        pub fn release(arena: std.mem.Allocator, id: u64) Outcome(void) {
            var err: c.plugin_string_t = undefined;
            if (c.tack_process_release(id, &err)) return .ok;
            return .{ .err = failure(arena, &err) };
        }
    };
};

// ---- what the handlers get and return -----------------------------------------------------

pub const HookKind = enum(u8) {
    before_tool_call,
    after_tool_call,
    input,
    before_agent_start,
    context,
    before_compact,
};

/// What `init` gets: the plugin's configuration (JSON) and the registration it fills in.
pub const Init = struct {
    config: []const u8,
    arena: std.mem.Allocator,
    reg: *c.exports_tack_plugin_guest_registration_t,

    /// A tool the model can call; `parameters_json` is its JSON Schema.
    pub fn tool(self: *Init, name: []const u8, label: []const u8, description: []const u8, parameters_json: []const u8) !void {
        const a = self.arena;
        c.tack_register_tool(self.reg, cstr(a, name), cstr(a, label), cstr(a, description), cstr(a, parameters_json));
    }

    /// A slash command.
    pub fn command(self: *Init, name: []const u8, description: []const u8) !void {
        c.tack_register_command(self.reg, cstr(self.arena, name), cstr(self.arena, description));
    }

    /// A hook the plugin implements (the SDK's Zig side implements `before_tool_call`).
    pub fn hook(self: *Init, kind: HookKind) !void {
        c.tack_register_hook(self.reg, @intFromEnum(kind));
    }
};

/// A tool call: its name and its arguments (JSON, validated against the tool's schema).
pub const Call = struct {
    name: []const u8,
    arguments: []const u8,
    arena: std.mem.Allocator,

    /// The arguments parsed into `T` (unknown fields ignored).
    pub fn args(self: Call, comptime T: type) !T {
        return std.json.parseFromSliceLeaky(T, self.arena, self.arguments, .{ .ignore_unknown_fields = true });
    }
};

pub const ToolResult = union(enum) {
    /// `text` for the model, `details` (JSON, or null) for front ends.
    ok: struct { text: []const u8, details: ?[]const u8 = null },
    /// A failed result the model sees as an error.
    err: []const u8,

    pub fn text(t: []const u8, details: ?[]const u8) ToolResult {
        return .{ .ok = .{ .text = t, .details = details } };
    }

    pub fn fail(message: []const u8) ToolResult {
        return .{ .err = message };
    }
};

/// `/name args`.
pub const Command = struct {
    name: []const u8,
    args: []const u8,
    arena: std.mem.Allocator,
};

/// A command's output for the user (or none), or its error.
pub const CommandResult = Outcome(?[]const u8);

pub const Decision = union(enum) {
    allow,
    block: []const u8,
};

/// One task of a `tasks.run` call, on this instance.
pub const Task = struct {
    input: []const u8,
    arena: std.mem.Allocator,
};

pub const TaskResult = Outcome([]const u8);

// ---- the exports --------------------------------------------------------------------------

/// Exports the handlers `P` declares (see the module's documentation). Call it at comptime from
/// the plugin's root file: `comptime { tack.exportPlugin(@This()); }`.
pub fn exportPlugin(comptime P: type) void {
    if (!@hasDecl(P, "init")) @compileError("a tack plugin declares `pub fn init(ctx: *tack.Init) !void`");
    const Exports = struct {
        fn init(
            ctx: *c.exports_tack_plugin_guest_init_context_t,
            ret: *c.exports_tack_plugin_guest_registration_t,
            err: *c.plugin_string_t,
        ) callconv(.c) bool {
            var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena.deinit();
            defer c.exports_tack_plugin_guest_init_context_free(ctx);
            ret.* = std.mem.zeroes(c.exports_tack_plugin_guest_registration_t);
            var init_ctx = Init{ .config = slice(ctx.config), .arena = arena.allocator(), .reg = ret };
            P.init(&init_ctx) catch |e| {
                const message = std.fmt.allocPrint(arena.allocator(), "init failed: {s}", .{@errorName(e)}) catch oom();
                own(err, message);
                return false;
            };
            return true;
        }

        fn callTool(
            call: *c.exports_tack_plugin_guest_tool_call_t,
            ret: *c.exports_tack_plugin_guest_tool_result_t,
        ) callconv(.c) void {
            var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena.deinit();
            defer c.exports_tack_plugin_guest_tool_call_free(call);
            const a = arena.allocator();
            const result = P.callTool(.{ .name = slice(call.name), .arguments = slice(call.arguments), .arena = a });
            switch (result) {
                .ok => |ok| c.tack_text_result(ret, cstr(a, ok.text), if (ok.details) |d| cstr(a, d) else null),
                .err => |message| c.tack_error_result(ret, cstr(a, message)),
            }
        }

        fn runCommand(
            name: *c.plugin_string_t,
            args: *c.plugin_string_t,
            ret: *c.plugin_option_string_t,
            err: *c.plugin_string_t,
        ) callconv(.c) bool {
            var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena.deinit();
            defer c.plugin_string_free(name);
            defer c.plugin_string_free(args);
            switch (P.runCommand(.{ .name = slice(name.*), .args = slice(args.*), .arena = arena.allocator() })) {
                .ok => |output| {
                    ret.is_some = output != null;
                    if (output) |text| own(&ret.val, text);
                    return true;
                },
                .err => |message| {
                    own(err, message);
                    return false;
                },
            }
        }

        fn beforeToolCall(
            call: *c.exports_tack_plugin_guest_tool_call_t,
            ret: *c.exports_tack_plugin_guest_tool_decision_t,
        ) callconv(.c) void {
            var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena.deinit();
            defer c.exports_tack_plugin_guest_tool_call_free(call);
            const a = arena.allocator();
            switch (P.beforeToolCall(.{ .name = slice(call.name), .arguments = slice(call.arguments), .arena = a })) {
                .allow => c.tack_allow(ret),
                .block => |reason| c.tack_block(ret, cstr(a, reason)),
            }
        }

        fn runTask(
            input: *c.plugin_list_u8_t,
            ret: *c.plugin_list_u8_t,
            err: *c.plugin_string_t,
        ) callconv(.c) bool {
            var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena.deinit();
            defer c.plugin_list_u8_free(input);
            switch (P.runTask(.{ .input = bytes(input.*), .arena = arena.allocator() })) {
                .ok => |output| {
                    c.tack_bytes_dup(ret, output.ptr, output.len);
                    return true;
                },
                .err => |message| {
                    own(err, message);
                    return false;
                },
            }
        }
    };
    const V2 = struct {
        fn onEvent(name: *c.plugin_string_t, data: *c.plugin_string_t) callconv(.c) void {
            var arena = std.heap.ArenaAllocator.init(std.heap.c_allocator);
            defer arena.deinit();
            defer c.plugin_string_free(name);
            defer c.plugin_string_free(data);
            P.onEvent(.{ .name = slice(name.*), .data = slice(data.*), .arena = arena.allocator() });
        }
    };
    // Strong definitions replace the C SDK's weak defaults at link time.
    @export(&Exports.init, .{ .name = "exports_tack_plugin_guest_init" });
    if (@hasDecl(P, "callTool")) @export(&Exports.callTool, .{ .name = "exports_tack_plugin_guest_call_tool" });
    if (@hasDecl(P, "runCommand")) @export(&Exports.runCommand, .{ .name = "exports_tack_plugin_guest_run_command" });
    if (@hasDecl(P, "beforeToolCall")) @export(&Exports.beforeToolCall, .{ .name = "exports_tack_plugin_guest_before_tool_call" });
    if (@hasDecl(P, "runTask")) @export(&Exports.runTask, .{ .name = "exports_tack_plugin_task_runner_run_task" });
    // 0.2.0's `observer` export: only with 0.2.0's bindings, whose world declares it.
    if (@hasDecl(P, "onEvent")) @export(&V2.onEvent, .{ .name = "exports_tack_plugin_observer_on_event" });
}
