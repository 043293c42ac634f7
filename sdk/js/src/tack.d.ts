// Types of the helpers in tack.js. The world's own types are generated from the WIT in ../types.
import type {
  Registration,
  ToolSpec,
  CommandSpec,
  ToolResult,
  HookKind,
  EventKind,
  ProviderSpec,
  ExecutionMode,
} from "tack:plugin/types@0.1.0";
import type * as Guest from "tack:plugin/guest@0.1.0";

export declare const log: {
  debug(message: unknown): void;
  info(message: unknown): void;
  warn(message: unknown): void;
  error(message: unknown): void;
};

export declare const notify: {
  debug(message: unknown): void;
  info(message: unknown): void;
  warn(message: unknown): void;
  error(message: unknown): void;
};

export declare const session: {
  latestState<T = unknown>(customType: string): T | undefined;
  appendState(customType: string, value: unknown): string;
};

export declare function tool(spec: {
  name: string;
  label?: string;
  description: string;
  parameters?: object;
  mode?: ExecutionMode;
  promptSnippet?: string;
}): ToolSpec;
export declare function command(name: string, description: string): CommandSpec;
export declare function registration(parts?: {
  tools?: ToolSpec[];
  commands?: CommandSpec[];
  hooks?: HookKind[];
  events?: EventKind[];
  providers?: ProviderSpec[];
}): Registration;
export declare function textResult(text: string, details?: unknown): ToolResult;
export declare function errorResult(message: string): ToolResult;
export declare function allow(): Guest.ToolDecision;
export declare function block(reason: string): Guest.ToolDecision;
export declare function rewrite(args: object): Guest.ToolDecision;

export type TaskResult<T> = { ok: true; value: T } | { ok: false; error: string };

export declare const tasks: {
  parallelism(): number;
  run(inputs: (string | Uint8Array)[]): TaskResult<Uint8Array>[];
  runText(inputs: (string | Uint8Array)[]): TaskResult<string>[];
};

export declare const files: {
  permissions(path: string): number;
  setPermissions(path: string, mode: number): void;
};

export declare function textOf(bytes: Uint8Array): string;

/** Handlers you may write; only `init` is required. */
export type PluginImpl = Partial<Omit<typeof Guest, "init" | "Decoder">> &
  Pick<typeof Guest, "init"> & {
    runTask?(input: Uint8Array): Uint8Array | string;
    decoder?(provider: string, model: string): {
      push(event: Guest.SseEvent): Guest.StreamEvent[];
      finish(): Guest.StreamEvent[];
    };
  };

export declare function definePlugin(impl: PluginImpl): typeof Guest;
