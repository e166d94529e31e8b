import { describe, expect, it } from "vitest";
import {
  API_KEY_PATTERN,
  displayHintOf,
  generateApiKey,
  hashApiKey,
  hashesMatch,
  isWellFormedKey,
  keyFromAuthorizationHeader,
  kindOfKey,
} from "../../src/auth/api-key-format.ts";

describe("API key format", () => {
  it("carries a prefix that shows its kind", () => {
    expect(generateApiKey("public")).toMatch(API_KEY_PATTERN);
    expect(generateApiKey("private")).toMatch(/^sk_[0-9A-Za-z]{36}$/);
    expect(kindOfKey(generateApiKey("public"))).toBe("public");
    expect(kindOfKey(generateApiKey("private"))).toBe("private");
    expect(kindOfKey("something-else")).toBeNull();
  });

  it("holds at least 128 random bits and never repeats", () => {
    const keys = new Set(Array.from({ length: 2_000 }, () => generateApiKey("public")));
    expect(keys.size).toBe(2_000);
    // 30 base62 characters before the 6 of the checksum: 30 × log2(62) ≈ 178 bits.
    expect(30 * Math.log2(62)).toBeGreaterThanOrEqual(128);
    expect(generateApiKey("public").slice(3, -6)).toMatch(/^[0-9A-Za-z]{30}$/);
  });

  it("is hashed with SHA-256 and compared in constant time", () => {
    const key = generateApiKey("private");
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(3));
    expect(hashesMatch(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(hashesMatch(hashApiKey(key), hashApiKey(`${key}x`))).toBe(false);
    expect(hashesMatch(hashApiKey(key), "abcd")).toBe(false);
  });

  it("ends in a checksum that a typo or a made-up key fails, while keys of the old format pass", () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey(i % 2 ? "public" : "private");
      expect(isWellFormedKey(key)).toBe(true);
      const at = 3 + (i % 36);
      const other = key[at] === "A" ? "B" : "A";
      expect(isWellFormedKey(key.slice(0, at) + other + key.slice(at + 1)), key).toBe(false);
    }
    expect(isWellFormedKey("sk_thisKeyWasNeverIssuedByAnyWorkspace00")).toBe(false);
    expect(isWellFormedKey(`sk_${"a".repeat(32)}`)).toBe(true);
    expect(isWellFormedKey("pk_short")).toBe(false);
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
