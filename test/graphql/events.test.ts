// GraphQL `events`: the change log as a forward Relay connection. The same events as REST, cursors
// bound to the workspace (another workspace's refused), `types` checked, private keys only, and a
// cursor older than the retention refused with CURSOR_EXPIRED (410).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Events");
  other = await app.workspace("Other");
});
afterAll(async () => app?.close());

const EVENTS = `query Events($after: String, $first: Int, $types: [String!]) {
  events(after: $after, first: $first, types: $types) {
    edges { cursor node { id type resourceId slug data createdAt workspaceId } }
    pageInfo { endCursor hasNextPage }
  }
}`;

interface Edge {
  cursor: string;
  node: { resourceId: string; slug: string | null; type: string; workspaceId: string };
}

const CREATE_TAG = `mutation Tag($slug: String!) { createTag(input: { name: "A tag", slug: $slug }) { id } }`;
const CREATE_CATEGORY = `mutation Cat($slug: String!) { createCategory(input: { name: "A category", slug: $slug }) { id } }`;

async function createTag(key: string, slug: string): Promise<string> {
  const result = await app.graphql(key, CREATE_TAG, { slug });
  expect(result.errors).toBeUndefined();
  return result.data.createTag.id;
}

describe("events", () => {
  it("pages forward in order and resumes from endCursor", async () => {
    const ids = [await createTag(ws.privateKey, "g-one"), await createTag(ws.privateKey, "g-two")];
    await app.graphql(ws.privateKey, CREATE_CATEGORY, { slug: "g-cat" });
    const first = await app.graphql(ws.privateKey, EVENTS, { first: 1 });
    expect(first.errors).toBeUndefined();
    expect(first.data.events.edges.map((e: Edge) => e.node.resourceId)).toEqual([ids[0]]);
    expect(first.data.events.pageInfo.hasNextPage).toBe(true);
    const rest = await app.graphql(ws.privateKey, EVENTS, { after: first.data.events.pageInfo.endCursor });
    expect(rest.data.events.edges.map((e: Edge) => e.node.type)).toEqual(["tag.created", "category.created"]);
    expect(rest.data.events.edges[0].node).toMatchObject({
      resourceId: ids[1],
      slug: "g-two",
      workspaceId: ws.id,
      data: { id: ids[1], slug: "g-two", name: "A tag", description: null, count: { posts: 0 } },
    });
    expect(rest.data.events.pageInfo.hasNextPage).toBe(false);

    const tagsOnly = await app.graphql(ws.privateKey, EVENTS, { types: ["category.created"] });
    expect(tagsOnly.data.events.edges.map((e: Edge) => e.node.slug)).toEqual(["g-cat"]);
  });

  it("refuses unknown types, public keys, another workspace's cursor and backward paging", async () => {
    const unknown = await app.graphql(ws.privateKey, EVENTS, { types: ["tag.exploded"] });
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", http: { status: 400 } });

    const publicKey = await app.graphql(ws.publicKey, EVENTS);
    expect(publicKey.errors?.[0]?.extensions).toMatchObject({ code: "FORBIDDEN", http: { status: 403 } });

    await createTag(other.privateKey, "g-elsewhere");
    const theirs = await app.graphql(other.privateKey, EVENTS);
    expect(theirs.data.events.edges.map((e: Edge) => e.node.slug)).toEqual(["g-elsewhere"]);
    const mine = await app.graphql(ws.privateKey, EVENTS);
    expect(mine.data.events.edges.every((e: Edge) => e.node.workspaceId === ws.id)).toBe(true);
    const crossed = await app.graphql(other.privateKey, EVENTS, {
      after: mine.data.events.pageInfo.endCursor,
    });
    expect(crossed.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT" });
    expect(crossed.errors?.[0]?.message).toMatch(/another workspace/);

    const backward = await app.graphql(ws.privateKey, `{ events(last: 2) { edges { cursor } } }`);
    expect(backward.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT" });
  });

  it("a cursor older than the retention: CURSOR_EXPIRED, 410", async () => {
    const id = await createTag(ws.privateKey, "g-ancient");
    await app.db.prisma.$executeRawUnsafe(
      `UPDATE "Event" SET "createdAt" = now() - make_interval(days => $1) WHERE "resourceId" = $2`,
      app.config.events.retentionDays + 1,
      id,
    );
    const all = await app.graphql(ws.privateKey, EVENTS, { first: 100 });
    const edge = all.data.events.edges.find((e: Edge) => e.node.resourceId === id);
    const expired = await app.graphql(ws.privateKey, EVENTS, { after: edge.cursor });
    expect(expired.errors?.[0]?.extensions).toMatchObject({ code: "CURSOR_EXPIRED", http: { status: 410 } });
    expect(expired.errors?.[0]?.message).toMatch(/resync/);
  });
});
