declare module 'tack:plugin/tasks@0.1.0' {
  /**
   * How many tasks the host runs at the same time for one `run` (about the
   * number of cores it lets plugins use). A plugin sizes its split by it.
   */
  export function parallelism(): number;
  /**
   * Runs every input through this plugin's `task-runner.run-task`, up to
   * `parallelism` at a time, and returns their results in input order.
   * Waits for all of them. The tasks share the calling call's deadline and
   * cancellation; a task that traps or times out yields `err` naming the
   * cause, and the others are unaffected. Fails as a whole (outer `err`)
   * when called from inside a task (no nesting), before `init` has
   * returned, with more than 4096 inputs, or when the plugin does not export
   * `task-runner`.
   */
  export function run(inputs: Array<Uint8Array>): Array<Result<Uint8Array, string>>;
  export type Result<T, E> = { tag: 'ok', val: T } | { tag: 'err', val: E };
}
