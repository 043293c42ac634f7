/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/ui@0.1.0' {
  /**
   * Yes/no question. `timeout-ms` resolves to `false` when it elapses.
   */
  export function confirm(title: string, message: string, timeoutMs: number | undefined): boolean;
  /**
   * Pick one of `options`: the index of the chosen one; `none` when
   * cancelled or timed out.
   */
  export function select(title: string, options: Array<string>, timeoutMs: number | undefined): number | undefined;
  /**
   * Free text; `none` when cancelled or timed out.
   */
  export function input(title: string, placeholder: string, timeoutMs: number | undefined): string | undefined;
  /**
   * Transient notification, shown with its `level`.
   */
  export function notify(level: Level, message: string): void;
  /**
   * Sets (or clears, with `none`) this plugin's status-line segment `key`.
   */
  export function setStatus(key: string, text: string | undefined): void;
  /**
   * Sets this plugin's widget `key`: lines shown above the editor. An empty
   * list removes it.
   */
  export function setWidget(key: string, lines: Array<string>): void;
  export type Level = import('tack:plugin/types@0.1.0').Level;
}
