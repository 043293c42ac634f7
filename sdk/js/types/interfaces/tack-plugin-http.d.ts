/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/http@0.1.0' {
  export function fetch(request: Request): Response;
  export type AuthScheme = import('tack:plugin/types@0.1.0').AuthScheme;
  /**
   * A secret the host attaches; the guest names it and never sees it. The
   * plugin needs a `secrets` grant for it.
   */
  export interface SecretUse {
    name: string,
    auth: AuthScheme,
  }
  export interface Request {
    method: string,
    url: string,
    headers: Array<[string, string]>,
    body: Uint8Array,
    secret?: SecretUse,
    timeoutMs?: bigint,
  }
  export interface Response {
    status: number,
    headers: Array<[string, string]>,
    body: Uint8Array,
  }
  export type HttpError = HttpErrorDenied | HttpErrorInvalid | HttpErrorTransport | HttpErrorTimeout;
  export interface HttpErrorDenied {
    tag: 'denied',
    val: string,
  }
  export interface HttpErrorInvalid {
    tag: 'invalid',
    val: string,
  }
  export interface HttpErrorTransport {
    tag: 'transport',
    val: string,
  }
  export interface HttpErrorTimeout {
    tag: 'timeout',
  }
}
