// Caps the size of one GraphQL answer. The document bounds (use-query-bounds.ts) and the complexity
// limit keep answers small in the number of objects; this is the last net for what they cannot see
// (the length of stored strings), so that no request makes the service build and send tens of megabytes.
// The size is measured on the result object before it is serialized, stopping as soon as the cap is
// passed: an oversized answer is never turned into a string.
import type { Plugin } from "@envelop/core";
import type { ExecutionResult } from "graphql";
import { queryTooComplexError } from "../errors.ts";

export function useResponseSizeLimit(options: { maxBytes: number }): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!("data" in result)) return;
        const capped = sizeCapped(result, options.maxBytes);
        if (capped !== result) setResult(capped);
      },
    }),
  };
}

/** The result, or the refusal when its data is larger than `maxBytes` (also for REST's executions). */
export function sizeCapped(result: ExecutionResult, maxBytes: number): ExecutionResult {
  if (!result.data || jsonSizeUpTo(result.data, maxBytes) <= maxBytes) return result;
  return { errors: [queryTooComplexError("response bytes", null, maxBytes)] };
}

/**
 * The length of `JSON.stringify(value)`, counted without building it, or any number above `limit`
 * once it is passed. Strings count their characters plus quotes (escapes are not counted), numbers
 * their digits (a fraction as its longest form): close enough for a cap that is orders of magnitude
 * above normal answers. It runs on every answer, so it walks with plain loops and allocates nothing.
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  /** Adds `item`'s length; false once the total is past `limit`. */
  const add = (item: unknown): boolean => {
    switch (typeof item) {
      case "string":
        size += item.length + 2;
        break;
      case "number":
        size += numberLength(item);
        break;
      case "boolean":
        size += item ? 4 : 5;
        break;
      case "object":
        if (item === null) size += 4;
        else if (Array.isArray(item)) {
          size += 1 + item.length;
          for (let index = 0; index < item.length; index++) if (!add(item[index])) return false;
        } else if (item instanceof Date) size += 26;
        else {
          size += 1;
          const record = item as Record<string, unknown>;
          for (const key in record) {
            // Quotes, colon and comma around the key.
            size += key.length + 4;
            if (!add(record[key])) return false;
          }
        }
        break;
      default:
        size += 4;
    }
    return size <= limit;
  };
  add(value);
  return size;
}

function numberLength(value: number): number {
  if (!Number.isInteger(value)) return 24;
  let digits = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest /= 10) digits++;
  return digits;
}
