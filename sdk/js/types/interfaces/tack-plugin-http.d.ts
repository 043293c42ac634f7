/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/http@0.1.0' {
  /**
   * Sends the request and waits for the whole response.
   */
  export function fetch(request: Request): Response;
  export type AuthScheme = import('tack:plugin/types@0.1.0').AuthScheme;
  /**
   * A secret the host attaches; the guest names it and never sees it. The
   * plugin needs a `secrets` grant for it.
   */
  export interface SecretUse {
    /**
     * The secret's name (an env var or auth-file key), as granted.
     */
    name: string,
    /**
     * How it is attached to the request.
     */
    auth: AuthScheme,
  }
  /**
   * An outbound request.
   */
  export interface Request {
    /**
     * The HTTP method ("GET", "POST", …).
     */
    method: string,
    /**
     * Absolute URL; its origin must be granted.
     */
    url: string,
    /**
     * Request headers, name and value.
     */
    headers: Array<[string, string]>,
    /**
     * The request body; empty for none.
     */
    body: Uint8Array,
    /**
     * A secret the host attaches, if any.
     */
    secret?: SecretUse,
    /**
     * Give up after this long (`timeout`); `none` sets no limit but the
     * host's connect timeout. Time spent waiting here does not count
     * against the plugin call's deadline.
     */
    timeoutMs?: bigint,
  }
  /**
   * The answer, whatever its status: a 404 is a response, not an error.
   */
  export interface Response {
    /**
     * The HTTP status code.
     */
    status: number,
    /**
     * Response headers, name and value.
     */
    headers: Array<[string, string]>,
    /**
     * The whole body.
     */
    body: Uint8Array,
  }
  /**
   * Why `fetch` got no response.
   */
  export type HttpError = HttpErrorDenied | HttpErrorInvalid | HttpErrorTransport | HttpErrorTimeout;
  /**
   * No grant covers the URL, or the secret is not granted or not set;
   * the message says which.
   */
  export interface HttpErrorDenied {
    tag: 'denied',
    val: string,
  }
  /**
   * The request itself was malformed (a bad method, say).
   */
  export interface HttpErrorInvalid {
    tag: 'invalid',
    val: string,
  }
  /**
   * The connection failed or broke (DNS, TLS, reset).
   */
  export interface HttpErrorTransport {
    tag: 'transport',
    val: string,
  }
  /**
   * `timeout-ms` elapsed.
   */
  export interface HttpErrorTimeout {
    tag: 'timeout',
  }
}
