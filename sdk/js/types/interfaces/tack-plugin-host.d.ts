/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/host@0.1.0' {
  /**
   * Writes a line to tack's log, tagged with the plugin's name.
   */
  export function log(level: Level, message: string): void;
  /**
   * Streams a partial result of a running tool call to front ends (bash
   * output as it arrives, say). `call-id` is the id of a call this plugin
   * is executing right now; other ids are ignored.
   */
  export function toolProgress(callId: string, partial: ToolResult): void;
  export type Level = import('tack:plugin/types@0.1.0').Level;
  export type ToolResult = import('tack:plugin/types@0.1.0').ToolResult;
}
