// The conformance plugin in JavaScript: same behaviour as examples/hello-{rust,python,c}
// (see examples/README.md).

import {
  block,
  allow,
  command,
  definePlugin,
  errorResult,
  log,
  registration,
  session,
  textResult,
  tool,
} from "./tack.js";

const COUNTER_TYPE = "hello-counter";
let blockedWord = "forbidden";

// ASCII whitespace, the same set in every language of the conformance suite.
const WORDS = /[^ \t\n\r\f]+/g;

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
          parameters: {
            type: "object",
            properties: { text: { type: "string", description: "The text to count." } },
            required: ["text"],
            additionalProperties: false,
          },
        }),
      ],
      commands: [command("hello", "Greet someone (and count greetings in this session)")],
      hooks: ["before-tool-call"],
    });
  },

  callTool(call) {
    if (call.name !== "word_count") return errorResult(`unknown tool \`${call.name}\``);
    const { text } = JSON.parse(call.arguments);
    const words = (text.match(WORDS) ?? []).length;
    // Code points, not UTF-16 units.
    const chars = [...text].length;
    return textResult(`${words} ${words === 1 ? "word" : "words"}`, { words, chars });
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
