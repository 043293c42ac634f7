declare module 'tack:plugin/exec@0.1.0' {
  /**
   * Checks the command against the plugin's `exec` grant and starts it.
   * The user's abort of the tool call that spawned it kills it too.
   */
  export function spawn(request: ExecRequest): Process;
  /**
   * What to run, and where.
   */
  export interface ExecRequest {
    /**
     * The command line. With an unrestricted grant (`"**"`) it runs under
     * `sh -c`; otherwise it is split into words, must match a granted
     * pattern, and runs without a shell (shell operators are plain
     * arguments). Patterns match word by word: `**` any number of words,
     * `*` one word, and `*`, `?`, `[…]` inside a word glob within one path
     * component. A wildcard never matches an option (a word starting with
     * `-`) unless the pattern word starts with `-` too (`-*`, `--stat=*`),
     * and never a word with a `..` path segment; `**` matches anything.
     * The command gets `PATH`, `HOME`, `LANG`, `LC_ALL`, `LC_CTYPE`,
     * `TERM`, `TMPDIR` and `USER` from the user's environment, plus the
     * variables the plugin's `env` grant names, never one holding a secret.
     */
    command: string,
    /**
     * Working directory, relative to the workspace or absolute inside it;
     * defaults to the workspace. One outside the workspace is `denied`.
     */
    cwd?: string,
    /**
     * Kill the whole process group after this long.
     */
    timeoutMs?: bigint,
  }
  /**
   * Why `spawn` did not start the command.
   */
  export type ExecError = ExecErrorDenied | ExecErrorInvalid | ExecErrorFailed;
  /**
   * No grant covers the command; the message names what was refused.
   */
  export interface ExecErrorDenied {
    tag: 'denied',
    val: string,
  }
  /**
   * The request itself was malformed.
   */
  export interface ExecErrorInvalid {
    tag: 'invalid',
    val: string,
  }
  /**
   * The program could not be started.
   */
  export interface ExecErrorFailed {
    tag: 'failed',
    val: string,
  }
  /**
   * What `process.next` observed. Once it reports the end (`exited`,
   * `timed-out` or `cancelled`) it reports the same again on every call.
   */
  export type ProcessEvent = ProcessEventStdout | ProcessEventStderr | ProcessEventExited | ProcessEventIdle | ProcessEventTimedOut | ProcessEventCancelled;
  /**
   * A chunk of standard output, as it arrived (not split into lines).
   */
  export interface ProcessEventStdout {
    tag: 'stdout',
    val: Uint8Array,
  }
  /**
   * A chunk of standard error, as it arrived.
   */
  export interface ProcessEventStderr {
    tag: 'stderr',
    val: Uint8Array,
  }
  /**
   * The process ended and its output is drained; the exit code, `none`
   * when a signal killed it.
   */
  export interface ProcessEventExited {
    tag: 'exited',
    val: number | undefined,
  }
  /**
   * Nothing happened within the wait.
   */
  export interface ProcessEventIdle {
    tag: 'idle',
  }
  /**
   * Killed because `timeout-ms` elapsed.
   */
  export interface ProcessEventTimedOut {
    tag: 'timed-out',
  }
  /**
   * Killed because the user aborted the tool call.
   */
  export interface ProcessEventCancelled {
    tag: 'cancelled',
  }
  
  export class Process implements Disposable {
    /**
     * This type does not have a public constructor.
     */
    private constructor();
    /**
    * Waits up to `wait-ms` for output or exit.
    */
    next(waitMs: number): ProcessEvent;
    /**
    * Kills the whole process group.
    */
    kill(): void;
    [Symbol.dispose](): void;
  }
}
