// Previews per translation (issue 56): `POST /v1/posts/{id}/preview?locale=fr` (GraphQL
// `createPostPreview(identifier, locale:)`) makes a token that names its locale; with it a public key
// reads the French draft (by the post's id or the French slug), never another translation's; revoking
// the French previews (`DELETE …/preview?locale=fr`) raises the French translation's previewGeneration
// only, so the default locale's tokens keep working, and the other way round. Over HTTP only.
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

describe("previews per translation", () => {
  it("a token made for ?locale=fr previews the French draft; revoking French previews ends only those", async () => {
    const ws = await app.workspace("Translation previews");
    const make = restFixtures(app, ws.privateKey);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(method, path, { key: ws.privateKey, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    await call("POST", "/v1/locales", { code: "fr" });
    await call("POST", "/v1/locales", { code: "de" });
    const news = await make.category("news");
    const post = await make.post({ slug: "bread", title: "Bread", categoryId: news.id, status: "draft" });
    await call("PATCH", `/v1/posts/${post.id}?locale=fr`, {
      title: "Pain (brouillon)",
      slug: "pain",
      description: "Du pain",
      content: "<p>Pain</p>",
      status: "draft",
    });
    const read = (identifier: string, token: string) =>
      app.request("GET", `/v1/posts/${identifier}?preview=${token}`, { key: ws.publicKey });

    const french = (await call("POST", `/v1/posts/${post.id}/preview?locale=fr`)).preview;
    const english = (await call("POST", `/v1/posts/${post.id}/preview`)).preview;
    expect(french.token).not.toBe(english.token);
    // The token names its locale (its payload is readable: a capability, not a secret).
    const payload = JSON.parse(Buffer.from(french.token.slice(4).split(".")[0], "base64url").toString());
    expect(payload.l).toBe("fr");

    // The public key, through the French token: the French draft, by id or by the French slug.
    for (const identifier of [post.id, "pain"]) {
      const res = await read(identifier, french.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.post).toMatchObject({ id: post.id, title: "Pain (brouillon)", status: "draft" });
    }
    // Through the English one: the English draft.
    expect((await read(post.id, english.token)).body.post.title).toBe("Bread");
    // No preview: nothing.
    expect((await app.request("GET", "/v1/posts/pain?locale=fr", { key: ws.publicKey })).status).toBe(404);
    // GraphQL too, with Post.locale.
    const gql = await graphql(
      ws.publicKey,
      `{ post(identifier: "${post.id}", preview: "${french.token}") { title locale } }`,
    );
    expect(gql.data?.post).toEqual({ title: "Pain (brouillon)", locale: "fr" });

    // Revoking the French previews: the French token is refused, the English one still works.
    await call("DELETE", `/v1/posts/${post.id}/preview?locale=fr`);
    const revoked = await read(post.id, french.token);
    expect(revoked.status).toBe(403);
    expect(revoked.body.reason).toBe("revoked");
    expect((await read(post.id, english.token)).status).toBe(200);
    const again = (await call("POST", `/v1/posts/${post.id}/preview?locale=fr`)).preview;
    expect((await read(post.id, again.token)).status).toBe(200);
    // And the other way round: revoking the default's leaves the French token working.
    await call("DELETE", `/v1/posts/${post.id}/preview`);
    expect((await read(post.id, english.token)).status).toBe(403);
    expect((await read(post.id, again.token)).status).toBe(200);

    // A locale the post has no translation in: 404; malformed or unknown: 400 naming `locale`.
    const missing = await app.request("POST", `/v1/posts/${post.id}/preview?locale=de`, {
      key: ws.privateKey,
    });
    expect(missing.status).toBe(404);
    for (const locale of ["xx-!!", "it"]) {
      const bad = await app.request(
        "POST",
        `/v1/posts/${post.id}/preview?locale=${encodeURIComponent(locale)}`,
        {
          key: ws.privateKey,
        },
      );
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain("locale");
    }
    // The French translation removed: its token finds nothing.
    await call("DELETE", `/v1/posts/${post.id}?locale=fr`);
    expect((await read(post.id, again.token)).status).toBe(404);
  });
});
