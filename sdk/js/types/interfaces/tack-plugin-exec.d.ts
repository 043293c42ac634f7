declare module 'tack:plugin/exec@0.1.0' {
  export function spawn(request: ExecRequest): Process;
  export interface ExecRequest {
    /**
     * The command line. With an unrestricted grant (`"**"`) it runs under
     * `sh -c`; otherwise it is split into words, must contain no shell
     * operators, must match a granted pattern, and runs without a shell.
     */
    command: string,
    /**
     * Working directory; defaults to the workspace.
     */
    cwd?: string,
    /**
     * Kill the whole process group after this long.
     */
    timeoutMs?: bigint,
  }
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
   * What `process.next` observed.
   */
  export type ProcessEvent = ProcessEventStdout | ProcessEventStderr | ProcessEventExited | ProcessEventIdle | ProcessEventTimedOut | ProcessEventCancelled;
  export interface ProcessEventStdout {
    tag: 'stdout',
    val: Uint8Array,
  }
  export interface ProcessEventStderr {
    tag: 'stderr',
    val: Uint8Array,
  }
  /**
   * The process ended; `none` when a signal killed it.
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
