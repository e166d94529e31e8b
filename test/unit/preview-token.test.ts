// The preview token format (src/content/posts/preview-token.ts): `pvt_<payload>.<HMAC-SHA256>`, checked in
// constant time; a token whose payload, signature or secret differs in anything is `invalid`, one past
// its expiry `expired` (from the exact millisecond it names).
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type PreviewGrant,
  readPreviewToken,
  signPreviewToken,
} from "../../src/content/posts/preview-token.ts";
import { PreviewTokenError } from "../../src/domain/errors.ts";

const SECRET = "s".repeat(43);
const grant: PreviewGrant = {
  workspaceId: "ws_1",
  postId: "post_1",
  generation: 3,
  expiresAt: new Date("2030-01-01T12:00:00.000Z"),
};
const before = new Date("2030-01-01T11:59:59.999Z");

function problemOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof PreviewTokenError) return error.problem;
    throw error;
  }
  return "accepted";
}

/** A token for `payload` signed as the service signs, to reach the checks behind the signature. */
function signedPayload(payload: unknown): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `pvt_${encoded}.${createHmac("sha256", SECRET).update(`pvt_${encoded}`).digest("base64url")}`;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

describe("preview tokens", () => {
  it("refuse every other spelling of the signature's last character, though it decodes to the same bytes", () => {
    const token = signPreviewToken(grant, SECRET);
    const last = BASE64URL.indexOf(token.at(-1) as string);
    // The last of 43 characters holds 4 bits of the 32 bytes and 2 unused ones: these three others
    // decode to the same signature.
    const sameBytes = [1, 2, 3].map((unused) => BASE64URL[(last & ~3) | ((last + unused) & 3)] as string);
    for (const spelling of sameBytes) {
      const altered = `${token.slice(0, -1)}${spelling}`;
      expect(Buffer.from(altered.split(".")[1] as string, "base64url")).toEqual(
        Buffer.from(token.split(".")[1] as string, "base64url"),
      );
      expect(problemOf(() => readPreviewToken(altered, SECRET, before))).toBe("invalid");
    }
  });

  it("carry their grant, URL-safe, and read back with the secret that signed them", () => {
    const token = signPreviewToken(grant, SECRET);
    expect(token).toMatch(/^pvt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(readPreviewToken(token, SECRET, before)).toEqual(grant);
  });

  it("expire at the millisecond they name", () => {
    const token = signPreviewToken(grant, SECRET);
    expect(problemOf(() => readPreviewToken(token, SECRET, grant.expiresAt))).toBe("expired");
  });

  it("are invalid with another secret, or with any change to payload or signature", () => {
    const token = signPreviewToken(grant, SECRET);
    const [payload = "", signature = ""] = token.slice(4).split(".");
    const flipped = (text: string, at: number) =>
      `${text.slice(0, at)}${text[at] === "A" ? "B" : "A"}${text.slice(at + 1)}`;
    for (const candidate of [
      signPreviewToken(grant, `${SECRET}x`),
      `pvt_${flipped(payload, 5)}.${signature}`,
      `pvt_${payload}.${flipped(signature, 10)}`,
      `pvt_${payload}.${signature}=`,
      `pvx_${payload}.${signature}`,
      `pvt_${payload}`,
      "",
      `pvt_${"A".repeat(2_000)}.${signature}`,
    ])
      expect(
        problemOf(() => readPreviewToken(candidate, SECRET, before)),
        candidate.slice(0, 80),
      ).toBe("invalid");
  });

  it("are invalid when a correctly signed payload is not a grant of this version", () => {
    const claims = { v: 1, w: "ws_1", p: "post_1", g: 3, exp: grant.expiresAt.getTime() };
    expect(readPreviewToken(signedPayload(claims), SECRET, before)).toEqual(grant);
    for (const payload of [
      { ...claims, v: 2 },
      { ...claims, g: "3" },
      { ...claims, exp: 1.5 },
      { ...claims, w: undefined },
      null,
      "text",
    ])
      expect(problemOf(() => readPreviewToken(signedPayload(payload), SECRET, before))).toBe("invalid");
  });
});
