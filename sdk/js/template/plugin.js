// {{name}}: a tack plugin. Add tools, commands and hooks to the registration and write the
// matching handlers; every handler you leave out has a safe default (see tack.js).

import { command, definePlugin, errorResult, log, registration, textResult, tool } from "./tack.js";

function greeting(who) {
  return `Hello, ${who.trim() || "world"}, from {{name}}!`;
}

export const guest = definePlugin({
  init(ctx) {
    log.info("{{name}} ready");
    return registration({
      tools: [
        tool({
          name: "{{command}}_greet",
          label: "Greet",
          description: "Greets someone by name.",
          parameters: {
            type: "object",
            properties: { name: { type: "string", description: "Who to greet." } },
            required: ["name"],
            additionalProperties: false,
          },
        }),
      ],
      commands: [command("{{command}}", "Say hello from {{name}}")],
    });
  },

  callTool(call) {
    if (call.name !== "{{command}}_greet") return errorResult(`unknown tool \`${call.name}\``);
    return textResult(greeting(JSON.parse(call.arguments).name));
  },

  runCommand(name, args) {
    if (name !== "{{command}}") throw `unknown command \`/${name}\``;
    return greeting(args);
  },
});
