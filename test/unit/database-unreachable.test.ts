// Which database errors mean "not reachable, try again" (a 503 with Retry-After) rather than a refused
// or malformed statement: src/db/database-unreachable.ts.
import { describe, expect, it } from "vitest";
import { isDatabaseUnreachable } from "../../src/db/database-unreachable.ts";

describe("isDatabaseUnreachable", () => {
  it("recognises connection faults, directly or wrapped", () => {
    expect(isDatabaseUnreachable({ code: "ECONNREFUSED" })).toBe(true);
    expect(isDatabaseUnreachable({ code: "08006" })).toBe(true);
    expect(isDatabaseUnreachable({ code: "57P01" })).toBe(true);
    expect(isDatabaseUnreachable(new Error("outer", { cause: { code: "08003" } }))).toBe(true);
    expect(
      isDatabaseUnreachable({ meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } } }),
    ).toBe(true);
  });

  it("does not take a statement sent wrong (08P01 protocol violation) or refused for one", () => {
    expect(isDatabaseUnreachable({ code: "08P01", message: "bind message supplies 3 parameters" })).toBe(
      false,
    );
    expect(isDatabaseUnreachable(new Error("outer", { cause: { code: "08P01" } }))).toBe(false);
    expect(isDatabaseUnreachable({ code: "23505" })).toBe(false);
    expect(isDatabaseUnreachable(new Error("syntax error"))).toBe(false);
  });
});
