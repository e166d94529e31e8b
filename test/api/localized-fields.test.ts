// Localized custom fields (issue 56): a field definition says whether its values are `localized`. A
// localized field's values are per translation: a write with `?locale=de` (REST PATCH, GraphQL `locale`)
// writes the German values, while a shared field's value is one for every translation, whichever locale
// a write names. A read in a locale serves the localized values of the translation it serves, title and
// body's translation, fallbacks included, never mixing two; shared values as they are. Over HTTP only
// (REST and POST /graphql), so it also runs against the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

const POST_ITEM = "/v1/posts/{identifier}";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/**
 * A workspace with locales en (default), de (falling back to en) and fr, a shared text field `sku`, a
 * localized text field `subtitle` and a localized select `season`, and one published post with values.
 */
async function workspace() {
  const ws: TestWorkspace = await app.workspace();
  const fixtures = restFixtures(app, ws.privateKey);
  const call = async (
    method: string,
    template: string,
    path: string,
    body?: unknown,
    key = ws.privateKey,
  ) => {
    const res = await app.request(method, path, { key, body });
    expectMatchesOpenApi(res, method.toLowerCase(), template);
    return res;
  };
  const ok = async (method: string, template: string, path: string, body?: unknown, key = ws.privateKey) => {
    const res = await call(method, template, path, body, key);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res;
  };
  await ok("POST", "/v1/locales", "/v1/locales", { code: "de" });
  await ok("POST", "/v1/locales", "/v1/locales", { code: "fr" });
  const sku = (await ok("POST", "/v1/fields", "/v1/fields", { key: "sku", name: "SKU", type: "text" })).body
    .field;
  const subtitle = (
    await ok("POST", "/v1/fields", "/v1/fields", {
      key: "subtitle",
      name: "Subtitle",
      type: "text",
      localized: true,
    })
  ).body.field;
  await ok("POST", "/v1/fields", "/v1/fields", {
    key: "season",
    name: "Season",
    type: "select",
    localized: true,
    options: [
      { value: "summer", label: "Summer" },
      { value: "winter", label: "Winter" },
    ],
  });
  const news = await fixtures.category("news");
  const post = (
    await ok("POST", "/v1/posts", "/v1/posts", {
      title: "Hello",
      content: "<p>Hello</p>",
      description: "English",
      slug: "hello",
      categoryId: news.id,
      status: "published",
      fields: { sku: "A-1", subtitle: "An English subtitle", season: "summer" },
    })
  ).body.post as Body & { id: string };
  const graphql = (query: string, variables: Body = {}, key = ws.privateKey) =>
    app.request("POST", "/graphql", { key, body: { query, variables } });
  return {
    ws,
    sku,
    subtitle,
    post,
    news,
    call,
    ok,
    graphql,
    update: (body: Body, query = "") => call("PATCH", POST_ITEM, `/v1/posts/${post.id}${query}`, body),
    read: (query = "", key = ws.privateKey) =>
      call("GET", POST_ITEM, `/v1/posts/${post.id}${query ? `?${query}` : ""}`, undefined, key),
    list: (query = "", key = ws.privateKey) =>
      call("GET", "/v1/posts", `/v1/posts${query ? `?${query}` : ""}`, undefined, key),
    german: (extra: Body = {}) => ({
      title: "Hallo",
      content: "<p>Hallo</p>",
      description: "Deutsch",
      slug: "hallo",
      status: "published",
      ...extra,
    }),
  };
}

describe("a field definition's `localized`", () => {
  it("is false unless asked for: a shared field's body is as before, a localized one says so; GraphQL always tells", async () => {
    const api = await workspace();
    expect(api.sku).not.toHaveProperty("localized");
    expect(api.subtitle).toMatchObject({ key: "subtitle", localized: true });
    const listed = await api.ok("GET", "/v1/fields", "/v1/fields");
    expect((listed.body.fields as Body[]).map((field) => [field.key, field.localized ?? false])).toEqual([
      ["sku", false],
      ["subtitle", true],
      ["season", true],
    ]);
    const res = await api.graphql("{ fields { key localized } }");
    expect(res.body.data.fields).toEqual([
      { key: "sku", localized: false },
      { key: "subtitle", localized: true },
      { key: "season", localized: true },
    ]);
    const viaGraphql = await api.graphql(
      `mutation { createField(input: { key: "teaser", name: "Teaser", type: TEXT, localized: true }) { key localized } }`,
    );
    expect(viaGraphql.body.data.createField).toEqual({ key: "teaser", localized: true });
  });

  it("refuses a `localized` that is not a boolean or is null: 400 naming it", async () => {
    const api = await workspace();
    const created = await api.call("POST", "/v1/fields", "/v1/fields", {
      key: "bad",
      name: "Bad",
      type: "text",
      localized: "yes",
    });
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body.details)).toContain("localized");
    const updated = await api.call("PATCH", "/v1/fields/{identifier}", "/v1/fields/sku", { localized: null });
    expect(updated.status).toBe(400);
    expect(JSON.stringify(updated.body.details)).toContain("localized");
  });
});

describe("writing and reading values per locale", () => {
  it("PATCH ?locale=de writes the German localized values; a shared value written in any locale is the one value", async () => {
    const api = await workspace();
    const written = await api.update(
      api.german({ fields: { subtitle: "Ein deutscher Untertitel", season: "winter", sku: "B-2" } }),
      "?locale=de",
    );
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.post).toMatchObject({ title: "Hallo", status: "published" });

    const german = await api.read("locale=de");
    expect(german.body.post).toMatchObject({
      title: "Hallo",
      locale: "de",
      fields: { sku: "B-2", subtitle: "Ein deutscher Untertitel", season: "winter" },
    });
    // The default locale keeps its own localized values; the shared one changed for it too.
    const english = await api.read();
    expect(english.body.post.fields).toEqual({
      sku: "B-2",
      subtitle: "An English subtitle",
      season: "summer",
    });
    expect((await api.read("locale=en")).body.post.fields).toEqual(english.body.post.fields);

    // A shared value written without a locale shows in German; an English localized one does not.
    await api.update({ fields: { sku: "C-3", subtitle: "Changed in English" } });
    expect((await api.read("locale=de")).body.post.fields).toEqual({
      sku: "C-3",
      subtitle: "Ein deutscher Untertitel",
      season: "winter",
    });
    // Clearing a German value clears it in German only.
    await api.update({ fields: { season: null } }, "?locale=de");
    expect((await api.read("locale=de")).body.post.fields.season).toBeNull();
    expect((await api.read()).body.post.fields.season).toBe("summer");
  });

  it("without a locale every body is as it was: the default's values, no translation's", async () => {
    const api = await workspace();
    const before = await api.read();
    const listBefore = await api.list();
    await api.update(api.german({ fields: { subtitle: "Deutsch" } }), "?locale=de");
    // All but the translations a post tells of (this workspace has several locales: a new one is listed).
    const translationsAside = (post: Body) => {
      const { availableLocales: _locales, alternates: _alternates, ...rest } = post;
      return rest;
    };
    const after = await api.read();
    expect(translationsAside(after.body.post as Body)).toEqual(translationsAside(before.body.post as Body));
    expect((after.body.post as Body).availableLocales).toEqual(["en", "de"]);
    const listAfter = (await api.list()).body as Body;
    expect(listAfter.pagination).toEqual((listBefore.body as Body).pagination);
    expect((listAfter.posts as Body[]).map(translationsAside)).toEqual(
      ((listBefore.body as Body).posts as Body[]).map(translationsAside),
    );
  });

  it("a fallback serves the values of the translation it serves, never a mix", async () => {
    const api = await workspace();
    await api.update(api.german({ status: "published", fields: { subtitle: "Deutsch" } }), "?locale=de");
    // fr has no translation: served from de, all of de's localized values (season: de has none).
    const viaGerman = await api.read("locale=fr&fallback=de,en");
    expect(viaGerman.body.post).toMatchObject({
      locale: "de",
      title: "Hallo",
      fields: { sku: "A-1", subtitle: "Deutsch", season: null },
    });
    const viaEnglish = await api.read("locale=fr&fallback=en");
    expect(viaEnglish.body.post).toMatchObject({
      locale: "en",
      title: "Hello",
      fields: { sku: "A-1", subtitle: "An English subtitle", season: "summer" },
    });
    // Lists serve the same values as the one post.
    const list = await api.list("locale=fr&fallback=de,en");
    expect(list.body.posts).toHaveLength(1);
    expect(list.body.posts[0].fields).toEqual(viaGerman.body.post.fields);
  });

  it("GraphQL: updatePost(locale:) writes, post/posts/postsConnection(locale:) read the served translation's values", async () => {
    const api = await workspace();
    const written = await api.graphql(
      `mutation($id: String!) {
        updatePost(identifier: $id, locale: "de", input: {
          title: "Hallo", slug: "hallo", description: "Deutsch", content: "<p>Hallo</p>", status: PUBLISHED,
          fields: { subtitle: "GraphQL auf Deutsch", sku: "G-1" }
        }) { title fields fieldEntries { key text } }
      }`,
      { id: api.post.id },
    );
    expect(written.body.errors).toBeUndefined();
    expect(written.body.data.updatePost).toMatchObject({
      title: "Hallo",
      fields: { sku: "G-1", subtitle: "GraphQL auf Deutsch", season: null },
    });
    const read = await api.graphql(
      `query($id: String!) {
        de: post(identifier: $id, locale: "de") { locale fields }
        en: post(identifier: $id) { fields }
        list: posts(locale: "fr", fallback: "de") { items { locale fields } }
        connection: postsConnection(locale: "fr", fallback: "de") { totalCount edges { node { locale title fields } } }
      }`,
      { id: api.post.id },
    );
    expect(read.body.errors).toBeUndefined();
    const german = { sku: "G-1", subtitle: "GraphQL auf Deutsch", season: null };
    expect(read.body.data.de).toEqual({ locale: "de", fields: german });
    expect(read.body.data.en.fields).toEqual({
      sku: "G-1",
      subtitle: "An English subtitle",
      season: "summer",
    });
    expect(read.body.data.list.items).toEqual([{ locale: "de", fields: german }]);
    expect(read.body.data.connection).toEqual({
      totalCount: 1,
      edges: [{ node: { locale: "de", title: "Hallo", fields: german } }],
    });
  });
});

describe("bad input and visibility", () => {
  it("400s: an invalid localized value names the field; a new translation needs its required localized fields", async () => {
    const api = await workspace();
    const bad = await api.update(api.german({ fields: { season: "spring" } }), "?locale=de");
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: "fields.season", message: "Must be one of: summer, winter" }]);
    const unknownLocale = await api.update({ fields: { subtitle: "x" } }, "?locale=xx-zz");
    expect(unknownLocale.status).toBe(400);
    expect(JSON.stringify(unknownLocale.body.details)).toContain("locale");

    const required = await api.call("PATCH", "/v1/fields/{identifier}", "/v1/fields/subtitle", {
      required: true,
    });
    expect(required.status, JSON.stringify(required.body)).toBe(200);
    const missing = await api.update(api.german(), "?locale=de");
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: "fields.subtitle", message: '"subtitle" is required' }]);
    // Given, the translation is created.
    const given = await api.update(api.german({ fields: { subtitle: "Pflicht" } }), "?locale=de");
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    // A required localized field cannot be cleared in a translation.
    const cleared = await api.update({ fields: { subtitle: null } }, "?locale=de");
    expect(cleared.status).toBe(400);
  });

  it("a public key never sees a draft translation's values", async () => {
    const api = await workspace();
    await api.update(api.german({ status: "draft", fields: { subtitle: "Geheimer Entwurf" } }), "?locale=de");
    const publicRead = await api.read("locale=de&fallback=en", api.ws.publicKey);
    // de is a draft: the public key is served the English fallback, with English values.
    expect(publicRead.status).toBe(200);
    expect(publicRead.body.post).toMatchObject({ locale: "en", fields: { subtitle: "An English subtitle" } });
    const noFallback = await api.read("locale=de&fallback=none", api.ws.publicKey);
    expect(noFallback.status).toBe(404);
    const list = await api.list("locale=de", api.ws.publicKey);
    expect(JSON.stringify(list.body)).not.toContain("Geheimer Entwurf");
    const gql = await api.graphql(
      `{ posts(locale: "de") { items { fields } } postsConnection(locale: "de") { edges { node { fields } } } }`,
      {},
      api.ws.publicKey,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(JSON.stringify(gql.body)).not.toContain("Geheimer Entwurf");
    // The private key sees it.
    expect((await api.read("locale=de&status=all")).body.post.fields.subtitle).toBe("Geheimer Entwurf");
  });
});

describe("changing `localized` on a field with values", () => {
  it("on: each translation starts with the shared value (no answer changes); off: the default's value is the shared one", async () => {
    const api = await workspace();
    await api.update(api.german({ fields: { subtitle: "Deutsch" } }), "?locale=de");
    const sharedBefore = (await api.read("locale=de")).body.post.fields.sku;
    const on = await api.call("PATCH", "/v1/fields/{identifier}", "/v1/fields/sku", { localized: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.field.localized).toBe(true);
    expect((await api.read("locale=de")).body.post.fields.sku).toBe(sharedBefore);
    // Now per translation.
    await api.update({ fields: { sku: "DE-SKU" } }, "?locale=de");
    expect((await api.read("locale=de")).body.post.fields.sku).toBe("DE-SKU");
    expect((await api.read()).body.post.fields.sku).toBe("A-1");

    const off = await api.call("PATCH", "/v1/fields/{identifier}", "/v1/fields/subtitle", {
      localized: false,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.field).not.toHaveProperty("localized");
    expect((await api.read("locale=de")).body.post.fields.subtitle).toBe("An English subtitle");
  });
});

describe("the response cache", () => {
  it("replaces a cached answer when a localized value changes, in the locale and in a fallback to it", async () => {
    const api = await workspace();
    await api.update(api.german({ status: "published", fields: { subtitle: "Erste" } }), "?locale=de");
    const paths = ["locale=de", "locale=fr&fallback=de"];
    for (const query of paths) {
      await api.read(query, api.ws.publicKey);
      const warm = await api.read(query, api.ws.publicKey);
      expect(warm.headers.get("x-cache")).toBe("HIT");
    }
    const warmList = async () => {
      await api.list("locale=de", api.ws.publicKey);
      expect((await api.list("locale=de", api.ws.publicKey)).headers.get("x-cache")).toBe("HIT");
    };
    await warmList();
    await api.update({ fields: { subtitle: "Zweite" } }, "?locale=de");
    for (const query of paths) {
      const next = await api.read(query, api.ws.publicKey);
      expect(next.headers.get("x-cache")).toBe("MISS");
      expect(next.body.post.fields.subtitle).toBe("Zweite");
    }
    const list = await api.list("locale=de", api.ws.publicKey);
    expect(list.headers.get("x-cache")).toBe("MISS");
    expect(list.body.posts[0].fields.subtitle).toBe("Zweite");
    // The default locale's answer keeps its own value: the change was German only.
    const english = await api.read("", api.ws.publicKey);
    expect(english.body.post.fields.subtitle).toBe("An English subtitle");
  });
});
