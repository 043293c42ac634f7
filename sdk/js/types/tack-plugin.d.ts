/// <reference path="./interfaces/tack-plugin-agent.d.ts" />
/// <reference path="./interfaces/tack-plugin-exec.d.ts" />
/// <reference path="./interfaces/tack-plugin-files.d.ts" />
/// <reference path="./interfaces/tack-plugin-guest.d.ts" />
/// <reference path="./interfaces/tack-plugin-host.d.ts" />
/// <reference path="./interfaces/tack-plugin-http.d.ts" />
/// <reference path="./interfaces/tack-plugin-project.d.ts" />
/// <reference path="./interfaces/tack-plugin-session.d.ts" />
/// <reference path="./interfaces/tack-plugin-task-runner.d.ts" />
/// <reference path="./interfaces/tack-plugin-tasks.d.ts" />
/// <reference path="./interfaces/tack-plugin-types.d.ts" />
/// <reference path="./interfaces/tack-plugin-ui.d.ts" />
declare module 'tack:plugin/plugin-extended@0.1.0' {
  export type * as TackPluginAgent010 from 'tack:plugin/agent@0.1.0'; // import tack:plugin/agent@0.1.0
  export type * as TackPluginExec010 from 'tack:plugin/exec@0.1.0'; // import tack:plugin/exec@0.1.0
  export type * as TackPluginFiles010 from 'tack:plugin/files@0.1.0'; // import tack:plugin/files@0.1.0
  export type * as TackPluginHost010 from 'tack:plugin/host@0.1.0'; // import tack:plugin/host@0.1.0
  export type * as TackPluginHttp010 from 'tack:plugin/http@0.1.0'; // import tack:plugin/http@0.1.0
  export type * as TackPluginProject010 from 'tack:plugin/project@0.1.0'; // import tack:plugin/project@0.1.0
  export type * as TackPluginSession010 from 'tack:plugin/session@0.1.0'; // import tack:plugin/session@0.1.0
  export type * as TackPluginTasks010 from 'tack:plugin/tasks@0.1.0'; // import tack:plugin/tasks@0.1.0
  export type * as TackPluginTypes010 from 'tack:plugin/types@0.1.0'; // import tack:plugin/types@0.1.0
  export type * as TackPluginUi010 from 'tack:plugin/ui@0.1.0'; // import tack:plugin/ui@0.1.0
  export * as guest from 'tack:plugin/guest@0.1.0'; // export tack:plugin/guest@0.1.0
  export * as taskRunner from 'tack:plugin/task-runner@0.1.0'; // export tack:plugin/task-runner@0.1.0
}
