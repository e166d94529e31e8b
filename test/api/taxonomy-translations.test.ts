// Category, tag and author names per locale (issue 56): the slug is shared; the name and description (an
// author's bio) of the default locale are the record's own, every other locale's is written with
// `PATCH …?locale=de` (created when missing), removed with `DELETE …?locale=de` (never the default's),
// and served with `?locale=&fallback=` by the chain post reads use, the answer saying which locale
// served. Without `locale` every answer is as it was. The same through GraphQL. Over HTTP only (GraphQL
// too, POST /graphql), so it also runs against the built server.
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

const ITEM: Record<string, string> = {
  categories: "/v1/categories/{identifier}",
  tags: "/v1/tags/{identifier}",
  authors: "/v1/authors/{identifier}",
};

/** A workspace with locales en (default), de (falls back to en) and fr (no fallback), and helpers. */
async function workspace() {
  const ws = await app.workspace();
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
  for (const [code, fallback] of [
    ["de", ["en"]],
    ["fr", []],
  ] as const) {
    const res = await call("POST", "/v1/locales", "/v1/locales", { code, fallback });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  return {
    ws,
    fixtures,
    call,
    patch: (many: string, id: string, body: Body, query = "") =>
      call("PATCH", ITEM[many] as string, `/v1/${many}/${id}${query}`, body),
    remove: (many: string, id: string, query = "") =>
      call("DELETE", ITEM[many] as string, `/v1/${many}/${id}${query}`),
    get: (many: string, id: string, query = "", key = ws.privateKey) =>
      call("GET", ITEM[many] as string, `/v1/${many}/${id}${query}`, undefined, key),
    list: (many: string, query = "", key = ws.privateKey) =>
      call("GET", `/v1/${many}`, `/v1/${many}${query}`, undefined, key),
    graphql: async (query: string, variables: Body = {}, key = ws.privateKey) => {
      const res = await app.request("POST", "/graphql", { key, body: { query, variables } });
      return res.body as { data?: Body; errors?: { message: string; extensions?: Body }[] };
    },
  };
}

describe("category and tag names per locale over REST", () => {
  it.each(["categories", "tags"])(
    "/v1/%s: writes, reads with fallbacks, removes one locale",
    async (many) => {
      const api = await workspace();
      const one = many === "categories" ? "category" : "tag";
      const record = await (many === "categories" ? api.fixtures.category("news") : api.fixtures.tag("news"));
      const before = await api.get(many, "news");
      const listBefore = await api.list(many);

      // Creating the German name needs a name; a write naming it creates it, the slug stays shared.
      const incomplete = await api.patch(many, record.id, { description: "Aktuelles" }, "?locale=de");
      expect(incomplete.status).toBe(400);
      expect(JSON.stringify(incomplete.body)).toContain('"name"');
      const written = await api.patch(
        many,
        record.id,
        { name: "Nachrichten", description: "Aktuelles" },
        "?locale=de",
      );
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      expect(written.body[one]).toMatchObject({
        id: record.id,
        name: "Nachrichten",
        slug: "news",
        description: "Aktuelles",
      });

      // Without a locale: byte-identical to the answers before the translation existed.
      expect(JSON.stringify((await api.get(many, "news")).body)).toBe(JSON.stringify(before.body));
      expect(JSON.stringify((await api.list(many)).body)).toBe(JSON.stringify(listBefore.body));

      // In German, the German name; in French (no French name) its fallback, here English.
      const german = await api.get(many, "news", "?locale=de");
      expect(german.status).toBe(200);
      expect(german.body[one]).toMatchObject({ name: "Nachrichten", description: "Aktuelles", locale: "de" });
      const french = await api.get(many, "news", "?locale=fr&fallback=de,en");
      expect(french.body[one]).toMatchObject({ name: "Nachrichten", locale: "de" });
      const frenchToEnglish = await api.get(many, "news", "?locale=fr&fallback=en");
      expect(frenchToEnglish.body[one]).toMatchObject({ name: "News", locale: "en" });
      // fr's own chain is empty, as fallback=none is: no French name, no record.
      expect((await api.get(many, "news", "?locale=fr")).status).toBe(404);
      expect((await api.get(many, "news", "?locale=fr&fallback=none")).status).toBe(404);
      const frenchList = await api.list(many, "?locale=fr&fallback=none");
      expect(frenchList.body[many]).toEqual([]);
      expect((frenchList.body.pagination as Body).totalItems).toBe(0);
      const germanList = await api.list(many, "?locale=de");
      expect((germanList.body[many] as Body[]).map((r) => [r.name, r.locale])).toEqual([
        ["Nachrichten", "de"],
      ]);

      // The English write leaves the German name; updating the German one keeps its description.
      await api.patch(many, record.id, { name: "Headlines" });
      await api.patch(many, record.id, { name: "Schlagzeilen" }, "?locale=de");
      expect((await api.get(many, "news", "?locale=de")).body[one]).toMatchObject({
        name: "Schlagzeilen",
        description: "Aktuelles",
      });
      expect((await api.get(many, "news")).body[one]).toMatchObject({ name: "Headlines" });

      // Removing the German name: German reads fall back to English; the default's cannot be removed.
      expect((await api.remove(many, record.id, "?locale=en")).status).toBe(409);
      expect((await api.remove(many, record.id, "?locale=de")).status).toBe(200);
      expect((await api.remove(many, record.id, "?locale=de")).status).toBe(404);
      expect((await api.get(many, "news", "?locale=de")).body[one]).toMatchObject({
        name: "Headlines",
        locale: "en",
      });
      expect((await api.get(many, "news")).status).toBe(200);
    },
  );

  it("refuses a malformed or unknown locale with a 400 naming it, and fallback without locale", async () => {
    const api = await workspace();
    const tag = await api.fixtures.tag("js");
    for (const bad of ["?locale=not_a_locale!", "?locale=it"]) {
      for (const res of [
        await api.patch("tags", tag.id, { name: "x" }, bad),
        await api.remove("tags", tag.id, bad),
        await api.get("tags", "js", bad),
        await api.list("tags", bad),
      ]) {
        expect(res.status, `${bad} ${JSON.stringify(res.body)}`).toBe(400);
        expect(JSON.stringify(res.body)).toContain('"locale"');
      }
    }
    const badFallback = await api.get("tags", "js", "?locale=de&fallback=xx-unknown");
    expect(badFallback.status).toBe(400);
    expect(JSON.stringify(badFallback.body)).toContain('"fallback"');
    expect((await api.list("tags", "?fallback=en")).status).toBe(400);
  });

  it("serves a public key the names, and replaces a cached French answer served from English", async () => {
    const api = await workspace();
    const tag = await api.fixtures.tag("js", { name: "JavaScript" });
    const read = () => api.list("tags", "?locale=fr&fallback=en", api.ws.publicKey);
    const first = await read();
    expect((first.body.tags as Body[])[0]).toMatchObject({ name: "JavaScript", locale: "en" });
    const again = await read();
    expect(again.headers.get("x-cache")).toBe("HIT");
    expect(again.body).toEqual(first.body);
    await api.patch("tags", tag.id, { name: "JavaScript (fr)" }, "?locale=fr");
    const after = await read();
    expect(after.headers.get("x-cache")).toBe("MISS");
    expect((after.body.tags as Body[])[0]).toMatchObject({ name: "JavaScript (fr)", locale: "fr" });
    const single = await api.get("tags", "js", "?locale=fr", api.ws.publicKey);
    expect(single.body.tag).toMatchObject({ name: "JavaScript (fr)", locale: "fr" });
    // A public key cannot write a name.
    const refused = await app.request("PATCH", `/v1/tags/${tag.id}?locale=de`, {
      key: api.ws.publicKey,
      body: { name: "nope" },
    });
    expect(refused.status).toBe(403);
  });

  it("names the locale in the events of a write of one locale", async () => {
    const api = await workspace();
    const category = await api.fixtures.category("news");
    await api.patch("categories", category.id, { name: "Actualités" }, "?locale=fr");
    const events = await api.call("GET", "/v1/events", "/v1/events?limit=100");
    const mine = (events.body.events as Body[]).filter(
      (event) => event.type === "category.updated" && (event.data as Body).id === category.id,
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]?.locales).toEqual(["fr"]);
    // A write of the record's own columns concerns every locale: it names none.
    await api.patch("categories", category.id, { name: "Headlines" });
    const later = await api.call("GET", "/v1/events", "/v1/events?limit=100");
    const own = (later.body.events as Body[]).filter(
      (event) => event.type === "category.updated" && (event.data as Body).id === category.id,
    );
    expect(own).toHaveLength(2);
    expect(own[1]).not.toHaveProperty("locales");
  });
});

describe("author names and bios per locale", () => {
  it("writes the name and bio in a locale, shares the other fields, reads with fallbacks (REST)", async () => {
    const api = await workspace();
    const author = await api.fixtures.author("ada", { name: "Ada", bio: "Writes code", role: "Engineer" });
    const before = await api.get("authors", "ada");
    const written = await api.patch(
      "authors",
      author.id,
      { bio: "Schreibt Code", name: "Ada L.", role: "Ingenieurin" },
      "?locale=de",
    );
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.author).toMatchObject({ name: "Ada L.", bio: "Schreibt Code", role: "Ingenieurin" });
    // The role is shared: the English answer has it too, and nothing else changed there.
    const english = await api.get("authors", "ada");
    expect(english.body.author).toEqual({ ...(before.body.author as Body), role: "Ingenieurin" });
    expect(english.body.author).not.toHaveProperty("locale");
    expect((await api.get("authors", "ada", "?locale=de")).body.author).toMatchObject({
      name: "Ada L.",
      bio: "Schreibt Code",
      locale: "de",
    });
    expect((await api.get("authors", "ada", "?locale=fr&fallback=de")).body.author).toMatchObject({
      name: "Ada L.",
      locale: "de",
    });
    const list = await api.list("authors", "?locale=fr&fallback=en");
    expect((list.body.authors as Body[]).map((a) => [a.name, a.locale])).toEqual([["Ada", "en"]]);
    expect((await api.remove("authors", author.id, "?locale=en")).status).toBe(409);
    expect((await api.remove("authors", author.id, "?locale=de")).status).toBe(200);
    expect((await api.get("authors", "ada", "?locale=de")).body.author).toMatchObject({
      name: "Ada",
      locale: "en",
    });
  });

  it("does the same through GraphQL's locale argument", async () => {
    const api = await workspace();
    const author = await api.fixtures.author("ada", { name: "Ada", bio: "Writes code" });
    const tag = await api.fixtures.tag("js", { name: "JavaScript" });
    const update = await api.graphql(
      `mutation($id: String!, $tag: String!) {
        updateAuthor(identifier: $id, input: { name: "Ada (fr)", bio: "Code" }, locale: "fr") { name bio locale }
        updateTag(identifier: $tag, input: { name: "JS (fr)" }, locale: "fr") { name locale }
      }`,
      { id: author.id, tag: tag.id },
    );
    expect(update.errors).toBeUndefined();
    expect(update.data).toEqual({
      updateAuthor: { name: "Ada (fr)", bio: "Code", locale: "fr" },
      updateTag: { name: "JS (fr)", locale: "fr" },
    });
    const read = await api.graphql(`{
      fr: author(identifier: "ada", locale: "fr") { name bio locale }
      de: author(identifier: "ada", locale: "de") { name bio locale }
      plain: author(identifier: "ada") { name bio locale }
      tags(locale: "de", fallback: "fr") { items { name locale } pagination { totalItems } }
      none: tags(locale: "de", fallback: "none") { items { name } pagination { totalItems } }
    }`);
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({
      fr: { name: "Ada (fr)", bio: "Code", locale: "fr" },
      de: { name: "Ada", bio: "Writes code", locale: "en" },
      plain: { name: "Ada", bio: "Writes code", locale: null },
      tags: { items: [{ name: "JS (fr)", locale: "fr" }], pagination: { totalItems: 1 } },
      none: { items: [], pagination: { totalItems: 0 } },
    });
    const removed = await api.graphql(`mutation { deleteTag(identifier: "js", locale: "fr") { id } }`);
    expect(removed.errors).toBeUndefined();
    const defaultRemoval = await api.graphql(`mutation { deleteTag(identifier: "js", locale: "en") { id } }`);
    expect(defaultRemoval.errors?.[0]?.extensions?.code).toBeDefined();
    const unknown = await api.graphql(`{ tags(locale: "it") { items { name } } }`);
    expect(JSON.stringify(unknown.errors)).toContain("locale");
  });
});

describe("deleting a locale that holds category, tag or author names", () => {
  it("is a 409 naming them unless force=true; forced, each record is announced updated in that locale and German answers fall back", async () => {
    const api = await workspace();
    const news = await api.fixtures.category("news", { name: "News" });
    const js = await api.fixtures.tag("js", { name: "JavaScript" });
    const ada = await api.fixtures.author("ada", { name: "Ada" });
    await api.patch("categories", news.id, { name: "Nachrichten" }, "?locale=de");
    await api.patch("tags", js.id, { name: "JavaScript (de)" }, "?locale=de");
    await api.patch("authors", ada.id, { name: "Ada (de)" }, "?locale=de");
    // A German answer, cached.
    const read = () => api.get("categories", "news", "?locale=de", api.ws.publicKey);
    expect((await read()).body.category).toMatchObject({ name: "Nachrichten", locale: "de" });
    expect((await read()).headers.get("x-cache")).toBe("HIT");
    const latest = await api.call("GET", "/v1/changes", "/v1/changes?since=latest&locale=de");
    const cursor = latest.body.nextCursor as string;

    const refused = await api.call("DELETE", "/v1/locales/{code}", "/v1/locales/de");
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toBe("Locale has translations");
    expect(refused.body.message).toContain(
      'Locale "de" holds 1 category translation, 1 tag translation and 1 author translation',
    );
    expect(refused.body.message).toContain("force=true");
    const viaGraphql = await api.graphql(`mutation { deleteLocale(code: "de") { id } }`);
    expect(viaGraphql.errors?.[0]?.extensions).toMatchObject({ code: "CONFLICT" });
    expect(viaGraphql.errors?.[0]?.message).toContain("1 category translation");
    expect((await read()).body.category).toMatchObject({ name: "Nachrichten", locale: "de" });

    const forced = await api.graphql(`mutation { deleteLocale(code: "de", force: true) { id } }`);
    expect(forced.errors).toBeUndefined();
    // Each record whose German name went is announced updated, naming the locale, as removing the name does.
    const events = await api.call("GET", "/v1/events", "/v1/events?limit=100");
    const updates = (events.body.events as Body[])
      .filter((event) => /^(category|tag|author)\.updated$/.test(event.type as string))
      .slice(-3)
      .map((event) => [event.type, (event.data as Body).id, event.locales])
      .sort();
    expect(updates).toEqual([
      ["author.updated", ada.id, ["de"]],
      ["category.updated", news.id, ["de"]],
      ["tag.updated", js.id, ["de"]],
    ]);

    // The locale added again (falling back to English) starts empty: the cached German name is not served.
    expect(
      (await api.call("POST", "/v1/locales", "/v1/locales", { code: "de", fallback: ["en"] })).status,
    ).toBe(201);
    const after = await read();
    expect(after.headers.get("x-cache")).toBe("MISS");
    expect(after.body.category).toMatchObject({ name: "News", locale: "en" });
    expect((await api.get("authors", "ada", "?locale=de")).body.author).toMatchObject({
      name: "Ada",
      locale: "en",
    });
    // The delta feed of German readers names the three records changed since.
    const changes = await api.call("GET", "/v1/changes", `/v1/changes?since=${cursor}&locale=de`);
    expect(changes.status, JSON.stringify(changes.body)).toBe(200);
    const upserts = (changes.body.changes as Body[])
      .filter((change) => change.op === "upsert")
      .map((change) => [change.type, change.id])
      .sort();
    expect(upserts).toEqual(
      [
        ["author", ada.id],
        ["category", news.id],
        ["tag", js.id],
      ].sort(),
    );
  });
});
