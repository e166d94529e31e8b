import { describe, expect, it } from "vitest";
import { parseByteRange } from "../../src/media/byte-range.ts";

describe("parseByteRange", () => {
  it.each([
    [undefined, null],
    ["bytes=0-9", { start: 0, end: 9 }],
    ["bytes=90-", { start: 90, end: 99 }],
    ["bytes=90-500", { start: 90, end: 99 }],
    ["bytes=-10", { start: 90, end: 99 }],
    ["bytes=-500", { start: 0, end: 99 }],
    ["bytes=100-", "unsatisfiable"],
    ["bytes=-0", "unsatisfiable"],
    ["bytes=9-0", null],
    ["bytes=0-1,5-6", null],
    ["items=0-9", null],
    ["bytes=-", null],
  ])("%s → %j", (header, expected) => {
    expect(parseByteRange(header, 100)).toEqual(expected);
  });
});
