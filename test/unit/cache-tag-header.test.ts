// The CDN tag headers of a REST answer (CACHE_TAG_HEADER): the form the operator chose, and only it —
// Surrogate-Key space-separated (Fastly), Cache-Tag comma-separated (Cloudflare).
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { jsonAnswer, sendJsonAnswer, type TagHeaderForm } from "../../src/cache/rest-answers.ts";

/** The headers sendJsonAnswer sets on a plain GET for an answer holding one post with a category. */
function tagHeadersSent(form: TagHeaderForm): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    getHeader: (name: string) => headers[name.toLowerCase()],
    end: () => undefined,
  } as unknown as ServerResponse;
  const req = { method: "GET", headers: {} } as IncomingMessage;
  const answer = jsonAnswer({ post: { id: "cpost1", category: { id: "ccat1" } } }, "cws1", "posts");
  sendJsonAnswer(req, res, answer, "public, no-cache", form);
  return {
    ...(headers["surrogate-key"] ? { "surrogate-key": headers["surrogate-key"] } : {}),
    ...(headers["cache-tag"] ? { "cache-tag": headers["cache-tag"] } : {}),
  };
}

describe("CDN tag headers", () => {
  it("carry the workspace, the kind and every record id, in the one form chosen", () => {
    expect(tagHeadersSent("surrogate-key")).toEqual({ "surrogate-key": "ws-cws1 posts cpost1 ccat1" });
    expect(tagHeadersSent("cache-tag")).toEqual({ "cache-tag": "ws-cws1,posts,cpost1,ccat1" });
    expect(tagHeadersSent("both")).toEqual({
      "surrogate-key": "ws-cws1 posts cpost1 ccat1",
      "cache-tag": "ws-cws1,posts,cpost1,ccat1",
    });
    expect(tagHeadersSent("none")).toEqual({});
  });
});
