// Search in the default locale's language (issue 56): a post's own fields are its translation in the
// workspace's default locale, so they are searched in that locale's text-search configuration, as every
// other translation is in its own. A workspace whose default is German stems German ("Haus" finds "Die
// Häuser"); making another locale the default rebuilds the documents of the posts already written.
// Over HTTP only, so it also runs against the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

async function workspace() {
  const ws = await app.workspace();
  const category = await restFixtures(app, ws.privateKey).category("news");
  const call = async (method: string, template: string, path: string, body?: unknown) => {
    const res = await app.request(method, path, { key: ws.privateKey, body });
    expectMatchesOpenApi(res, method.toLowerCase(), template);
    return res;
  };
  return {
    async post(slug: string, title: string, content: string) {
      const res = await call("POST", "/v1/posts", "/v1/posts", {
        slug,
        title,
        content,
        description: "A post",
        categoryId: category.id,
        status: "published",
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.post as Body & { slug: string };
    },
    async locale(code: string, body: Body) {
      const res = await call("PATCH", "/v1/locales/{code}", `/v1/locales/${code}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
    async addLocale(code: string) {
      const res = await call("POST", "/v1/locales", "/v1/locales", { code });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    },
    /** Slugs a search finds, through the list without a locale and, when given, with one. */
    async found(text: string, locale?: string) {
      const query = `query=${encodeURIComponent(text)}${locale ? `&locale=${locale}` : ""}`;
      const res = await call("GET", "/v1/posts", `/v1/posts?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.posts as { slug: string }[]).map((post) => post.slug).sort();
    },
    async graphqlFound(text: string) {
      const res = await app.request("POST", "/graphql", {
        key: ws.privateKey,
        body: {
          query: "query ($q: String!) { posts(query: $q) { items { slug } } }",
          variables: { q: text },
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.data.posts.items as { slug: string }[]).map((post) => post.slug).sort();
    },
  };
}

describe("search in the workspace's default locale", () => {
  it("stems English while the default is en, German once de is the default, and English again after", async () => {
    const api = await workspace();
    const houses = await api.post("houses", "Die Häuser am See", "<p>Wir laufen am Ufer</p>");
    const running = await api.post("running", "Running by the lake", "<p>Houses and gardens</p>");
    // English: "run" finds "Running"; "Haus" is no English stem of "Häuser".
    expect(await api.found("run")).toEqual([running.slug]);
    expect(await api.found("Haus")).toEqual([]);

    await api.addLocale("de");
    await api.locale("de", { isDefault: true });
    // The posts already written are now German: their documents were rebuilt.
    expect(await api.found("Haus")).toEqual([houses.slug]);
    expect(await api.found("run")).toEqual([]);
    expect(await api.graphqlFound("Haus")).toEqual([houses.slug]);
    // A list that names the default locale searches the same documents the same way.
    expect(await api.found("Haus", "de")).toEqual([houses.slug]);
    // A post written while de is the default is German from the start.
    const gardens = await api.post("gardens", "Gärten im Sommer", "<p>Blumen</p>");
    expect(await api.found("Garten")).toEqual([gardens.slug]);

    await api.locale("en", { isDefault: true });
    expect(await api.found("run")).toEqual([running.slug]);
    expect(await api.found("Haus")).toEqual([]);
  });

  it("leaves a workspace whose default stays English as it was", async () => {
    const api = await workspace();
    const running = await api.post("running", "Running by the lake", "<p>Houses</p>");
    await api.addLocale("de");
    expect(await api.found("run")).toEqual([running.slug]);
    expect(await api.found("house")).toEqual([running.slug]);
  });
});
