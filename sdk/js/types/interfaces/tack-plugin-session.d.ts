/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/session@0.1.0' {
  /**
   * Session id (stable for the file).
   */
  export function id(): string;
  /**
   * Entries from the root to the current leaf (the active branch), as a JSON
   * array of session entries exactly as stored in the session file, except
   * other plugins' `custom` entries, which are left out.
   */
  export function branch(): Json;
  /**
   * The `data` of this plugin's newest `custom` entry of type `custom-type`
   * on the active branch, if any. Only entries this plugin wrote count:
   * another plugin writing the same type cannot change what this returns.
   * Much cheaper than `branch` for a plugin that only needs its own latest
   * state, which hooks read on every call.
   */
  export function latestCustom(customType: string): Json | undefined;
  /**
   * Appends a `custom` entry (plugin state; the model never sees it) owned
   * by this plugin at the leaf and returns its id. State kept this way
   * follows `/tree` moves. The data is capped (1 MiB by default); going over
   * fails the call and counts as a fault.
   */
  export function appendCustom(customType: string, data: Json): string;
  /**
   * Queues a message for the agent.
   */
  export function sendMessage(message: OutgoingMessage, delivery: Delivery): void;
  export type Json = import('tack:plugin/types@0.1.0').Json;
  /**
   * When a message sent by a plugin reaches the model.
   * # Variants
   * 
   * ## `"steer"`
   * 
   * Inserted before the next provider call of the running agent, or
   * starts a turn when idle.
   * ## `"follow-up"`
   * 
   * Delivered when the agent would otherwise stop.
   * ## `"next-turn"`
   * 
   * Queued with the user's next prompt; does not start a turn.
   */
  export type Delivery = 'steer' | 'follow-up' | 'next-turn';
  /**
   * A message a plugin adds to the conversation. It is always stored as a
   * custom message attributed to the plugin (the model sees it as user
   * text), so nothing a plugin says passes for the user's own words.
   */
  export interface OutgoingMessage {
    /**
     * The custom type; `none` stands for `plugin-message`.
     */
    customType?: string,
    /**
     * What the model reads.
     */
    text: string,
    /**
     * Whether front ends show it.
     */
    display: boolean,
  }
}
