// Issue #37 item 5: event ids sort in log order. A post created as published records post.created and
// then post.published in one statement; both ids must sort in that order, and every id after every
// earlier one, across workspaces and concurrent writers (on PostgreSQL they really run side by side).
// Before ids were made under the append lock, each was a time part plus random characters, so two
// events of one millisecond sorted by chance: about half of those pairs came out backwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let workspaces: TestWorkspace[];
beforeAll(async () => {
  app = await startTestApp();
  workspaces = [await app.workspace("Ids one"), await app.workspace("Ids two")];
});
afterAll(() => app?.close());

interface LoggedEvent {
  id: string;
  type: string;
  resourceId: string;
}

/** The workspace's whole log, in log order, as GET /v1/events pages through it. */
async function logOf(ws: TestWorkspace): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  let after = "";
  for (;;) {
    const res = await app.request("GET", `/v1/events?limit=100${after}`, { key: ws.privateKey });
    expect(res.status).toBe(200);
    events.push(...(res.body.events as LoggedEvent[]));
    if (!res.body.hasMore) return events;
    after = `&after=${res.body.nextCursor}`;
  }
}

/** JavaScript's default sort compares UTF-16 code units: what a client's plain sort does. */
const sortedIds = (events: LoggedEvent[]) => events.map((event) => event.id).sort();

describe("event ids", () => {
  it("sort exactly as the log orders events, for posts created as published by concurrent writers", async () => {
    const WRITERS = 4;
    const POSTS_PER_WRITER = 15;
    const categories = await Promise.all(
      workspaces.map((ws) => restFixtures(app, ws.privateKey).category("ordered")),
    );
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        const index = writer % workspaces.length;
        const fixtures = restFixtures(app, (workspaces[index] as TestWorkspace).privateKey);
        for (let i = 0; i < POSTS_PER_WRITER; i++)
          await fixtures.post({
            slug: `w${writer}-${i}`,
            categoryId: (categories[index] as { id: string }).id,
          });
      }),
    );

    for (const ws of workspaces) {
      const log = await logOf(ws);
      const published = log.filter((event) => event.type === "post.published");
      expect(published).toHaveLength((WRITERS / workspaces.length) * POSTS_PER_WRITER);
      // Each post's two events: created first, in the log and in id order.
      for (const event of published) {
        const created = log.find((e) => e.type === "post.created" && e.resourceId === event.resourceId);
        expect(created && created.id < event.id, `${created?.id} < ${event.id}`).toBe(true);
      }
      expect(sortedIds(log)).toEqual(log.map((event) => event.id));
    }
  });

  it("keep the shape clients know: evt_ and 24 lowercase base-36 characters, all distinct", async () => {
    const ids = (await Promise.all(workspaces.map(logOf))).flat().map((event) => event.id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
