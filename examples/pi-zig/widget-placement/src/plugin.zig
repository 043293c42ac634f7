//! Pi's `examples/extensions/widget-placement.ts` (pi-coding-agent 0.73.1) as a tack plugin in
//! Zig on tack:plugin@0.2.0, the same plugin as examples/pi/widget-placement (Rust): when the
//! session starts, one widget above the editor and one below it.
//!
//! Pi's `pi.on("session_start", ...)` is `tack.v2.subscribe` and the `onEvent` export; its
//! `ctx.ui.setWidget(key, lines, { placement })` is `tack.v2.screen.setWidget`, and its
//! `ctx.hasUI` check is `tack.v2.control.hasUi()`.

const std = @import("std");
const tack = @import("tack");

pub fn init(ctx: *tack.Init) !void {
    switch (tack.v2.subscribe(ctx.arena, &.{"session_start"})) {
        .ok => {},
        .err => |message| {
            tack.log(.err, "cannot subscribe to session_start: {s}", .{message});
            return error.SubscribeFailed;
        },
    }
}

pub fn onEvent(event: tack.v2.Event) void {
    if (!std.mem.eql(u8, event.name, "session_start") or !tack.v2.control.hasUi()) return;
    tack.v2.screen.setWidget(event.arena, "widget-above", &.{"Above editor widget"}, .above_editor);
    tack.v2.screen.setWidget(event.arena, "widget-below", &.{"Below editor widget"}, .below_editor);
}

comptime {
    tack.exportPlugin(@This());
}
