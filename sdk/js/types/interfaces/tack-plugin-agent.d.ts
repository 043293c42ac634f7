declare module 'tack:plugin/agent@0.1.0' {
  /**
   * Names of every registered tool.
   */
  export function allTools(): Array<string>;
  /**
   * Names of the tools the model may call now.
   */
  export function activeTools(): Array<string>;
  /**
   * Replaces the active set. Unknown names are an error naming them.
   */
  export function setActiveTools(names: Array<string>): void;
}
