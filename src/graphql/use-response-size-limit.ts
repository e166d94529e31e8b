// Caps the size of one GraphQL answer. The document bounds (use-query-bounds.ts) and the complexity
// limit keep answers small in the number of objects; this is the last net for what they cannot see
// (the length of stored strings), so that no request makes the service build and send tens of megabytes.
// The size is measured on the result object before it is serialized, stopping as soon as the cap is
// passed: an oversized answer is never turned into a string.
import type { Plugin } from "@envelop/core";
import { queryTooComplexError } from "./errors.ts";

export function useResponseSizeLimit(options: { maxBytes: number }): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!("data" in result) || !result.data) return;
        const size = jsonSizeUpTo(result.data, options.maxBytes);
        if (size <= options.maxBytes) return;
        setResult({ errors: [queryTooComplexError("response bytes", null, options.maxBytes)] });
      },
    }),
  };
}

/**
 * The length of `JSON.stringify(value)`, counted without building it, or any number above `limit`
 * once it is passed. Strings count their characters plus quotes (escapes are not counted: close
 * enough for a cap that is orders of magnitude above normal answers).
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") size += item.length + 2;
    else if (item === null || item === undefined) size += 4;
    else if (typeof item === "number" || typeof item === "boolean") size += String(item).length;
    else if (item instanceof Date) size += 26;
    else if (Array.isArray(item)) {
      size += 1 + item.length;
      for (const element of item) stack.push(element);
    } else if (typeof item === "object") {
      const entries = Object.entries(item);
      size += 1 + entries.length;
      for (const [key, child] of entries) {
        size += key.length + 3;
        stack.push(child);
      }
    }
    if (size > limit) return size;
  }
  return size;
}
