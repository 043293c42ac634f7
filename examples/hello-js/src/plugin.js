// The conformance plugin in JavaScript: same behaviour as examples/hello-{rust,python,c,zig}
// (see examples/README.md).

import {
  block,
  allow,
  command,
  definePlugin,
  errorResult,
  files,
  log,
  registration,
  session,
  tasks,
  textOf,
  textResult,
  tool,
} from "./tack.js";

const COUNTER_TYPE = "hello-counter";
let blockedWord = "forbidden";

// ASCII whitespace, the same set in every language of the conformance suite.
const WORDS = /[^ \t\n\r\f]+/g;

const countWords = (text) => (text.match(WORDS) ?? []).length;

// One task per line: the input is the line, the output its word count in decimal.
function countLines(text) {
  let results;
  try {
    results = tasks.runText(text.split("\n"));
  } catch (e) {
    return errorResult(`tasks failed: ${e.message}`);
  }
  const words = [];
  for (const [i, r] of results.entries()) {
    if (!r.ok) return errorResult(`task ${i} failed: ${r.error}`);
    words.push(Number(r.value));
  }
  const total = words.reduce((a, b) => a + b, 0);
  return textResult(`${total} words in ${words.length} lines`, { words, total });
}

function fileMode(path) {
  let mode;
  try {
    mode = files.permissions(path);
  } catch (e) {
    return errorResult(e.message);
  }
  return textResult(mode.toString(8).padStart(4, "0"), { mode });
}

const textParameter = {
  type: "object",
  properties: { text: { type: "string", description: "The text to count." } },
  required: ["text"],
  additionalProperties: false,
};

export const guest = definePlugin({
  init(ctx) {
    const config = JSON.parse(ctx.config);
    if (typeof config.blocked_word === "string" && config.blocked_word !== "") {
      blockedWord = config.blocked_word;
    }
    log.info(`hello: blocking bash commands containing "${blockedWord}"`);
    return registration({
      tools: [
        tool({
          name: "word_count",
          label: "Word count",
          description: "Counts the words (whitespace-separated) and characters of a text.",
          parameters: textParameter,
        }),
        tool({
          name: "count_lines",
          label: "Count lines",
          description: "Counts the words of each line of a text, one task per line.",
          parameters: textParameter,
        }),
        tool({
          name: "file_mode",
          label: "File mode",
          description: "The Unix permission bits of a file, in octal.",
          parameters: {
            type: "object",
            properties: { path: { type: "string", description: "The file's absolute path." } },
            required: ["path"],
            additionalProperties: false,
          },
        }),
      ],
      commands: [command("hello", "Greet someone (and count greetings in this session)")],
      hooks: ["before-tool-call"],
    });
  },

  callTool(call) {
    const args = JSON.parse(call.arguments);
    if (call.name === "count_lines") return countLines(args.text);
    if (call.name === "file_mode") return fileMode(args.path);
    if (call.name !== "word_count") return errorResult(`unknown tool \`${call.name}\``);
    const { text } = args;
    const words = countWords(text);
    // Code points, not UTF-16 units.
    const chars = [...text].length;
    return textResult(`${words} ${words === 1 ? "word" : "words"}`, { words, chars });
  },

  runTask(input) {
    return String(countWords(textOf(input)));
  },

  runCommand(name, args) {
    if (name !== "hello") throw `unknown command \`/${name}\``;
    const who = args.trim() === "" ? "world" : args.trim();
    const count = (session.latestState(COUNTER_TYPE)?.count ?? 0) + 1;
    session.appendState(COUNTER_TYPE, { count });
    return `Hello, ${who}! (greeting ${count} in this session)`;
  },

  beforeToolCall(call) {
    if (call.name !== "bash") return allow();
    const { command } = JSON.parse(call.arguments);
    if (typeof command === "string" && command.includes(blockedWord)) {
      return block(`bash commands containing "${blockedWord}" are blocked by the hello plugin`);
    }
    return allow();
  },
});
