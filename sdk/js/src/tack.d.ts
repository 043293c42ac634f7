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

/** Handlers you may write; only `init` is required. */
export type PluginImpl = Partial<Omit<typeof Guest, "init" | "Decoder">> &
  Pick<typeof Guest, "init"> & {
    decoder?(provider: string, model: string): {
      push(event: Guest.SseEvent): Guest.StreamEvent[];
      finish(): Guest.StreamEvent[];
    };
  };

export declare function definePlugin(impl: PluginImpl): typeof Guest;
