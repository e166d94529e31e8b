// Both doors' validators (src/cache/etag.ts): a tag names exactly one sequence of bytes, and
// If-None-Match holds it in any of the answer's encodings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holdsETag, strongETag } from "../../src/cache/etag.ts";

describe("strongETag", () => {
  it("is a quoted tag of 16 hex digits, the same for the same bytes", () => {
    const body = Buffer.from(JSON.stringify({ items: [{ id: "p1", title: "Hello" }] }));
    expect(strongETag(body)).toMatch(/^"[0-9a-f]{16}"$/);
    expect(strongETag(Buffer.from(body))).toBe(strongETag(body));
  });

  it("changes when any byte of the body changes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 4_096 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, at, flip) => {
          const changed = Uint8Array.from(bytes);
          const index = at % bytes.length;
          changed[index] = (changed[index] as number) ^ flip;
          expect(strongETag(changed)).not.toBe(strongETag(bytes));
        },
      ),
    );
  });

  it("tells a body from the same body one byte longer or shorter", () => {
    const body = Buffer.from("x".repeat(1_000));
    const tags = new Set([
      strongETag(body),
      strongETag(body.subarray(1)),
      strongETag(Buffer.from(`${body}x`)),
    ]);
    expect(tags.size).toBe(3);
  });
});

describe("holdsETag", () => {
  const etag = strongETag(Buffer.from("answer"));
  const hash = etag.slice(1, -1);

  it("holds the tag itself, weak or strong, in a list, in any encoding, and *", () => {
    expect(holdsETag(etag, etag)).toBe(true);
    expect(holdsETag(`W/${etag}`, etag)).toBe(true);
    expect(holdsETag(`"other", ${etag}`, etag)).toBe(true);
    expect(holdsETag(`"${hash}-br"`, etag)).toBe(true);
    expect(holdsETag(`"${hash}-gzip"`, etag)).toBe(true);
    expect(holdsETag("*", etag)).toBe(true);
  });

  it("does not hold another tag, an unknown encoding or no header", () => {
    expect(holdsETag(strongETag(Buffer.from("answer!")), etag)).toBe(false);
    expect(holdsETag(`"${hash}-deflate"`, etag)).toBe(false);
    expect(holdsETag(undefined, etag)).toBe(false);
    expect(holdsETag("", etag)).toBe(false);
  });
});
