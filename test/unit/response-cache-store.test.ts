// The REST response cache's memory (src/cache/rest-answers.ts over src/cache/answer-slab.ts): what is
// served is always the bytes stored under the key and head, never another answer's; answers in use
// stay while the writer goes round; compressed forms are kept with their answer.
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createResponseCache, jsonAnswer } from "../../src/cache/rest-answers.ts";

const cacheOf = (maxBytes: number) =>
  createResponseCache({ contentHead: async () => "1", maxBytes, ttlMs: 60_000 });

/** An answer of about `size` bytes, whatever `n`. */
const answerOf = (n: number, size = 1_000) =>
  jsonAnswer({ post: { id: `post-${n}`, content: "x".repeat(size) } }, "ws", "posts");

describe("response cache memory", () => {
  it("serves each key its own bytes and validators, under its head only", () => {
    const cache = cacheOf(1_000_000);
    const answers = [1, 2, 3].map((n) => answerOf(n));
    for (const [n, answer] of answers.entries()) cache.put(`key-${n}`, "1", "/v1/posts/:identifier", answer);
    answers.forEach((answer, n) => {
      const hit = cache.peek(`key-${n}`, "1");
      expect(hit?.body.equals(answer.body)).toBe(true);
      expect(hit?.etag).toBe(answer.etag);
      expect(hit?.tags).toBe(answer.tags);
    });
    expect(cache.peek("key-0", "2")).toBeUndefined();
  });

  it("an answer whose bytes were written over is a miss, never other bytes", () => {
    // Room for about three answers: the tenth write has gone round three times.
    const cache = cacheOf(3_500);
    for (let n = 0; n < 10; n++) cache.put(`key-${n}`, "1", "/v1/posts", answerOf(n));
    expect(cache.peek("key-0", "1")).toBeUndefined();
    expect(cache.holds("key-0")).toBe(false);
    const last = cache.peek("key-9", "1");
    expect(JSON.parse(last!.body.toString()).post.id).toBe("post-9");
  });

  it("an answer read while the writer goes round is kept (written again), one never read is not", () => {
    // Room for about ten answers; the writer goes round three times.
    const cache = cacheOf(10_500);
    cache.put("hot", "1", "/v1/posts", answerOf(0));
    cache.put("cold", "1", "/v1/posts", answerOf(1));
    for (let n = 2; n < 30; n++) {
      cache.put(`key-${n}`, "1", "/v1/posts", answerOf(n));
      expect(JSON.parse(cache.peek("hot", "1")!.body.toString()).post.id).toBe("post-0");
    }
    expect(cache.peek("cold", "1")).toBeUndefined();
  });

  it("keeps the compressed form made for the computing request with the answer", () => {
    const cache = cacheOf(1_000_000);
    const answer = answerOf(7, 5_000);
    const stored = cache.put("key", "1", "/v1/posts", answer);
    const gzip = stored.encoded("gzip");
    expect(gunzipSync(gzip).equals(answer.body)).toBe(true);
    const hit = cache.peek("key", "1");
    expect(hit?.encoded("gzip").equals(gzip)).toBe(true);
  });
});
