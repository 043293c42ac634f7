//! The conformance plugin in Zig: same behaviour as examples/hello-{rust,js,python,c}
//! (see examples/README.md).

const std = @import("std");
const tack = @import("tack");

const counter_type = "hello-counter";
const text_parameter =
    \\{"type":"object","properties":{"text":{"type":"string","description":"The text to count."}},
    \\"required":["text"],"additionalProperties":false}
;
const path_parameter =
    \\{"type":"object","properties":{"path":{"type":"string","description":"The file's absolute path."}},
    \\"required":["path"],"additionalProperties":false}
;

/// Set by init; the instance lives as long as the host keeps it.
var blocked_word: []const u8 = "forbidden";

/// ASCII whitespace, the same set in every language of the conformance suite.
fn isSpace(ch: u8) bool {
    return ch == ' ' or ch == '\t' or ch == '\n' or ch == '\r' or ch == 0x0c;
}

fn countWords(text: []const u8) u64 {
    var words: u64 = 0;
    var in_word = false;
    for (text) |ch| {
        if (isSpace(ch)) {
            in_word = false;
        } else if (!in_word) {
            in_word = true;
            words += 1;
        }
    }
    return words;
}

pub fn init(ctx: *tack.Init) !void {
    const Config = struct { blocked_word: ?std.json.Value = null };
    const config = try std.json.parseFromSliceLeaky(Config, ctx.arena, ctx.config, .{ .ignore_unknown_fields = true });
    // A non-empty string replaces the default, anything else is ignored.
    if (config.blocked_word) |value| switch (value) {
        .string => |word| if (word.len > 0) {
            blocked_word = try std.heap.c_allocator.dupe(u8, word);
        },
        else => {},
    };
    tack.log(.info, "hello: blocking bash commands containing \"{s}\"", .{blocked_word});
    try ctx.tool("word_count", "Word count", "Counts the words (whitespace-separated) and characters of a text.", text_parameter);
    try ctx.tool("count_lines", "Count lines", "Counts the words of each line of a text, one task per line.", text_parameter);
    try ctx.tool("file_mode", "File mode", "The Unix permission bits of a file, in octal.", path_parameter);
    try ctx.command("hello", "Greet someone (and count greetings in this session)");
    try ctx.hook(.before_tool_call);
}

pub fn callTool(call: tack.Call) tack.ToolResult {
    if (std.mem.eql(u8, call.name, "file_mode")) {
        const args = call.args(struct { path: []const u8 }) catch |e| return .fail(@errorName(e));
        return fileMode(call.arena, args.path);
    }
    const args = call.args(struct { text: []const u8 }) catch |e| return .fail(@errorName(e));
    if (std.mem.eql(u8, call.name, "count_lines")) return countLines(call.arena, args.text);
    if (!std.mem.eql(u8, call.name, "word_count")) return .fail("unknown tool");
    const words = countWords(args.text);
    const chars = std.unicode.utf8CountCodepoints(args.text) catch args.text.len;
    const text = std.fmt.allocPrint(call.arena, "{d} {s}", .{ words, if (words == 1) "word" else "words" }) catch return .fail("out of memory");
    return .text(text, tack.json(call.arena, .{ .words = words, .chars = chars }));
}

/// One task per line: the input is the line, the output its word count in decimal.
fn countLines(arena: std.mem.Allocator, text: []const u8) tack.ToolResult {
    var lines: std.ArrayList([]const u8) = .empty;
    var it = std.mem.splitScalar(u8, text, '\n');
    while (it.next()) |line| lines.append(arena, line) catch return .fail("out of memory");
    const results = switch (tack.tasks.run(arena, lines.items)) {
        .ok => |results| results,
        .err => |e| return .fail(std.fmt.allocPrint(arena, "tasks failed: {s}", .{e}) catch "tasks failed"),
    };
    const words = arena.alloc(u64, results.len) catch return .fail("out of memory");
    var total: u64 = 0;
    for (results, 0..) |result, i| switch (result) {
        .ok => |output| {
            words[i] = std.fmt.parseInt(u64, output, 10) catch return .fail("a task answered no count");
            total += words[i];
        },
        .err => |e| return .fail(std.fmt.allocPrint(arena, "task {d} failed: {s}", .{ i, e }) catch "a task failed"),
    };
    const summary = std.fmt.allocPrint(arena, "{d} words in {d} lines", .{ total, words.len }) catch return .fail("out of memory");
    return .text(summary, tack.json(arena, .{ .words = words, .total = total }));
}

fn fileMode(arena: std.mem.Allocator, path: []const u8) tack.ToolResult {
    return switch (tack.files.permissions(arena, path)) {
        .ok => |mode| .text(
            std.fmt.allocPrint(arena, "{o:0>4}", .{mode}) catch return .fail("out of memory"),
            tack.json(arena, .{ .mode = mode }),
        ),
        // The host's refusal (outside the `fs` grant), passed on as it is.
        .err => |message| .fail(message),
    };
}

pub fn runTask(task: tack.Task) tack.TaskResult {
    const count = std.fmt.allocPrint(task.arena, "{d}", .{countWords(task.input)}) catch return .{ .err = "out of memory" };
    return .{ .ok = count };
}

pub fn runCommand(cmd: tack.Command) tack.CommandResult {
    if (!std.mem.eql(u8, cmd.name, "hello")) {
        return .{ .err = std.fmt.allocPrint(cmd.arena, "unknown command `/{s}`", .{cmd.name}) catch "unknown command" };
    }
    const trimmed = std.mem.trim(u8, cmd.args, " \t\n\r\x0c");
    const who = if (trimmed.len == 0) "world" else trimmed;
    // The counter lives in the session, so it follows branches.
    var count: u64 = 0;
    if (tack.session.latestState(cmd.arena, counter_type)) |state| {
        const Counter = struct { count: u64 = 0 };
        if (std.json.parseFromSliceLeaky(Counter, cmd.arena, state, .{ .ignore_unknown_fields = true })) |counter| {
            count = counter.count;
        } else |_| {}
    }
    count += 1;
    switch (tack.session.appendState(cmd.arena, counter_type, tack.json(cmd.arena, .{ .count = count }))) {
        .ok => {},
        .err => |e| return .{ .err = e },
    }
    const greeting = std.fmt.allocPrint(cmd.arena, "Hello, {s}! (greeting {d} in this session)", .{ who, count }) catch return .{ .err = "out of memory" };
    return .{ .ok = greeting };
}

pub fn beforeToolCall(call: tack.Call) tack.Decision {
    if (!std.mem.eql(u8, call.name, "bash")) return .allow;
    // Malformed bash arguments are the bash tool's to report, not this hook's.
    const args = call.args(struct { command: []const u8 }) catch return .allow;
    if (std.mem.indexOf(u8, args.command, blocked_word) == null) return .allow;
    const reason = std.fmt.allocPrint(call.arena, "bash commands containing \"{s}\" are blocked by the hello plugin", .{blocked_word}) catch return .{ .block = "blocked by the hello plugin" };
    return .{ .block = reason };
}

comptime {
    tack.exportPlugin(@This());
}
