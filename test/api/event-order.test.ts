// The change log's promise to a consumer that resumes from its last cursor: it sees every event once, in
// position order, even while many writers commit at the same time. (Positions are drawn in commit order,
// src/content/changes/change-log.ts; with positions drawn at INSERT, a reader could pass position 11 before
// 10 commits and never see 10.) On PostgreSQL the writers really run side by side.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Ordered");
});
afterAll(() => app?.close());

interface LoggedEvent {
  id: string;
  data: { slug: string };
}

describe("the change log under concurrent writers", () => {
  it("a consumer polling from its cursor during 240 concurrent writes sees every event exactly once", async () => {
    const WRITERS = 8;
    const PER_WRITER = 30;
    const seen: LoggedEvent[] = [];
    let cursor: string | null = null;
    let writing = true;
    const poll = async () => {
      const query: string = cursor ? `?limit=100&after=${cursor}` : "?limit=100";
      const res = await app.request("GET", `/v1/events${query}`, { key: ws.privateKey });
      expect(res.status).toBe(200);
      seen.push(...(res.body.events as LoggedEvent[]));
      cursor = res.body.nextCursor;
      return res.body.hasMore as boolean;
    };
    const consumer = (async () => {
      while (writing) await poll();
      while (await poll()) {}
    })();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let i = 0; i < PER_WRITER; i++) {
          const res = await app.request("POST", "/v1/tags", {
            key: ws.privateKey,
            body: { name: `W${writer} ${i}`, slug: `w${writer}-${i}` },
          });
          expect(res.status).toBe(201);
        }
      }),
    );
    writing = false;
    await consumer;

    const slugs = seen.map((event) => event.data.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs).toHaveLength(WRITERS * PER_WRITER);
    // And in the log's own order: what a fresh read from the start returns.
    const all: LoggedEvent[] = [];
    let after = "";
    for (;;) {
      const res = await app.request("GET", `/v1/events?limit=100${after}`, { key: ws.privateKey });
      all.push(...res.body.events);
      if (!res.body.hasMore) break;
      after = `&after=${res.body.nextCursor}`;
    }
    expect(seen.map((event) => event.id)).toEqual(all.map((event) => event.id));
  });
});
