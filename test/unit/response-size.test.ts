// The response size cap measures answers without serialising them (src/graphql/use-response-size-limit.ts):
// its count must match JSON.stringify closely, and stop early once the cap is passed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonSizeUpTo } from "../../src/graphql/plugins/use-response-size-limit.ts";

/** JSON values whose serialisation the count can know exactly: no escapes, integers, no empty containers. */
const plainJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.stringMatching(/^[a-z0-9 ]{0,30}$/),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { minLength: 1, maxLength: 5 }),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), tie("value"), { minKeys: 1, maxKeys: 5 }),
  ),
})).value;

describe("jsonSizeUpTo", () => {
  it("counts exactly what JSON.stringify writes for plain values", () => {
    fc.assert(
      fc.property(plainJson, (value) => {
        expect(jsonSizeUpTo(value, Number.POSITIVE_INFINITY)).toBe(JSON.stringify(value).length);
      }),
    );
  });

  it("never counts less than a fraction written out, nor a date", () => {
    expect(jsonSizeUpTo({ n: -1.2345678901234567e-100 }, 1e9)).toBeGreaterThanOrEqual(
      JSON.stringify({ n: -1.2345678901234567e-100 }).length,
    );
    const date = new Date("2026-11-23T10:00:00.000Z");
    expect(jsonSizeUpTo({ at: date }, 1e9)).toBe(JSON.stringify({ at: date }).length);
  });

  it("stops as soon as the limit is passed", () => {
    const big = Array.from({ length: 1_000 }, (_, index) => ({ id: String(index), body: "x".repeat(1_000) }));
    const size = jsonSizeUpTo(big, 10_000);
    expect(size).toBeGreaterThan(10_000);
    // Stopped within the item that crossed the limit, not after the 1 MB walk.
    expect(size).toBeLessThan(12_100);
  });
});
