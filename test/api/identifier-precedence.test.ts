// An identifier names the record whose id it is before any record whose slug (a field's key) it is: a
// slug may be any string, so one record's slug can be another's id. Reads on both doors, with the
// response cache on (a miss computed now and a hit stored before must agree), and writes alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  expect(app.config.cache.mode).not.toBe("off");
  ws = await app.workspace("Identifiers");
});
afterAll(() => app?.close());

async function graphql(key: string, query: string) {
  const res = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { data?: Record<string, { id: string }>; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data;
}

interface Resource {
  /** REST collection path and body wrapper, GraphQL root field. */
  path: string;
  one: string;
  /** The name field that an identifier may hold besides the id. */
  name: "slug" | "key";
  create(name: string): Promise<{ id: string }>;
}

/**
 * Makes `older` and `newer`, reads `newer` by id on both doors (stored in the cache), gives `older`
 * newer's id as its slug, renames `newer` by that identifier, then reads again on both doors, fresh
 * (the private key's first read) and cached: every answer is `newer`. The older record is still found
 * by its own id.
 */
async function expectIdFirst(resource: Resource) {
  const older = await resource.create("older");
  const newer = await resource.create("newer");
  const rest = (key: string, identifier: string) =>
    app.request("GET", `/v1/${resource.path}/${identifier}`, { key });
  const query = (identifier: string) => `{ ${resource.one}(identifier: "${identifier}") { id } }`;

  expect((await rest(ws.publicKey, newer.id)).body[resource.one].id).toBe(newer.id);
  expect((await graphql(ws.publicKey, query(newer.id)))?.[resource.one]?.id).toBe(newer.id);

  const patched = await app.request("PATCH", `/v1/${resource.path}/${older.id}`, {
    key: ws.privateKey,
    body: { [resource.name]: newer.id },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  expect(patched.body[resource.one][resource.name]).toBe(newer.id);

  // A write by that identifier changes the record whose id it is (which also moves its row after the
  // older one's: the statement's row order does not decide).
  const renamed = await app.request("PATCH", `/v1/${resource.path}/${newer.id}`, {
    key: ws.privateKey,
    body: { [resource.path === "posts" ? "title" : "name"]: "Renamed" },
  });
  expect(renamed.body[resource.one].id).toBe(newer.id);

  for (const key of [ws.privateKey, ws.privateKey, ws.publicKey]) {
    const read = await rest(key, newer.id);
    expect(read.status).toBe(200);
    expect(read.body[resource.one].id).toBe(newer.id);
    expect((await graphql(key, query(newer.id)))?.[resource.one]?.id).toBe(newer.id);
  }
  expect((await rest(ws.privateKey, older.id)).body[resource.one].id).toBe(older.id);
  return { older, newer };
}

describe("an identifier that is one record's id and another's slug", () => {
  it("names the post whose id it is, on both doors, cached or not, and for writes", async () => {
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("posts-category");
    const { older, newer } = await expectIdFirst({
      path: "posts",
      one: "post",
      name: "slug",
      create: (slug) => f.post({ slug: `post-${slug}`, categoryId: category.id }),
    });
    const deleted = await app.request("DELETE", `/v1/posts/${newer.id}`, { key: ws.privateKey });
    expect(deleted.body).toEqual({ id: newer.id });
    // Once no post has that id, the identifier is the other post's slug.
    expect((await app.request("GET", `/v1/posts/${newer.id}`, { key: ws.publicKey })).body.post.id).toBe(
      older.id,
    );
  });

  it("names the category, tag and author whose id it is, for reads and deletes", async () => {
    const f = restFixtures(app, ws.privateKey);
    for (const [path, one, make] of [
      ["categories", "category", f.category],
      ["tags", "tag", f.tag],
      ["authors", "author", f.author],
    ] as const) {
      const { older, newer } = await expectIdFirst({
        path,
        one,
        name: "slug",
        create: (slug) => make(`${one}-${slug}`),
      });
      const deleted = await app.request("DELETE", `/v1/${path}/${newer.id}`, { key: ws.privateKey });
      expect(deleted.body).toEqual({ id: newer.id });
      expect((await app.request("GET", `/v1/${path}/${older.id}`, { key: ws.publicKey })).status).toBe(200);
    }
  });

  it("names the custom field whose id it is before the one whose key it is", async () => {
    await expectIdFirst({
      path: "fields",
      one: "field",
      name: "key",
      create: async (key) => {
        const res = await app.request("POST", "/v1/fields", {
          key: ws.privateKey,
          body: { key: `field_${key}`, name: key, type: "text" },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.field;
      },
    });
  });
});
