// Pi's output truncation helpers (`truncateHead`, `truncateTail`, `truncateLine`,
// `formatSize`), written for tack from their documented contract in pi-coding-agent's types:
// whole lines only, within a line count and a byte count.

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
export const GREP_MAX_LINE_LENGTH = 500;

const encoder = new TextEncoder();
const byteLength = (text) => encoder.encode(text).length;

/** `1.5KB`, `2.0MB`: a byte count for people. */
export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function result(content, kept, lines, options, fields) {
  const outputBytes = byteLength(kept.join("\n"));
  return {
    content: kept.join("\n"),
    truncated: kept.length < lines.length || Boolean(fields.lastLinePartial),
    truncatedBy: fields.truncatedBy ?? null,
    totalLines: lines.length,
    totalBytes: byteLength(content),
    outputLines: kept.length,
    outputBytes,
    lastLinePartial: Boolean(fields.lastLinePartial),
    firstLineExceedsLimit: Boolean(fields.firstLineExceedsLimit),
    maxLines: options.maxLines,
    maxBytes: options.maxBytes,
  };
}

function limits(options = {}) {
  return {
    maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
  };
}

/**
 * The lines of `ordered` taken in turn while both limits hold, and which limit stopped it.
 * `truncateHead` takes them from the first, `truncateTail` from the last.
 */
function take(ordered, limit) {
  const kept = [];
  let bytes = 0;
  let truncatedBy = null;
  for (const line of ordered) {
    const cost = byteLength(line) + (kept.length ? 1 : 0);
    if (kept.length >= limit.maxLines) {
      truncatedBy = "lines";
      break;
    }
    if (bytes + cost > limit.maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    kept.push(line);
    bytes += cost;
  }
  return { kept, truncatedBy };
}

/** The first lines of `content` that fit both limits. */
export function truncateHead(content, options) {
  const limit = limits(options);
  const lines = String(content).split("\n");
  const { kept, truncatedBy } = take(lines, limit);
  return result(content, kept, lines, limit, {
    truncatedBy,
    firstLineExceedsLimit: kept.length === 0 && lines.length > 0 && truncatedBy === "bytes",
  });
}

/** The last lines of `content` that fit both limits. */
export function truncateTail(content, options) {
  const limit = limits(options);
  const lines = String(content).split("\n");
  const { kept, truncatedBy } = take([...lines].reverse(), limit);
  return result(content, kept.reverse(), lines, limit, { truncatedBy });
}

/** A line cut to `maxChars`, marked when cut. */
export function truncateLine(line, maxChars = GREP_MAX_LINE_LENGTH) {
  const text = String(line);
  if (text.length <= maxChars) return { text, wasTruncated: false };
  return { text: `${text.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
