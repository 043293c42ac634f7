//! {{name}}: a tack plugin. Register tools, commands and hooks in `init` and declare the
//! matching handlers (`callTool`, `runCommand`, `beforeToolCall`, `runTask`); every handler you
//! leave out has a safe default. The SDK is src/tack.zig.

const std = @import("std");
const tack = @import("tack");

/// "Hello, <who>, from {{name}}!", with "world" for an empty name.
fn greeting(arena: std.mem.Allocator, who: []const u8) []const u8 {
    const trimmed = std.mem.trim(u8, who, " \t\r\n");
    const name = if (trimmed.len == 0) "world" else trimmed;
    return std.fmt.allocPrint(arena, "Hello, {s}, from {{name}}!", .{name}) catch "Hello!";
}

pub fn init(ctx: *tack.Init) !void {
    tack.log(.info, "{{name}} ready", .{});
    try ctx.tool("{{command}}_greet", "Greet", "Greets someone by name.",
        \\{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},
        \\"required":["name"],"additionalProperties":false}
    );
    try ctx.command("{{command}}", "Say hello from {{name}}");
}

pub fn callTool(call: tack.Call) tack.ToolResult {
    if (!std.mem.eql(u8, call.name, "{{command}}_greet")) return .fail("unknown tool");
    const args = call.args(struct { name: []const u8 }) catch |e| return .fail(@errorName(e));
    return .text(greeting(call.arena, args.name), null);
}

pub fn runCommand(cmd: tack.Command) tack.CommandResult {
    if (!std.mem.eql(u8, cmd.name, "{{command}}")) return .{ .err = "unknown command" };
    return .{ .ok = greeting(cmd.arena, cmd.args) };
}

comptime {
    tack.exportPlugin(@This());
}
