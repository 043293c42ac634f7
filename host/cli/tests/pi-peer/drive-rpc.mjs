// Drives `tack --mode rpc` with Pi's own RpcClient (tests/pi_rpc.rs runs it). Every method of the
// class is called; the run is checked with node:assert and a JSON summary goes to stdout.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { RpcClient } from "@mariozechner/pi-coding-agent";

const cwd = process.env.TACK_WORKSPACE;
const client = new RpcClient({
  cliPath: new URL("./tack-shim.mjs", import.meta.url).pathname,
  cwd,
  args: process.env.TACK_ARGS ? JSON.parse(process.env.TACK_ARGS) : [],
  env: {},
});

// Records which methods of the class were called.
const called = new Set();
for (const name of Object.getOwnPropertyNames(RpcClient.prototype)) {
  const original = client[name];
  if (name === "constructor" || typeof original !== "function") continue;
  client[name] = function (...args) {
    called.add(name);
    return original.apply(this, args);
  };
}

const events = [];
await client.start();
client.onEvent((event) => {
  events.push(event);
  // Pi's clients answer dialogs by writing extension_ui_response lines themselves.
  if (event.type === "extension_ui_request" && event.method === "select") {
    const answer = { type: "extension_ui_response", id: event.id, value: event.options[0] };
    client.process.stdin.write(JSON.stringify(answer) + "\n");
  }
});

// 1. A plain prompt, long enough to be worth compacting later (automatic compaction stays off
// until then, so the scripted turns keep their order).
await client.setAutoCompaction(false);
const long = " " + "tell me more about it ".repeat(150);
const first = await client.promptAndWait("hello" + long);
assert.ok(first.some((e) => e.type === "message_update" && e.assistantMessageEvent?.type === "text_delta"));
assert.equal(await client.getLastAssistantText(), "The user said hello.");

// 2. permission-gate asks before `rm -r build`; the select is answered with "Allow once".
const idle = client.waitForIdle();
await client.prompt("clean up" + long);
await idle;
const ask = events.find((e) => e.type === "extension_ui_request" && e.method === "select");
assert.ok(ask, "permission-gate asked");
assert.equal(ask.plugin, "permission-gate");
assert.ok(!existsSync(`${cwd}/build`), "the allowed command ran");
const start = events.find((e) => e.type === "tool_execution_start" && e.toolCallId === "rm1");
assert.equal(start.toolName, "bash");
const end = events.find((e) => e.type === "tool_execution_end" && e.toolCallId === "rm1");
assert.equal(end.isError, false);

// 3. Steering and a follow-up during a run, delivered one at a time.
await client.setSteeringMode("one-at-a-time");
await client.setFollowUpMode("one-at-a-time");
const run = client.collectEvents();
await client.prompt("start" + long);
await new Promise((resolve) => {
  const off = client.onEvent((e) => {
    if (e.type === "tool_execution_start" && e.toolCallId === "nap") {
      off();
      resolve();
    }
  });
});
await client.steer("turn left");
await client.followUp("and then this");
const during = await client.getState();
assert.equal(during.isStreaming, true);
assert.equal(during.pendingMessageCount, 2);
const runEvents = await run;
assert.ok(runEvents.some((e) => e.type === "queue_update" && e.followUp?.length === 1));
const texts = (await client.getMessages()).map((m) =>
  typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join(""),
);
const at = (t) => texts.indexOf(t);
assert.ok(at("turn left") < at("after steer") && at("after steer") < at("and then this"), JSON.stringify(texts));
assert.ok(at("and then this") < at("after follow-up"));

// 4. State, models, thinking, queues, retry.
const state = await client.getState();
for (const field of ["model", "thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode",
  "sessionFile", "sessionId", "autoCompactionEnabled", "messageCount", "pendingMessageCount"]) {
  assert.ok(field in state, `get_state has ${field}`);
}
assert.equal(state.steeringMode, "one-at-a-time");
const models = await client.getAvailableModels();
assert.ok(models.some((m) => m.provider === "scripted" && m.id === "scripted-1"));
const model = await client.setModel("scripted", "scripted-1");
assert.equal(model.id, "scripted-1");
await client.setThinkingLevel("off");
assert.equal(await client.cycleThinkingLevel(), null, "the scripted model has no thinking");
await client.setAutoRetry(false);
await client.setAutoRetry(true);
await client.abortRetry();
await client.abort();
await client.abortBash();

// 5. bash: the user's own command.
const bash = await client.bash("echo from-bash");
assert.equal(bash.output.trim(), "from-bash");
assert.equal(bash.exitCode, 0);

// 6. Compaction.
const compacted = await client.compact("keep file names");
assert.ok(compacted.summary.includes("The user said hello."), compacted.summary);
assert.ok(compacted.firstKeptEntryId);
const compactionEnd = events.find((e) => e.type === "compaction_end");
assert.equal(compactionEnd.result.summary, compacted.summary);
assert.equal(compactionEnd.willRetry, false);
await client.setAutoCompaction(true);

// 7. Session: stats, name, export, commands, fork, clone, switch, new.
const stats = await client.getSessionStats();
assert.ok(stats.userMessages >= 4 && stats.tokens.total >= 0);
await client.setSessionName("pi drives tack");
assert.equal((await client.getState()).sessionName, "pi drives tack");
const html = await client.exportHtml(`${cwd}/session.html`);
assert.ok(readFileSync(html.path, "utf8").includes("clean up"));
const commands = await client.getCommands();
assert.ok(commands.some((c) => c.name === "plan" && c.source === "extension"));
const original = (await client.getState()).sessionFile;
const forkable = await client.getForkMessages();
const cleanUp = forkable.find((m) => m.text.startsWith("clean up"));
assert.ok(cleanUp, JSON.stringify(forkable));
const fork = await client.fork(cleanUp.entryId);
assert.deepEqual([fork.text, fork.cancelled], ["clean up" + long, false]);
const forked = await client.getState();
assert.notEqual(forked.sessionFile, original);
const clone = await client.clone();
assert.equal(clone.cancelled, false);
const cloned = await client.getState();
assert.notEqual(cloned.sessionFile, forked.sessionFile);
assert.equal(cloned.messageCount, forked.messageCount);
const back = await client.switchSession(original);
assert.equal(back.cancelled, false);
assert.equal((await client.getState()).sessionFile, original);
const cycled = await client.cycleModel();
assert.ok(cycled === null || cycled.model.id !== "scripted-1" || cycled.isScoped === false);
const fresh = await client.newSession();
assert.equal(fresh.cancelled, false);
assert.equal((await client.getState()).messageCount, 0);

assert.equal(typeof client.getStderr(), "string");
await client.stop();

const methods = Object.getOwnPropertyNames(RpcClient.prototype).filter(
  (n) => n !== "constructor" && typeof RpcClient.prototype[n] === "function",
);
console.log(JSON.stringify({ methods, called: [...called].sort() }));
