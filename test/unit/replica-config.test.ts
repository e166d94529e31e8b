// DATABASE_REPLICA_URLS and DATABASE_REPLICA_MAX_LAG_MS: read replicas of DATABASE_URL's server.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { formatLsn, laterOf, parseLsn } from "../../src/db/wal-position.ts";

const base = { DATA_DIR: "/tmp/replica-config-test" };
const primary = { ...base, DATABASE_URL: "postgresql://app@db-primary:5432/content" };

describe("DATABASE_REPLICA_URLS", () => {
  it("is empty by default (every read on the primary), with a 5 s lag limit", () => {
    expect(loadConfig(primary).replicas).toEqual({ urls: [], maxLagMs: 5_000 });
  });

  it("reads a comma list, spaces and empty items aside", () => {
    const config = loadConfig({
      ...primary,
      DATABASE_REPLICA_URLS: " postgresql://app@replica-1:5432/content, ,postgres://app@replica-2/content ",
      DATABASE_REPLICA_MAX_LAG_MS: "800",
    });
    expect(config.replicas).toEqual({
      urls: ["postgresql://app@replica-1:5432/content", "postgres://app@replica-2/content"],
      maxLagMs: 800,
    });
  });

  it("refuses a URL that is not PostgreSQL's or names no user, and replicas without a primary", () => {
    expect(() => loadConfig({ ...primary, DATABASE_REPLICA_URLS: "mysql://app@replica/content" })).toThrow(
      /DATABASE_REPLICA_URLS: mysql:\/\/app@replica\/content must be a postgres/,
    );
    expect(() =>
      loadConfig({ ...primary, DATABASE_REPLICA_URLS: "postgresql://replica:5432/content" }),
    ).toThrow(/DATABASE_REPLICA_URLS: must name a user/);
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_URLS: "postgresql://app@replica/content" })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ ...primary, DATABASE_REPLICA_MAX_LAG_MS: "0" })).toThrow(
      /DATABASE_REPLICA_MAX_LAG_MS/,
    );
  });
});

describe("WAL positions", () => {
  it("read and write PostgreSQL's text form, and compare as numbers", () => {
    expect(parseLsn("16/B374D848")).toBe((0x16n << 32n) + 0xb374d848n);
    expect(formatLsn(parseLsn("16/B374D848") as bigint)).toBe("16/B374D848");
    expect(parseLsn("0/9") as bigint).toBeLessThan(parseLsn("0/10") as bigint);
    expect(laterOf(parseLsn("1/0"), parseLsn("0/FFFFFFFF"))).toBe(1n << 32n);
    expect(laterOf(null, 5n)).toBe(5n);
  });

  it("ignores anything else a client may send", () => {
    for (const value of ["", "abc", "1/", "/1", "1/2/3", "123456789/0", "0x1/0", undefined, null])
      expect(parseLsn(value)).toBeNull();
  });
});
