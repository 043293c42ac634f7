// Node's `Buffer` (the global and `node:buffer`), as much of it as npm packages and extensions
// commonly use: a Uint8Array that converts to and from strings in utf8, base64, base64url, hex
// and latin1.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function normalize(encoding = "utf8") {
  const name = String(encoding).toLowerCase().replace("-", "");
  if (name === "utf8" || name === "base64" || name === "base64url" || name === "hex") return name;
  if (name === "latin1" || name === "binary" || name === "ascii") return "latin1";
  throw new TypeError(`Unknown encoding: ${encoding}`);
}

function bytesFromString(text, encoding) {
  switch (normalize(encoding)) {
    case "utf8":
      return encoder.encode(text);
    case "base64":
    case "base64url": {
      const standard = text
        .replace(/-/g, "+")
        .replace(/_/g, "/")
        .replace(/[^A-Za-z0-9+/]/g, "");
      const padded = standard + "=".repeat((4 - (standard.length % 4)) % 4);
      return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
    }
    case "hex": {
      const out = new Uint8Array(Math.floor(text.length / 2));
      for (let i = 0; i < out.length; i++) {
        const byte = parseInt(text.slice(2 * i, 2 * i + 2), 16);
        if (Number.isNaN(byte)) return out.subarray(0, i);
        out[i] = byte;
      }
      return out;
    }
    default:
      return Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
  }
}

function stringFromBytes(bytes, encoding) {
  switch (normalize(encoding)) {
    case "utf8":
      return decoder.decode(bytes);
    case "base64":
    case "base64url": {
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) {
        binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      }
      const text = btoa(binary);
      return normalize(encoding) === "base64"
        ? text
        : text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    }
    case "hex":
      return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    default:
      return String.fromCharCode(...bytes);
  }
}

/** A new Buffer holding `bytes` (an array or typed array), however long. */
function copyOf(bytes) {
  const buffer = new Buffer(bytes.length);
  buffer.set(bytes);
  return buffer;
}

export class Buffer extends Uint8Array {
  static from(value, encodingOrOffset, length) {
    if (typeof value === "string") return copyOf(bytesFromString(value, encodingOrOffset));
    if (value instanceof ArrayBuffer) {
      return new Buffer(
        value,
        encodingOrOffset ?? 0,
        length ?? value.byteLength - (encodingOrOffset ?? 0),
      );
    }
    if (ArrayBuffer.isView(value)) {
      const copy = new Buffer(value.byteLength);
      copy.set(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      return copy;
    }
    if (Array.isArray(value)) return copyOf(value);
    if (value && value.type === "Buffer" && Array.isArray(value.data)) return copyOf(value.data);
    throw new TypeError("Buffer.from takes a string, an array, an ArrayBuffer or a typed array");
  }

  static alloc(size, fill = 0) {
    const buffer = new Buffer(size);
    if (fill !== 0) {
      const pattern = typeof fill === "string" ? bytesFromString(fill) : [fill & 0xff];
      for (let i = 0; i < size; i++) buffer[i] = pattern[i % pattern.length];
    }
    return buffer;
  }

  static allocUnsafe(size) {
    return new Buffer(size);
  }

  static isBuffer(value) {
    return value instanceof Buffer;
  }

  static isEncoding(encoding) {
    try {
      normalize(encoding);
      return true;
    } catch {
      return false;
    }
  }

  static byteLength(value, encoding) {
    if (typeof value === "string") return bytesFromString(value, encoding).length;
    return value.byteLength;
  }

  static concat(list, total) {
    const length = total ?? list.reduce((n, b) => n + b.length, 0);
    const out = new Buffer(length);
    let at = 0;
    for (const part of list) {
      if (at >= length) break;
      out.set(part.subarray(0, length - at), at);
      at += Math.min(part.length, length - at);
    }
    return out;
  }

  toString(encoding = "utf8", start = 0, end = this.length) {
    return stringFromBytes(this.subarray(start, end), encoding);
  }

  toJSON() {
    return { type: "Buffer", data: Array.from(this) };
  }

  equals(other) {
    return this.length === other.length && this.every((b, i) => b === other[i]);
  }

  write(text, offset = 0, encoding = "utf8") {
    const bytes = bytesFromString(text, encoding).subarray(0, this.length - offset);
    this.set(bytes, offset);
    return bytes.length;
  }

  slice(start, end) {
    return this.subarray(start, end);
  }
}
