// CACHE and CACHE_TTL: where answers are kept, and the safety-net lifetime.
import { constants } from "node:buffer";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const base = { DATA_DIR: "/tmp/cache-config-test" };

describe("CACHE", () => {
  it("keeps answers in memory by default, and shares them through Redis when REDIS_URL is set", () => {
    expect(loadConfig(base).cache.mode).toBe("memory");
    expect(loadConfig({ ...base, REDIS_URL: "redis://127.0.0.1:6379" }).cache.mode).toBe("redis");
  });

  it("can be chosen: memory even with Redis, or off", () => {
    expect(loadConfig({ ...base, REDIS_URL: "redis://127.0.0.1:6379", CACHE: "memory" }).cache.mode).toBe(
      "memory",
    );
    expect(loadConfig({ ...base, CACHE: "off" }).cache.mode).toBe("off");
  });

  it("refuses redis without a REDIS_URL, and an unknown mode, naming the variable", () => {
    expect(() => loadConfig({ ...base, CACHE: "redis" })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, CACHE: "redis" })).toThrow(/REDIS_URL: required when CACHE=redis/);
    expect(() => loadConfig({ ...base, CACHE: "disk" })).toThrow(/CACHE/);
  });

  it("keeps CACHE_MAX_BYTES of answers (64 MiB unless set), no more than one Buffer can hold", () => {
    expect(loadConfig(base).cache.maxBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ ...base, CACHE_MAX_BYTES: "1000000" }).cache.maxBytes).toBe(1_000_000);
    // Node's limit differs between versions (4 GiB on Node 20, far more on Node 24): one byte above it.
    const aboveLimit = String(constants.MAX_LENGTH + 1);
    expect(() => loadConfig({ ...base, CACHE_MAX_BYTES: aboveLimit })).toThrow(/CACHE_MAX_BYTES/);
    expect(() => loadConfig({ ...base, CACHE_MAX_BYTES: "0" })).toThrow(/CACHE_MAX_BYTES/);
  });

  it("expires answers after CACHE_TTL (one hour unless set)", () => {
    expect(loadConfig(base).cache.ttlMs).toBe(3_600_000);
    expect(loadConfig({ ...base, CACHE_TTL: "10m" }).cache.ttlMs).toBe(600_000);
    expect(() => loadConfig({ ...base, CACHE_TTL: "soon" })).toThrow(/CACHE_TTL/);
  });

  it("sends one CDN tag header, Surrogate-Key, unless CACHE_TAG_HEADER says otherwise", () => {
    expect(loadConfig(base).cache.tagHeader).toBe("surrogate-key");
    for (const form of ["cache-tag", "both", "none"] as const)
      expect(loadConfig({ ...base, CACHE_TAG_HEADER: form }).cache.tagHeader).toBe(form);
    expect(() => loadConfig({ ...base, CACHE_TAG_HEADER: "all" })).toThrow(/CACHE_TAG_HEADER/);
  });
});
