// Where a reader of the change log or the delta feed may start besides a cursor: after an event named by
// its id (GET /v1/events?after=evt_…, as Stripe's `starting_after`), and at the head (`after=latest`,
// `since=latest`): everything from now on, without paging to the end first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Start points");
  const f = restFixtures(app, ws.privateKey);
  for (const slug of ["one", "two", "three"]) await f.tag(slug);
});
afterAll(() => app?.close());

const events = (query: string) => app.request("GET", `/v1/events${query}`, { key: ws.privateKey });

describe("GET /v1/events", () => {
  it("after an event id: the events after that one", async () => {
    const all = await events("");
    const [first, ...rest] = all.body.events as { id: string }[];
    const after = await events(`?after=${first?.id}`);
    expect(after.status).toBe(200);
    expect(after.body.events.map((e: { id: string }) => e.id)).toEqual(rest.map((e) => e.id));
  });

  it("after=latest: nothing now, then what is written next, from the cursor it answers", async () => {
    const head = await events("?after=latest");
    expect(head.status).toBe(200);
    expect(head.body.events).toEqual([]);
    expect(typeof head.body.nextCursor).toBe("string");
    expect(head.body.nextCursor).not.toBe("latest");
    await restFixtures(app, ws.privateKey).tag("four");
    const next = await events(`?after=${head.body.nextCursor}`);
    expect(
      next.body.events.map((e: { type: string; data: { slug: string } }) => [e.type, e.data.slug]),
    ).toEqual([["tag.created", "four"]]);
  });

  it("an event id of another workspace, or none, is a 400", async () => {
    const other = await app.workspace("Other log");
    await restFixtures(app, other.privateKey).tag("elsewhere");
    const theirs = (await app.request("GET", "/v1/events", { key: other.privateKey })).body.events[0].id;
    for (const id of [theirs, "evt_doesnotexist"]) {
      const res = await events(`?after=${id}`);
      expect(res.status, id).toBe(400);
      expect(res.body.details).toEqual([{ field: "after", message: "Not an event id of this workspace" }]);
    }
  });
});

describe("GET /v1/changes?since=latest", () => {
  it("skips the snapshot: nothing now, then only what changes afterwards", async () => {
    const head = await app.request("GET", "/v1/changes?since=latest", { key: ws.publicKey });
    expect(head.status).toBe(200);
    expect(head.body).toMatchObject({ changes: [], hasMore: false });
    await restFixtures(app, ws.privateKey).tag("five");
    const next = await app.request("GET", `/v1/changes?since=${head.body.nextCursor}`, { key: ws.publicKey });
    expect(
      next.body.changes.map((c: { op: string; type: string; data: { slug: string } }) => [
        c.op,
        c.type,
        c.data.slug,
      ]),
    ).toEqual([["upsert", "tag", "five"]]);
  });
});
