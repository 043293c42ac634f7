// Node's modules as tack's Pi runtime gives them to an extension, one line per check: the tool's
// answer is compared with what Node itself answers (the test's expected text).
import { execFileSync, exec } from "node:child_process";
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import { readFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { format, promisify } from "node:util";
import { Type } from "typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "node_apis",
		label: "Node APIs",
		description: "Checks Node's modules",
		parameters: Type.Object({}),
		async execute(_id, _params, _signal, _onUpdate, ctx) {
			const lines: string[] = [];
			const check = (label: string, run: () => unknown) => {
				try {
					lines.push(`${label}: ${String(run())}`);
				} catch (e) {
					lines.push(`${label}: threw ${e instanceof Error ? e.message : String(e)}`);
				}
			};
			check("base64", () => Buffer.from("héllo").toString("base64"));
			check("from base64", () => Buffer.from("aMOpbGxv", "base64").toString());
			check("hex", () => Buffer.from("ff00", "hex").length);
			check("concat", () => Buffer.concat([Buffer.from("a"), Buffer.from("b")]).toString());
			check("join", () => path.join("a", "..", "b", "c.ts"));
			check("relative", () => path.relative("/a/b", "/a/c/d"));
			check("extname", () => path.extname("x.tar.gz"));
			check("resolve", () => path.resolve("src") === path.join(ctx.cwd, "src"));
			check("format", () => format("%s=%d", "n", 3));
			check("fileURLToPath", () => fileURLToPath("file:///tmp/x%20y"));
			check("events", () => {
				const bus = new EventEmitter();
				let heard = "";
				bus.once("ping", (v: string) => (heard = v));
				bus.emit("ping", "pong");
				return `${heard} ${bus.listenerCount("ping")}`;
			});
			check("platform", () => os.platform());
			check("env", () => Object.keys(process.env).length);
			check("write", () => {
				fs.mkdirSync(path.join(ctx.cwd, "out/deep"), { recursive: true });
				fs.writeFileSync(path.join(ctx.cwd, "out/deep/a.txt"), "first ");
				fs.appendFileSync(path.join(ctx.cwd, "out/deep/a.txt"), "second");
				return fs.readFileSync(path.join(ctx.cwd, "out/deep/a.txt"), "utf8");
			});
			check("readdir", () => fs.readdirSync(path.join(ctx.cwd, "out")).join(","));
			check("stat", () => {
				const stat = fs.statSync(path.join(ctx.cwd, "out/deep/a.txt"));
				return `${stat.isFile()} ${stat.size}`;
			});
			check("exists", () => `${fs.existsSync(path.join(ctx.cwd, "out"))} ${fs.existsSync("/nope")}`);
			lines.push(`readFile: ${await readFile(path.join(ctx.cwd, "out/deep/a.txt"), "utf8")}`);
			check("rm", () => {
				fs.rmSync(path.join(ctx.cwd, "out"), { recursive: true });
				return fs.existsSync(path.join(ctx.cwd, "out"));
			});
			check("execFileSync", () => String(execFileSync("echo", ["hi there"])).trim());
			const { stdout } = await promisify(exec)("echo promised");
			lines.push(`promisify(exec): ${stdout.trim()}`);
			return { content: [{ type: "text", text: lines.join("\n") }], details: {} };
		},
	});
}
