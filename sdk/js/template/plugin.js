// {{name}}: a tack plugin. Add tools, commands and hooks to the registration and write the
// matching handlers; every handler you leave out has a safe default (see tack.js).

import { command, definePlugin, log, registration } from "./tack.js";

export const guest = definePlugin({
  init(ctx) {
    log.info("{{name}} ready");
    return registration({ commands: [command("{{command}}", "Say hello from {{name}}")] });
  },

  runCommand(name, args) {
    if (name !== "{{command}}") throw `unknown command \`/${name}\``;
    return `Hello, ${args.trim() || "world"}, from {{name}}!`;
  },
});
