declare module 'tack:plugin/task-runner@0.1.0' {
  /**
   * Runs one task of a `tasks.run` call on this instance: `input` is one
   * of that call's inputs; the result becomes its entry in the answer.
   */
  export function runTask(input: Uint8Array): Uint8Array;
}
