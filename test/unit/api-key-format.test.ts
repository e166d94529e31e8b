import { describe, expect, it } from "vitest";
import {
  displayHintOf,
  generateApiKey,
  hashApiKey,
  hashesMatch,
  keyFromAuthorizationHeader,
  kindOfKey,
} from "../../src/auth/api-key-format.ts";

describe("API key format", () => {
  it("carries a prefix that shows its kind", () => {
    expect(generateApiKey("public")).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
    expect(generateApiKey("private")).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(kindOfKey(generateApiKey("public"))).toBe("public");
    expect(kindOfKey(generateApiKey("private"))).toBe("private");
    expect(kindOfKey("something-else")).toBeNull();
  });

  it("holds at least 128 random bits and never repeats", () => {
    const keys = new Set(Array.from({ length: 2_000 }, () => generateApiKey("public")));
    expect(keys.size).toBe(2_000);
    // 32 base64url characters = 192 bits after the prefix.
    expect(generateApiKey("public").slice(3).length * 6).toBeGreaterThanOrEqual(128);
  });

  it("is hashed with SHA-256 and compared in constant time", () => {
    const key = generateApiKey("private");
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(3));
    expect(hashesMatch(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(hashesMatch(hashApiKey(key), hashApiKey(`${key}x`))).toBe(false);
    expect(hashesMatch(hashApiKey(key), "abcd")).toBe(false);
  });

  it("shows only a short hint in listings", () => {
    const key = generateApiKey("public");
    expect(displayHintOf(key)).toBe(`${key.slice(0, 9)}…`);
  });

  it("accepts the bare key and the Bearer form in the Authorization header", () => {
    expect(keyFromAuthorizationHeader("pk_abc")).toBe("pk_abc");
    expect(keyFromAuthorizationHeader("Bearer pk_abc")).toBe("pk_abc");
    expect(keyFromAuthorizationHeader("bearer   pk_abc ")).toBe("pk_abc");
    expect(keyFromAuthorizationHeader("")).toBeNull();
    expect(keyFromAuthorizationHeader(undefined)).toBeNull();
  });
});
