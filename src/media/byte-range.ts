// Parses an HTTP Range header for one resource. Browsers need ranges to seek in (and, in Safari, to
// play at all) audio and video, so the local media server honours single ranges.
import type { ByteRange } from "./storage.ts";

/**
 * The range a `Range` header asks for in a resource of `size` bytes: null to serve the whole resource
 * (no header, an unparseable one, or several ranges — RFC 9110 lets a server ignore Range), or
 * "unsatisfiable" for a range wholly past the end (answered with 416).
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | null {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return null;

  if (first === "") {
    // "bytes=-N": the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return "unsatisfiable";
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return end < start ? null : { start, end };
}
