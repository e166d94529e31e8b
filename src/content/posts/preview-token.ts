// Preview tokens: a signed, expiring grant to read one post as it is now (draft or scheduled).
//
//   pvt_<payload>.<signature>
//   payload   = base64url(JSON {"v":1,"w":workspaceId,"p":postId,"g":previewGeneration,"exp":unix ms,
//                               "l":locale — only a translation's token (issue 56)})
//   signature = base64url(HMAC-SHA256(secret, "pvt_" + payload))
//
// Stateless on purpose: checking one needs no table of issued tokens, only the post's current
// `previewGeneration` (post-previews.ts), which revoking raises. The signature covers the payload's
// text exactly as sent, so nothing in it can be changed, and it is compared in constant time. Every
// character is URL-safe, so a token goes into `?preview=` as it is. Nothing here is secret from the
// holder (the ids are in the payload): the token is a capability, not a hiding place.
import { createHmac, timingSafeEqual } from "node:crypto";
import { PreviewTokenError } from "../../domain/errors.ts";

const PREFIX = "pvt_";
const VERSION = 1;
/** Far above a real token (about 200 characters); longer input is refused before any work. */
const MAX_TOKEN_LENGTH = 1_000;
const TOKEN_SHAPE = /^pvt_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

export interface PreviewGrant {
  workspaceId: string;
  postId: string;
  /** The post's (or the translation's) previewGeneration when the token was made. */
  generation: number;
  expiresAt: Date;
  /** The translation it previews (issue 56); absent or null: the default locale's, the post's own row. */
  locale?: string | null;
}

export function signPreviewToken(grant: PreviewGrant, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify({
      v: VERSION,
      w: grant.workspaceId,
      p: grant.postId,
      g: grant.generation,
      exp: grant.expiresAt.getTime(),
      // Only a translation's token names one: a default locale's token is what it always was.
      ...(grant.locale ? { l: grant.locale } : {}),
    }),
  ).toString("base64url");
  return `${PREFIX}${payload}.${signature(payload, secret).toString("base64url")}`;
}

/**
 * The grant a token carries, if this service signed it and it has not expired at `now`; else a
 * PreviewTokenError (`invalid` or `expired`). Whether it still opens its post is post-previews.ts's.
 */
export function readPreviewToken(token: string, secret: string, now: Date): PreviewGrant {
  const match = token.length <= MAX_TOKEN_LENGTH ? TOKEN_SHAPE.exec(token) : null;
  const [, payload = "", signed = ""] = match ?? [];
  const given = Buffer.from(signed, "base64url");
  const expected = signature(payload, secret);
  // The 43rd character carries 2 unused bits: four spellings decode to the same bytes. Only the one
  // this service writes is accepted, so a token cannot be altered at all and still work.
  const canonical = given.toString("base64url") === signed;
  if (!match || !canonical || given.length !== expected.length || !timingSafeEqual(given, expected))
    throw invalid();
  // Signed by us, so well-formed unless the format changed: still checked, never trusted blindly.
  const grant = parseGrant(payload);
  if (!grant) throw invalid();
  if (grant.expiresAt.getTime() <= now.getTime())
    throw new PreviewTokenError(
      "expired",
      `This preview token expired at ${grant.expiresAt.toISOString()}; ask for a new one`,
    );
  return grant;
}

function signature(payload: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(`${PREFIX}${payload}`).digest();
}

function parseGrant(payload: string): PreviewGrant | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const { v, w, p, g, exp, l } = (value ?? {}) as Record<string, unknown>;
  if (v !== VERSION || typeof w !== "string" || typeof p !== "string") return null;
  if (!Number.isSafeInteger(g) || !Number.isSafeInteger(exp)) return null;
  if (l !== undefined && typeof l !== "string") return null;
  return {
    workspaceId: w,
    postId: p,
    generation: g as number,
    expiresAt: new Date(exp as number),
    ...(typeof l === "string" ? { locale: l } : {}),
  };
}

function invalid(): PreviewTokenError {
  return new PreviewTokenError(
    "invalid",
    "This preview token is not valid: it was not issued by this service, or it has been altered",
  );
}
