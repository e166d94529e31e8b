// A record larger than an answer may be (GRAPHQL_MAX_RESPONSE_BYTES: an import can write one, and the
// cap can be lowered after) never stops the change log or the change feed: a page that would pass the
// cap serves its largest records in a smaller form, which names the fields it leaves out, so the
// cursor moves past them and every record after them is read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const CAP = 200_000;
let app: TestApp;
let ws: TestWorkspace;
let big: { id: string };
let small: { id: string };

beforeAll(async () => {
  app = await startTestApp({ env: { GRAPHQL_MAX_RESPONSE_BYTES: String(CAP) } });
  ws = await app.workspace("Oversized records");
  const f = restFixtures(app, ws.privateKey);
  const category = await f.category("news");
  big = await f.post({ slug: "big", categoryId: category.id, content: `<p>${"x".repeat(300_000)}</p>` });
  small = await f.post({ slug: "small", categoryId: category.id });
});
afterAll(() => app?.close());

type FeedRecord = { id: string; content?: string; title?: string; omittedFields?: string[] };

/** Every page of a feed from its start, `limit` at a time; fails if a page is refused or never ends. */
async function readAll<T>(path: string, limit: number, items: (body: any) => T[]): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const query = `limit=${limit}${cursor ? `&${path === "/v1/events" ? "after" : "since"}=${encodeURIComponent(cursor)}` : ""}`;
    const res = await app.request("GET", `${path}?${query}`, { key: ws.privateKey });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    all.push(...items(res.body));
    if (!res.body.hasMore) return all;
    expect(res.body.nextCursor).not.toBe(cursor);
    cursor = res.body.nextCursor;
  }
  throw new Error(`${path} never ended`);
}

function expectSmallerForm(record: FeedRecord | undefined) {
  expect(record).toMatchObject({
    id: big.id,
    title: "Big",
    omittedFields: expect.arrayContaining(["content"]),
  });
  expect(record?.content).toBeUndefined();
}

describe("a record larger than an answer", () => {
  it("/v1/events moves past it, one event a page or many, and reads the events after it", async () => {
    for (const limit of [1, 50]) {
      const events = await readAll(
        "/v1/events",
        limit,
        (body) => body.events as { resourceId: string; data: FeedRecord }[],
      );
      const bigEvents = events.filter((event) => event.resourceId === big.id);
      expect(bigEvents.length).toBeGreaterThan(0);
      for (const event of bigEvents) expectSmallerForm(event.data);
      const smallEvent = events.find((event) => event.resourceId === small.id);
      expect(smallEvent?.data.content).toContain("Body of small");
      expect(smallEvent?.data.omittedFields).toBeUndefined();
    }
  });

  it("/v1/changes moves past it, one record a page or many, and reads the records after it", async () => {
    for (const limit of [1, 100]) {
      const changes = await readAll(
        "/v1/changes",
        limit,
        (body) => body.changes as { id: string; data: FeedRecord }[],
      );
      expectSmallerForm(changes.find((change) => change.id === big.id)?.data);
      expect(changes.find((change) => change.id === small.id)?.data.content).toContain("Body of small");
    }
  });

  it("GraphQL's events and changes answer too, with the smaller form", async () => {
    const res = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.privateKey, "content-type": "application/json" },
      body: JSON.stringify({
        query: `{ events(first: 50) { edges { node { resourceId data } } }
                  changes(first: 100) { changes { id data } } }`,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.errors).toBeUndefined();
    const change = body.data.changes.changes.find((c: { id: string }) => c.id === big.id);
    expectSmallerForm(change.data);
  });

  it("is still refused by its own GET: the smaller form is the feeds' only", async () => {
    // The smaller form is the feeds' only: the cap itself holds everywhere else.
    const res = await app.request("GET", `/v1/posts/${big.id}`, { key: ws.privateKey });
    expect(res.status).toBe(400);
  });
});
