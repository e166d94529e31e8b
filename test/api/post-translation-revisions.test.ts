// Revisions per translation (issue 56): a write of a post's French translation stores a revision that
// records its locale; `GET /v1/posts/{id}/revisions?locale=fr` (GraphQL `Post.revisions(locale:)`)
// lists that translation's, without `locale` the default locale's as before; restoring a French
// revision restores into the French translation (its localized fields) and leaves the post's own
// alone. A malformed or unknown `locale` is a 400 naming it. Over HTTP only, so it also runs against
// the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/** GraphQL over HTTP (the file also runs against the built server, where app.graphql is not offered). */
async function graphql(key: string, query: string) {
  const res = await app.request("POST", "/graphql", { key, body: { query } });
  return res.body;
}

type Revision = { number: number; snapshot: { title: string; locale?: string } };

describe("revisions per translation", () => {
  it("lists and restores a translation's own revisions", async () => {
    const ws = await app.workspace("Translation revisions");
    const make = restFixtures(app, ws.privateKey);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(method, path, { key: ws.privateKey, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    await call("POST", "/v1/locales", { code: "fr" });
    const news = await make.category("news");
    const post = await make.post({ slug: "bread", title: "Bread", categoryId: news.id });
    await call("PATCH", `/v1/posts/${post.id}`, { title: "Bread, again" });
    await call("PATCH", `/v1/posts/${post.id}?locale=fr`, {
      title: "Pain",
      slug: "pain",
      description: "Du pain",
      content: "<p>Pain</p>",
      status: "published",
    });
    await call("PATCH", `/v1/posts/${post.id}?locale=fr`, { title: "Pain, encore" });

    const titles = (body: { revisions: Revision[] }) => body.revisions.map((r) => r.snapshot.title);
    const english = await call("GET", `/v1/posts/${post.id}/revisions`);
    expect(titles(english)).toEqual(["Bread, again", "Bread"]);
    expect(english.pagination.totalItems).toBe(2);
    // The default locale named is the same as none.
    expect(titles(await call("GET", `/v1/posts/${post.id}/revisions?locale=en`))).toEqual([
      "Bread, again",
      "Bread",
    ]);
    const french = await call("GET", `/v1/posts/${post.id}/revisions?locale=fr`);
    expect(titles(french)).toEqual(["Pain, encore", "Pain"]);
    expect(french.revisions.map((r: Revision) => r.snapshot.locale)).toEqual(["fr", "fr"]);
    expect(french.pagination.totalItems).toBe(2);

    const gql = await graphql(
      ws.privateKey,
      `{ post(identifier: "${post.id}", status: ALL) { fr: revisions(locale: "fr") { items { locale snapshot } } en: revisions { items { locale } } } }`,
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.post.fr.items.map((r: { locale: string }) => r.locale)).toEqual(["fr", "fr"]);
    expect(gql.data.post.en.items.map((r: { locale: string | null }) => r.locale)).toEqual([null, null]);

    // Restoring the first French revision: into the French translation; the post's own title stays.
    const first = (french.revisions as Revision[]).at(-1) as Revision;
    await call("POST", `/v1/posts/${post.id}/revisions/${first.number}/restore`);
    const fr = await call("GET", `/v1/posts/${post.id}?locale=fr&fallback=none`);
    expect(fr.post).toMatchObject({ locale: "fr", title: "Pain" });
    expect((await call("GET", `/v1/posts/${post.id}`)).post.title).toBe("Bread, again");
    // The restore is a new French revision; the English list is unchanged.
    expect(titles(await call("GET", `/v1/posts/${post.id}/revisions?locale=fr`))).toEqual([
      "Pain",
      "Pain, encore",
      "Pain",
    ]);
    expect(titles(await call("GET", `/v1/posts/${post.id}/revisions`))).toEqual(["Bread, again", "Bread"]);

    for (const locale of ["xx-!!", "de"]) {
      const bad = await app.request(
        "GET",
        `/v1/posts/${post.id}/revisions?locale=${encodeURIComponent(locale)}`,
        {
          key: ws.privateKey,
        },
      );
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain("locale");
    }
  });
});
