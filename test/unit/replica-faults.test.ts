// Which failed statements leave a replica out (src/db/replica-fallback.ts replicaAtFault): the replica's
// own trouble, not a statement the primary would refuse as well.
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import { describe, expect, it } from "vitest";
import { replicaAtFault } from "../../src/db/replica-fallback.ts";

const pgError = (code: string) => Object.assign(new Error(`SQLSTATE ${code}`), { code });
const adapterError = (originalCode: string) =>
  new DriverAdapterError({
    kind: "postgres",
    code: originalCode,
    originalCode,
    severity: "ERROR",
    message: "x",
  } as never);

describe("replicaAtFault", () => {
  it("blames the replica for lost connections, shutdowns, timeouts and recovery conflicts", () => {
    expect(replicaAtFault(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(replicaAtFault(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(
      true,
    );
    expect(replicaAtFault(new DriverAdapterError({ kind: "DatabaseNotReachable" } as never))).toBe(true);
    for (const code of ["08006", "53300", "57P01", "57014", "58030", "XX000", "40001"]) {
      expect(replicaAtFault(pgError(code))).toBe(true);
      expect(replicaAtFault(adapterError(code))).toBe(true);
    }
  });

  it("does not blame it for a statement's own errors", () => {
    for (const code of ["22P02", "23505", "42703", "42P01"]) {
      expect(replicaAtFault(pgError(code))).toBe(false);
      expect(replicaAtFault(adapterError(code))).toBe(false);
    }
  });
});
