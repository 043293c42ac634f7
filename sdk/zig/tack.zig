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
//! `callTool`, `runCommand`, `beforeToolCall` and `runTask` (the tasks `tasks.run` starts). Every
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
    // Strong definitions replace the C SDK's weak defaults at link time.
    @export(&Exports.init, .{ .name = "exports_tack_plugin_guest_init" });
    if (@hasDecl(P, "callTool")) @export(&Exports.callTool, .{ .name = "exports_tack_plugin_guest_call_tool" });
    if (@hasDecl(P, "runCommand")) @export(&Exports.runCommand, .{ .name = "exports_tack_plugin_guest_run_command" });
    if (@hasDecl(P, "beforeToolCall")) @export(&Exports.beforeToolCall, .{ .name = "exports_tack_plugin_guest_before_tool_call" });
    if (@hasDecl(P, "runTask")) @export(&Exports.runTask, .{ .name = "exports_tack_plugin_task_runner_run_task" });
}
