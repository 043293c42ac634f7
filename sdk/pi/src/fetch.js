// The global `fetch`, on `tack:plugin/http`: the host sends the request only to a URL the
// extension's `http` grant names (https, or loopback), and answers a refusal with the reason,
// which `fetch` throws as a TypeError, as it does for a network error.

import { fetch as hostFetch } from "tack:plugin/http@0.1.0";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function headerPairs(headers) {
  if (!headers) return [];
  if (typeof headers.entries === "function" && !Array.isArray(headers)) {
    return [...headers.entries()].map(([k, v]) => [String(k), String(v)]);
  }
  if (Array.isArray(headers)) return headers.map(([k, v]) => [String(k), String(v)]);
  return Object.entries(headers).map(([k, v]) => [k, String(v)]);
}

function bodyBytes(body) {
  if (body === undefined || body === null) return new Uint8Array();
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return encoder.encode(String(body));
}

/** What `fetch` resolves to: the parts of `Response` extensions read. */
class TackResponse {
  constructor(url, response) {
    this.url = url;
    this.status = response.status;
    this.ok = response.status >= 200 && response.status < 300;
    this.statusText = "";
    this.redirected = false;
    const pairs = response.headers.map(([k, v]) => [k.toLowerCase(), v]);
    this.headers = {
      get: (name) => pairs.find(([k]) => k === String(name).toLowerCase())?.[1] ?? null,
      has: (name) => pairs.some(([k]) => k === String(name).toLowerCase()),
      entries: () => pairs[Symbol.iterator](),
      forEach: (fn) => pairs.forEach(([k, v]) => fn(v, k)),
      [Symbol.iterator]: () => pairs[Symbol.iterator](),
    };
    this.bytes = response.body;
    this.bodyUsed = false;
  }
  async arrayBuffer() {
    this.bodyUsed = true;
    return this.bytes.buffer.slice(
      this.bytes.byteOffset,
      this.bytes.byteOffset + this.bytes.length,
    );
  }
  async text() {
    this.bodyUsed = true;
    return decoder.decode(this.bytes);
  }
  async json() {
    return JSON.parse(await this.text());
  }
}

/** `fetch(url, init)` through the extension's `http` grant. */
export async function fetch(input, init = {}) {
  const url = typeof input === "string" ? input : String(input?.url ?? input);
  const request = {
    method: String(init.method ?? input?.method ?? "GET").toUpperCase(),
    url,
    headers: headerPairs(init.headers ?? input?.headers),
    body: bodyBytes(init.body),
    secret: undefined,
    timeoutMs: undefined,
  };
  let response;
  try {
    response = hostFetch(request);
  } catch (e) {
    const error = e?.payload ?? e;
    const why = error?.tag ? `${error.tag}${error.val ? `: ${error.val}` : ""}` : String(error);
    throw new TypeError(`fetch ${url} failed: ${why}`);
  }
  return new TackResponse(url, response);
}
